import TextEscape

/// A small JSON value with a deterministic writer and a strict reader, shared by the store's
/// snapshots and reports (TimeCore) and timectl's output.
/// Snapshots need byte-stable output (their checksum covers the exact bytes), and reports need a
/// fixed key order; both are simplest with our own writer, and it keeps Foundation out of the agent.
public indirect enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    /// Written as Swift prints it; not finite is written null. Never read back: the reader takes
    /// whole numbers only.
    case double(Double)
    case string(String)
    case array([JSON])
    /// Keys in the order written. Snapshot code writes them sorted, making the output canonical.
    case object([(String, JSON)])

    public static func == (a: JSON, b: JSON) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case let (.bool(x), .bool(y)): x == y
        case let (.int(x), .int(y)): x == y
        case let (.double(x), .double(y)): x == y
        case let (.string(x), .string(y)): x == y
        case let (.array(x), .array(y)): x == y
        case let (.object(x), .object(y)): x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: false
        }
    }

    /// An object whose keys are sorted by their UTF-8 bytes: the canonical form.
    public static func sortedObject(_ members: [String: JSON]) -> JSON {
        .object(members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })
    }

    public subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    public var intValue: Int64? { if case .int(let v) = self { v } else { nil } }
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    public var arrayValue: [JSON]? { if case .array(let v) = self { v } else { nil } }
    public var isNull: Bool { self == .null }

    // MARK: Writing

    /// What goes between items and after keys: nothing for snapshots (their bytes are checksummed),
    /// a space for people reading timectl's output.
    public enum Layout: Sendable {
        case compact
        case spaced

        var itemSeparator: String { self == .compact ? "," : ", " }
        var keySeparator: String { self == .compact ? ":" : ": " }
    }

    /// The compact form: the canonical bytes of a snapshot.
    public var serialized: String { serialized(.compact) }

    public func serialized(_ layout: Layout) -> String {
        var output = ""
        write(to: &output, layout: layout)
        return output
    }

    public func write(to output: inout String, layout: Layout = .compact) {
        switch self {
        case .null: output += "null"
        case .bool(let v): output += v ? "true" : "false"
        case .int(let v): output += String(v)
        case .double(let v): output += v.isFinite ? String(v) : "null"
        case .string(let v): JSON.writeString(v, to: &output)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += layout.itemSeparator }
                item.write(to: &output, layout: layout)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += layout.itemSeparator }
                JSON.writeString(member.0, to: &output)
                output += layout.keySeparator
                member.1.write(to: &output, layout: layout)
            }
            output += "}"
        }
    }

    /// Writes `value` as a JSON string (quoted and escaped).
    public static func writeString(_ value: String, to output: inout String) {
        output += "\""
        // Most strings need no escaping at all: append them whole.
        if !mayNeedEscaping(value) {
            output += value
            output += "\""
            return
        }
        // The loop every escaping shares (TextEscape); JSON's own table.
        TextEscape.substituting(value, into: &output) { scalar in
            switch scalar {
            case "\"": "\\\""
            case "\\": "\\\\"
            case "\n": "\\n"
            case "\r": "\\r"
            case "\t": "\\t"
            case "\u{0}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}": unicodeEscape(scalar)
            default: nil
            }
        }
        output += "\""
    }

    /// True when `value` holds a byte JSON escapes, or the first byte of U+2028 and U+2029 (and of
    /// other characters, which the escaping loop then leaves alone). Read from the string's bytes
    /// in place where it has them (a native string): a third of the time of the generic loop,
    /// which an index chunk's 64-digit hashes pay at every change that rewrites one.
    static func mayNeedEscaping(_ value: String) -> Bool {
        func escaped(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5c || byte == 0x7f || byte == 0xe2 }
        return value.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where escaped(byte) { return true }
            return false
        } ?? value.utf8.contains(where: escaped)
    }

    /// `\u` and four hex digits (every scalar written so lies in the Basic Multilingual Plane).
    static func unicodeEscape(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }

    /// The compact form written as UTF-8 bytes: exactly `serialized.utf8`, without building a
    /// String first (sync writes a few records with every change).
    public func write(to output: inout [UInt8]) {
        switch self {
        case .null: output += "null".utf8
        case .bool(let v): output += (v ? "true" : "false").utf8
        case .int(let v): JSON.writeDecimal(v, to: &output)
        case .double: output += serialized.utf8
        case .string(let v): JSON.writeString(v, to: &output)
        case .array(let items):
            output.append(0x5b)
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(0x2c) }
                item.write(to: &output)
            }
            output.append(0x5d)
        case .object(let members):
            output.append(0x7b)
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(0x2c) }
                JSON.writeString(member.0, to: &output)
                output.append(0x3a)
                member.1.write(to: &output)
            }
            output.append(0x7d)
        }
    }

    /// `value` quoted and escaped as `writeString(_:to:)` writes it into a String.
    public static func writeString(_ value: String, to output: inout [UInt8]) {
        guard !mayNeedEscaping(value) else {
            var text = ""
            writeString(value, to: &text)
            output += text.utf8
            return
        }
        output.append(0x22)
        output += value.utf8
        output.append(0x22)
    }

    /// An integer in decimal, as `String(value)` writes it.
    public static func writeDecimal(_ value: Int64, to output: inout [UInt8]) {
        if value < 0 { output.append(0x2d) }
        var rest = value.magnitude
        // Digits come out last first: into a small buffer on the stack, then written in order.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var count = 0
            repeat {
                digits[count] = 0x30 + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0
            for index in stride(from: count - 1, through: 0, by: -1) { output.append(digits[index]) }
        }
    }

    // MARK: Reading

    public struct ParseError: Error, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "invalid JSON at byte \(offset): \(reason)" }
    }

    public static func parse(_ text: String) throws -> JSON {
        try parse(Array(text.utf8))
    }

    public static func parse(_ bytes: [UInt8]) throws -> JSON {
        var parser = Parser(bytes: bytes)
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.offset == bytes.count else { throw parser.error("trailing characters") }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var offset = 0

        func error(_ reason: String) -> ParseError { ParseError(offset: offset, reason: reason) }

        mutating func skipSpace() {
            while offset < bytes.count {
                switch bytes[offset] {
                case 0x20, 0x0a, 0x0d, 0x09: offset += 1
                default: return
                }
            }
        }

        mutating func expect(_ literal: StaticString, _ value: JSON) throws -> JSON {
            let count = literal.utf8CodeUnitCount
            guard offset + count <= bytes.count,
                  literal.withUTF8Buffer({ expected in expected.elementsEqual(bytes[offset..<offset + count]) }) else {
                throw error("expected \(literal)")
            }
            offset += count
            return value
        }

        mutating func value(depth: Int) throws -> JSON {
            guard depth < 64 else { throw error("nested too deeply") }
            skipSpace()
            guard offset < bytes.count else { throw error("unexpected end") }
            switch bytes[offset] {
            case UInt8(ascii: "n"): return try expect("null", .null)
            case UInt8(ascii: "t"): return try expect("true", .bool(true))
            case UInt8(ascii: "f"): return try expect("false", .bool(false))
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "["):
                offset += 1
                var items: [JSON] = []
                skipSpace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(items) }
                while true {
                    items.append(try value(depth: depth + 1))
                    skipSpace()
                    guard offset < bytes.count else { throw error("unterminated array") }
                    if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                    if bytes[offset] == UInt8(ascii: "]") { offset += 1; return .array(items) }
                    throw error("expected , or ]")
                }
            case UInt8(ascii: "{"):
                offset += 1
                var members: [(String, JSON)] = []
                skipSpace()
                if offset < bytes.count, bytes[offset] == UInt8(ascii: "}") { offset += 1; return .object(members) }
                while true {
                    skipSpace()
                    guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw error("expected a key") }
                    let key = try string()
                    skipSpace()
                    guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw error("expected :") }
                    offset += 1
                    members.append((key, try value(depth: depth + 1)))
                    skipSpace()
                    guard offset < bytes.count else { throw error("unterminated object") }
                    if bytes[offset] == UInt8(ascii: ",") { offset += 1; continue }
                    if bytes[offset] == UInt8(ascii: "}") { offset += 1; return .object(members) }
                    throw error("expected , or }")
                }
            default:
                return .int(try integer())
            }
        }

        /// Digits read straight into the value (negatives counted down, so that Int64.min fits).
        mutating func integer() throws -> Int64 {
            let negative = offset < bytes.count && bytes[offset] == UInt8(ascii: "-")
            if negative { offset += 1 }
            let digits = offset
            var value: Int64 = 0
            var overflow = false
            while offset < bytes.count, bytes[offset] >= UInt8(ascii: "0"), bytes[offset] <= UInt8(ascii: "9") {
                let digit = Int64(bytes[offset] - UInt8(ascii: "0"))
                let (scaled, scaleOverflow) = value.multipliedReportingOverflow(by: 10)
                let (next, digitOverflow) = negative ? scaled.subtractingReportingOverflow(digit) : scaled.addingReportingOverflow(digit)
                overflow = overflow || scaleOverflow || digitOverflow
                value = next
                offset += 1
            }
            guard offset > digits, !overflow else { throw error("expected a value (only whole numbers are used)") }
            return value
        }

        mutating func hex4() throws -> UInt32 {
            guard offset + 4 <= bytes.count,
                  let text = String(validating: bytes[offset..<offset + 4], as: UTF8.self),
                  let value = UInt32(text, radix: 16) else { throw error("bad \\u escape") }
            offset += 4
            return value
        }

        mutating func string() throws -> String {
            offset += 1
            // Most strings have no escape: taken whole.
            let start = offset
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    guard let whole = String(validating: bytes[start..<offset], as: UTF8.self) else { throw error("invalid UTF-8") }
                    offset += 1
                    return whole
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                offset += 1
            }
            offset = start
            var scalars = String.UnicodeScalarView()
            var runStart = offset
            func flush(_ parser: Parser, _ end: Int) throws {
                guard let run = String(validating: parser.bytes[runStart..<end], as: UTF8.self) else {
                    throw parser.error("invalid UTF-8")
                }
                scalars.append(contentsOf: run.unicodeScalars)
            }
            while offset < bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "\"") {
                    try flush(self, offset)
                    offset += 1
                    return String(scalars)
                }
                if byte < 0x20 { throw error("control character in string") }
                if byte == UInt8(ascii: "\\") {
                    try flush(self, offset)
                    offset += 1
                    guard offset < bytes.count else { break }
                    let escape = bytes[offset]
                    offset += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{08}")
                    case UInt8(ascii: "f"): scalars.append("\u{0C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        var code = try hex4()
                        if (0xD800...0xDBFF).contains(code), offset + 6 <= bytes.count,
                           bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") {
                            offset += 2
                            let low = try hex4()
                            guard (0xDC00...0xDFFF).contains(low) else { throw error("bad surrogate pair") }
                            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                        }
                        guard let scalar = Unicode.Scalar(code) else { throw error("bad \\u escape") }
                        scalars.append(scalar)
                    default: throw error("bad escape")
                    }
                    runStart = offset
                    continue
                }
                offset += 1
            }
            throw error("unterminated string")
        }
    }
}
