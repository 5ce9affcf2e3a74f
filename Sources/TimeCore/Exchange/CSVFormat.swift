/// RFC 4180 CSV: fields quoted when they hold a comma, quote, CR or LF; quotes doubled; CRLF
/// between records; a newline inside a quoted field stays a newline.
public enum CSV {
    public static func field(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == 0x2c || $0 == 0x22 || $0 == 0x0a || $0 == 0x0d }) else { return value }
        return "\"" + value.replacingAll("\"", with: "\"\"") + "\""
    }

    public static func row(_ fields: [String]) -> String {
        fields.map(field).joined(separator: ",") + "\r\n"
    }

    /// The records of a CSV text with the line where each begins; a UTF-8 BOM is skipped.
    public static func parse(_ text: String, file: String) throws -> [(line: Int, fields: [String])] {
        var bytes = Array(text.utf8)
        if bytes.starts(with: [0xef, 0xbb, 0xbf]) { bytes.removeFirst(3) }
        var rows: [(Int, [String])] = []
        var fields: [String] = []
        var current: [UInt8] = []
        var line = 1, rowLine = 1
        var i = 0
        var quoted = false, wasQuoted = false
        func endField() {
            fields.append(String(decoding: current, as: UTF8.self)); current.removeAll(); wasQuoted = false
        }
        func endRow() {
            endField()
            if !(fields.count == 1 && fields[0].isEmpty) { rows.append((rowLine, fields)) }
            fields.removeAll()
        }
        while i < bytes.count {
            let c = bytes[i]
            if quoted {
                if c == 0x22 {
                    if i + 1 < bytes.count && bytes[i + 1] == 0x22 { current.append(0x22); i += 2; continue }
                    quoted = false; i += 1; continue
                }
                if c == 0x0a { line += 1 }
                current.append(c); i += 1; continue
            }
            switch c {
            case 0x22:
                guard current.isEmpty && !wasQuoted else {
                    throw ExchangeError(file: file, line: line, expected: "a quote only at the start of a field (RFC 4180: write \"\" for a quote inside a quoted field)")
                }
                quoted = true; wasQuoted = true
            case 0x2c: endField()
            case 0x0d: break
            case 0x0a: endRow(); line += 1; rowLine = line
            default:
                if wasQuoted { throw ExchangeError(file: file, line: line, expected: "a comma or the end of the line after a closing quote") }
                current.append(c)
            }
            i += 1
        }
        if quoted { throw ExchangeError(file: file, line: rowLine, expected: "a closing quote before the end of the file") }
        if !current.isEmpty || !fields.isEmpty || wasQuoted { endRow() }
        return rows
    }
}

extension String {
    /// Every `target` character replaced by `replacement`.
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for character in self {
            if character == target { result += replacement } else { result.append(character) }
        }
        return result
    }
}
