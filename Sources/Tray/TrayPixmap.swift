/// An icon as SNI's `IconPixmap` carries it: ARGB32, network byte order, one image per size.
public struct TrayPixmap: Equatable, Sendable {
    public enum Glyph: Sendable { case play, pause, none }

    public var width: Int32
    public var height: Int32
    /// width × height × 4 bytes, A R G B per pixel.
    public var argb: [UInt8]

    /// A round badge in `color` ("#rrggbb"; grey when unreadable) with a white glyph, drawn with
    /// 4×4 supersampling so its edge is smooth at 16, 22 and 32 px.
    public static func badge(size: Int, color: String, glyph: Glyph, filled: Bool = true) -> TrayPixmap {
        let (r, g, b) = rgb(color) ?? (0x88, 0x88, 0x88)
        let n = Double(size)
        let center = n / 2, radius = n / 2 - 0.5, ring = max(1.5, n / 10)
        var bytes = [UInt8](repeating: 0, count: size * size * 4)
        for y in 0..<size {
            for x in 0..<size {
                var disc = 0.0, mark = 0.0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let px = Double(x) + (Double(sx) + 0.5) / 4, py = Double(y) + (Double(sy) + 0.5) / 4
                        let dx = px - center, dy = py - center
                        let distance = (dx * dx + dy * dy).squareRoot()
                        let inDisc = filled ? distance <= radius : (distance <= radius && distance >= radius - ring)
                        if inDisc { disc += 1 }
                        if distance <= radius && inGlyph(glyph, px / n, py / n) { mark += 1 }
                    }
                }
                let coverage = disc / 16, glyphCoverage = mark / 16
                let offset = (y * size + x) * 4
                if filled {
                    // The glyph is white over the colored disc.
                    let blend = { (c: Int) in UInt8(Double(c) * (1 - glyphCoverage) + 255 * glyphCoverage) }
                    bytes[offset] = UInt8(coverage * 255)
                    bytes[offset + 1] = blend(r); bytes[offset + 2] = blend(g); bytes[offset + 3] = blend(b)
                } else {
                    let alpha = min(1, coverage + glyphCoverage)
                    bytes[offset] = UInt8(alpha * 255)
                    bytes[offset + 1] = UInt8(r); bytes[offset + 2] = UInt8(g); bytes[offset + 3] = UInt8(b)
                }
            }
        }
        return TrayPixmap(width: Int32(size), height: Int32(size), argb: bytes)
    }

    /// The glyph's shape in the unit square.
    private static func inGlyph(_ glyph: Glyph, _ x: Double, _ y: Double) -> Bool {
        switch glyph {
        case .none:
            return false
        case .play:
            // A triangle pointing right, centred optically.
            guard x >= 0.38, x <= 0.74 else { return false }
            let half = (0.74 - x) / 0.36 * 0.22
            return abs(y - 0.5) <= half
        case .pause:
            guard y >= 0.30, y <= 0.70 else { return false }
            return (x >= 0.33 && x <= 0.45) || (x >= 0.55 && x <= 0.67)
        }
    }

    static func rgb(_ color: String) -> (Int, Int, Int)? {
        let hex = Array(color.utf8)
        guard hex.count == 7, hex[0] == UInt8(ascii: "#") else { return nil }
        func nibble(_ c: UInt8) -> Int? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(c - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(c - UInt8(ascii: "A")) + 10
            default: return nil
            }
        }
        var parts: [Int] = []
        for i in stride(from: 1, to: 7, by: 2) {
            guard let high = nibble(hex[i]), let low = nibble(hex[i + 1]) else { return nil }
            parts.append(high * 16 + low)
        }
        return (parts[0], parts[1], parts[2])
    }
}
