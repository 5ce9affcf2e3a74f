/// Timewarrior 1.4/1.5 data files (`YYYY-MM.data`), one interval a line:
/// `inc <start>Z [- <end>Z] [# tag "tag with \"quotes\""...] [# "annotation"]`.
/// Tags are stored sorted by byte; a month file may hold an interval of another month, so every
/// file is read and nothing is inferred from its name.
public enum TimewarriorReader {
    /// Reads the lines of one file into `data`.
    public static func read(_ text: String, file: String, into data: inout ExchangeData) throws {
        data.projectFromTags = true
        var lineNumber = 0
        for rawLine in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineNumber += 1
            let line = rawLine.hasSuffix("\r") ? rawLine.dropLast() : rawLine
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            guard let record = try parseLine(Array(line.utf8), file: file, line: lineNumber) else { continue }
            if record.end == nil {
                data.warnings.append("The running Timewarrior interval started at \(WallClock.iso(record.start)) was not imported; stop it (timew stop) and import again to bring it in.")
            }
            data.records.append(record)
        }
    }

    static func parseLine(_ b: [UInt8], file: String, line: Int) throws -> ExchangeRecord? {
        func fail(_ expected: String) -> ExchangeError { ExchangeError(file: file, line: line, expected: expected) }
        var i = 0
        func skipSpaces() { while i < b.count && b[i] == 0x20 { i += 1 } }
        func word() -> [UInt8] {
            let from = i
            while i < b.count && b[i] != 0x20 { i += 1 }
            return Array(b[from..<i])
        }
        guard word() == Array("inc".utf8) else {
            throw fail("a line starting with \"inc\" (Timewarrior's interval: inc <start>Z [- <end>Z] [# tags] [# \"annotation\"])")
        }
        skipSpaces()
        guard let start = utc(word()) else { throw fail("a start time such as 20261128T130000Z after \"inc\"") }
        skipSpaces()
        var end: Int64?
        if i < b.count && b[i] == 0x2d {
            i += 1
            skipSpaces()
            guard let value = utc(word()) else { throw fail("an end time such as 20261128T140000Z after \"-\"") }
            guard value >= start else { throw fail("an end time not before the start") }
            end = value
            skipSpaces()
        }
        var tags: [String] = []
        var annotation = ""
        if i < b.count {
            guard b[i] == 0x23 else { throw fail("\"#\" before the tags, or the end of the line") }
            i += 1
            skipSpaces()
            while i < b.count && b[i] != 0x23 {
                if b[i] == 0x22 {
                    guard let value = quoted(b, &i) else { throw fail("a closing quote of a tag") }
                    tags.append(value)
                } else {
                    tags.append(String(decoding: word(), as: UTF8.self))
                }
                skipSpaces()
            }
            if i < b.count {
                i += 1 // the second '#': the annotation
                skipSpaces()
                if i < b.count && b[i] == 0x22 {
                    guard let value = quoted(b, &i) else { throw fail("a closing quote of the annotation") }
                    annotation = value
                } else {
                    annotation = String(decoding: b[i...], as: UTF8.self)
                    i = b.count
                }
                skipSpaces()
                guard i == b.count else { throw fail("the end of the line after the annotation") }
            }
        }
        return ExchangeRecord(key: "timewarrior:\(start)", project: "", start: start, end: end, note: annotation, tags: tags)
    }

    /// A quoted string at `i` with `\"` and `\\` escapes; `i` moves past the closing quote.
    static func quoted(_ b: [UInt8], _ i: inout Int) -> String? {
        var out: [UInt8] = []
        var j = i + 1
        while j < b.count {
            if b[j] == 0x5c && j + 1 < b.count { out.append(b[j + 1]); j += 2; continue }
            if b[j] == 0x22 { i = j + 1; return String(decoding: out, as: UTF8.self) }
            out.append(b[j]); j += 1
        }
        return nil
    }

    /// `20261128T130000Z`.
    static func utc(_ w: [UInt8]) -> Int64? {
        guard w.count == 16, w[8] == 0x54, w[15] == 0x5a,
              let year = WallClock.number(w[0..<4]), let month = WallClock.number(w[4..<6]), let day = WallClock.number(w[6..<8]),
              let hour = WallClock.number(w[9..<11]), let minute = WallClock.number(w[11..<13]), let second = WallClock.number(w[13..<15]),
              CivilDate(year: year, month: month, day: day).isValid, hour < 24, minute < 60, second < 61
        else { return nil }
        return Int64(CivilDate(year: year, month: month, day: day).dayNumber) * 86400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// Whether a file name is one of Timewarrior's month files.
    public static func isDataFile(_ name: String) -> Bool {
        let b = Array(name.utf8)
        return b.count == 12 && name.hasSuffix(".data") && b[4] == 0x2d
            && WallClock.number(b[0..<4]) != nil && WallClock.number(b[5..<7]) != nil
    }
}
