/// iCalendar (RFC 5545): one VEVENT per completed session, UTC times, escaped text, lines
/// folded at 75 octets (never inside a UTF-8 character), CRLF.
public enum ICalendar {
    static func write(_ input: ExportInput, _ lookup: ExportWriter.Lookup) -> String {
        var out = ""
        func line(_ text: String) { out += fold(text) }
        line("BEGIN:VCALENDAR")
        line("VERSION:2.0")
        line("PRODID:-//Time//time-agent//EN")
        line("CALSCALE:GREGORIAN")
        let stamp = WallClock.utcBasic(input.now)
        for session in input.sessions {
            guard let end = session.end else { continue }
            line("BEGIN:VEVENT")
            line("UID:session-\(session.id)-\(input.dataID)@time")
            line("DTSTAMP:\(stamp)")
            line("DTSTART:\(WallClock.utcBasic(session.start))")
            line("DTEND:\(WallClock.utcBasic(end))")
            line("SUMMARY:" + escape(lookup.names[session.projectID] ?? ""))
            let category = lookup.categories[session.projectID] ?? ""
            if !category.isEmpty { line("CATEGORIES:" + escape(category)) }
            if !session.note.isEmpty { line("DESCRIPTION:" + escape(session.note)) }
            line("END:VEVENT")
        }
        line("END:VCALENDAR")
        return out
    }

    /// TEXT escaping: `\` `;` `,` and newlines.
    public static func escape(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var previousCR = false
        for scalar in text.unicodeScalars {
            defer { previousCR = scalar == "\r" }
            switch scalar {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case ";": out.append(contentsOf: "\\;".unicodeScalars)
            case ",": out.append(contentsOf: "\\,".unicodeScalars)
            case "\r": out.append(contentsOf: "\\n".unicodeScalars)
            case "\n": if !previousCR { out.append(contentsOf: "\\n".unicodeScalars) }
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// One content line, folded so no physical line exceeds 75 octets (continuations begin with
    /// a space, which counts), never inside a UTF-8 character; each line ends with CRLF.
    public static func fold(_ line: String) -> String {
        let bytes = Array(line.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 70 * 3 + 2)
        var index = 0
        var limit = 75
        while bytes.count - index > limit {
            var cut = index + limit
            while cut > index && bytes[cut] & 0xc0 == 0x80 { cut -= 1 } // not inside a character
            out += bytes[index..<cut]
            out += [0x0d, 0x0a, 0x20]
            index = cut
            limit = 74
        }
        out += bytes[index...]
        out += [0x0d, 0x0a]
        return String(decoding: out, as: UTF8.self)
    }
}
