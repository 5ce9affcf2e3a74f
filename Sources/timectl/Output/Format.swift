import TimeClient
/// Durations, colors and tables for people.
enum Format {
    /// "1:23" (hours and minutes; hours are not capped at 24).
    static func hoursMinutes(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        return "\(s / 3600):\(LocalTime.pad(Int(s % 3600 / 60)))"
    }

    /// "1:23:45".
    static func hms(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        return "\(s / 3600):\(LocalTime.pad(Int(s % 3600 / 60))):\(LocalTime.pad(Int(s % 60)))"
    }

    /// The 24-bit ANSI foreground escape for "#rrggbb"; nil for anything else.
    static func ansi(_ hex: String) -> String? {
        let digits = Array(hex.utf8)
        guard digits.count == 7, digits[0] == UInt8(ascii: "#"),
              let value = UInt32(String(decoding: digits[1...], as: UTF8.self), radix: 16) else { return nil }
        return "\u{1B}[38;2;\(value >> 16 & 0xff);\(value >> 8 & 0xff);\(value & 0xff)m"
    }

    static let reset = "\u{1B}[0m"

    /// `text` in `hex` when color is on.
    static func colored(_ text: String, _ hex: String, enabled: Bool) -> String {
        guard enabled, let code = ansi(hex) else { return text }
        return code + text + reset
    }

    /// The first line of a note, shortened for a table cell.
    static func oneLine(_ note: String, limit: Int = 40) -> String {
        let first = note.split(separator: "\n", omittingEmptySubsequences: true).first.map(String.init) ?? ""
        let more = note.contains("\n") && first != note.trimmed
        if first.count > limit { return String(first.prefix(limit - 1)) + "…" }
        return more ? first + " …" : first
    }
}

/// A cell: its text and, optionally, the color it is shown in.
struct Cell {
    var text: String
    var color: String?
    init(_ text: String, color: String? = nil) {
        self.text = text
        self.color = color
    }
}

/// An aligned table; columns are padded on their plain text, then colored.
struct Table {
    var headers: [String]
    var rows: [[Cell]] = []
    /// Columns aligned to the right (numbers, durations).
    var rightAligned: Set<Int> = []

    func render(color: Bool) -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.text.count) }
        }
        func line(_ cells: [Cell], header: Bool) -> String {
            var parts: [String] = []
            for (i, cell) in cells.enumerated() {
                let padding = String(repeating: " ", count: widths[i] - cell.text.count)
                let last = i == cells.count - 1
                var text = cell.text
                if let hex = cell.color { text = Format.colored(text, hex, enabled: color) }
                if header && color { text = "\u{1B}[1m" + text + Format.reset }
                if rightAligned.contains(i) {
                    parts.append(padding + text)
                } else {
                    parts.append(last ? text : text + padding)
                }
            }
            var result = parts.joined(separator: "  ")
            while result.hasSuffix(" ") { result.removeLast() }
            return result
        }
        var out = line(headers.map { Cell($0) }, header: true) + "\n"
        for row in rows { out += line(row, header: false) + "\n" }
        return out
    }
}
