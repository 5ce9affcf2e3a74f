/// A local week, Monday to Sunday, with the instants where its eight midnights fall.
public struct Week: Equatable, Sendable {
    public let monday: CivilDate
    /// Start of each local day, Monday first, plus the start of the next Monday: 8 instants.
    public let dayStarts: [Int64]

    public init(monday: CivilDate) {
        self.monday = monday
        dayStarts = (0...7).map { LocalTime.startOfDay(monday.adding(days: $0)) }
    }

    public var start: Int64 { dayStarts[0] }
    public var end: Int64 { dayStarts[7] }
    public var sunday: CivilDate { monday.adding(days: 6) }

    public var isoName: String {
        let (year, week) = monday.isoWeek
        return "\(pad(year, 4))-W\(pad(week, 2))"
    }

    public static let acceptedForms = "use \"\" for this week, an ISO week such as 2026-W48, or a date such as 2026-11-25"

    /// `""` (the week of `now`), `2026-W48`, or `2026-11-25` (the week that holds that local day).
    public static func parse(_ raw: String, now: Int64) throws -> Week {
        LocalTime.refresh()
        let text = raw.trimmingWhitespace()
        if text.isEmpty { return containing(LocalTime.date(of: now)) }
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        let invalid = TrackerError.invalidArgument("\"\(shown)\" is not a week: \(acceptedForms).")
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count,
                  bytes[range].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        if bytes.count == 8 || bytes.count == 7, bytes[4] == UInt8(ascii: "-"), bytes[5] == UInt8(ascii: "W") || bytes[5] == UInt8(ascii: "w"),
           let year = number(0..<4), let week = number(6..<bytes.count), year >= 1970 {
            guard let monday = CivilDate.mondayOfISOWeek(year: year, week: week) else {
                throw TrackerError.invalidArgument("\(year) has no week \(week): \(acceptedForms).")
            }
            return Week(monday: monday)
        }
        if bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
           let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), year >= 1970 {
            let date = CivilDate(year: year, month: month, day: day)
            guard date.isValid else { throw TrackerError.invalidArgument("\(text) is not a date in the calendar: \(acceptedForms).") }
            return containing(date)
        }
        throw invalid
    }

    public static func containing(_ date: CivilDate) -> Week {
        Week(monday: date.adding(days: 1 - date.isoWeekday))
    }
}
