/// How a slot carries an index chunk that is not yet known durable: as the parts in which it
/// differs from the durable index chunk of the same period (its base), instead of whole. An edit
/// years back rewrites the root (every year of the history), a year and a month; whole, those
/// would make each slot grow with the history, while their differences are a line or two.
///
///     patch <base sha256>
///     <period> <sessions> <sha256>     a part set (added or changed)
///     <period> -                       a part removed
///
/// A chunk's own bytes always begin with `{`, so a carried part is a patch exactly when it
/// begins with `patch `. Expanding one reads the base file, checks it against its hash, applies
/// the lines and writes the canonical bytes (`SnapshotFormat.indexChunk`): whoever uses them
/// still checks them against the name they were carried under.
enum IndexPatch {
    private static let marker = Array("patch ".utf8)

    static func isPatch(_ bytes: [UInt8]) -> Bool { bytes.starts(with: marker) }

    /// The patch turning the index chunk `base` (whose parts are `baseParts`) into one with
    /// `parts`; nil when whole bytes are no larger, or a period or hash would not fit a line.
    static func make(base: String, baseParts: [String: SnapshotFormat.ChunkReference],
                     parts: [String: SnapshotFormat.ChunkReference], wholeSize: Int) -> [UInt8]? {
        func fits(_ text: String) -> Bool { !text.isEmpty && !text.utf8.contains { $0 <= 0x20 || $0 >= 0x7f } }
        guard fits(base) else { return nil }
        var out = "patch " + base + "\n"
        for (period, part) in parts.sorted(by: { $0.key < $1.key }) where baseParts[period] != part {
            guard fits(period), fits(part.sha256), part.sessions >= 0 else { return nil }
            out += period + " " + String(part.sessions) + " " + part.sha256 + "\n"
        }
        for period in baseParts.keys.sorted() where parts[period] == nil {
            guard fits(period) else { return nil }
            out += period + " -\n"
        }
        return out.utf8.count < wholeSize ? Array(out.utf8) : nil
    }

    /// The index chunk's bytes a patch describes; `chunk(sha256)` reads a chunk file. Nil when
    /// the base cannot be read whole or the patch is malformed.
    static func apply(_ patch: [UInt8], chunk: (String) -> [UInt8]?) -> [UInt8]? {
        let lines = String(decoding: patch, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.first, first.hasPrefix("patch "), lines.last == "" else { return nil }
        let base = String(first.dropFirst(6))
        guard let bytes = chunk(base), SHA256.hex(bytes) == base,
              let (period, baseParts) = SnapshotFormat.indexChunkContents(bytes) else { return nil }
        var parts = Dictionary(baseParts.map { ($0.period, $0) }, uniquingKeysWith: { first, _ in first })
        for line in lines.dropFirst().dropLast() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            switch fields.count {
            case 2 where fields[1] == "-":
                parts[fields[0]] = nil
            case 3:
                guard let sessions = Int(fields[1]), sessions >= 0 else { return nil }
                parts[fields[0]] = SnapshotFormat.ChunkReference(period: fields[0], sha256: fields[2], sessions: sessions)
            default:
                return nil
            }
        }
        return SnapshotFormat.indexChunk(period: period, parts: parts.values.sorted { $0.period < $1.period })
    }
}
