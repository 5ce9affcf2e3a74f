/// A calendar date without a time zone, with day arithmetic done on plain integers
/// (Howard Hinnant's days-from-civil algorithm), so no time zone database is needed for it.
public struct CivilDate: Equatable, Comparable, Hashable, Sendable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year; self.month = month; self.day = day
    }

    /// Days since 1970-01-01.
    public var dayNumber: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146097 + dayOfEra - 719468
    }

    public init(dayNumber: Int) {
        let z = dayNumber + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let dayOfEra = z - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        day = dayOfYear - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    public func adding(days: Int) -> CivilDate { CivilDate(dayNumber: dayNumber + days) }

    /// 1 = Monday ... 7 = Sunday.
    public var isoWeekday: Int { ((dayNumber % 7 + 7 + 3) % 7) + 1 }

    public var isValid: Bool {
        (1...12).contains(month) && day >= 1 && CivilDate(dayNumber: dayNumber) == self
    }

    /// The ISO 8601 week-numbering year and week of this date.
    public var isoWeek: (year: Int, week: Int) {
        let thursday = adding(days: 4 - isoWeekday)
        let firstOfYear = CivilDate(year: thursday.year, month: 1, day: 1)
        return (thursday.year, (thursday.dayNumber - firstOfYear.dayNumber) / 7 + 1)
    }

    /// The Monday of ISO week `week` of `year`, or nil when that week does not exist.
    public static func mondayOfISOWeek(year: Int, week: Int) -> CivilDate? {
        guard week >= 1 && week <= 53 else { return nil }
        let january4 = CivilDate(year: year, month: 1, day: 4)
        let monday = january4.adding(days: 1 - january4.isoWeekday + (week - 1) * 7)
        return monday.isoWeek.year == year ? monday : nil
    }

    public static func < (a: CivilDate, b: CivilDate) -> Bool { a.dayNumber < b.dayNumber }

    public var description: String { "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))" }

    /// The date a day's key names ("YYYY-MM-DD", `utcDayKey`), read from its ten bytes in place;
    /// nil for any other text. The fields are taken as they are written, not checked as a date.
    init?(dayKey key: String) {
        var fields = (0, 0, 0), field = 0, length = 0
        for byte in key.utf8 {
            length += 1
            guard length <= 10 else { return nil }
            if length == 5 || length == 8 {
                guard byte == UInt8(ascii: "-") else { return nil }
                field += 1
                continue
            }
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int(byte) - 48
            switch field {
            case 0: fields.0 = fields.0 * 10 + digit
            case 1: fields.1 = fields.1 * 10 + digit
            default: fields.2 = fields.2 * 10 + digit
            }
        }
        guard length == 10 else { return nil }
        self.init(year: fields.0, month: fields.1, day: fields.2)
    }

    /// The UTC month a Unix time falls in, "YYYY-MM": the key of a snapshot chunk.
    static func utcMonthKey(_ time: Int64) -> String {
        String(utcDayKey(time).prefix(7))
    }

    /// The UTC day a Unix time falls in, "YYYY-MM-DD": the day whose finished sessions a
    /// snapshot keeps in itself.
    static func utcDayKey(_ time: Int64) -> String {
        let days = Int((time >= 0 ? time : time - 86399) / 86400)
        let date = CivilDate(dayNumber: days)
        guard (0...9999).contains(date.year) else { return date.description }
        // Every change names today's key (and each session it writes, its day's): ten digits and
        // dashes put in place, a small string, rather than three padded strings joined.
        return String(unsafeUninitializedCapacity: 10) { key in
            func put(_ value: Int, endingAt end: Int, width: Int) {
                var rest = value
                for position in (end - width..<end).reversed() {
                    key[position] = UInt8(48 + rest % 10)
                    rest /= 10
                }
            }
            put(date.year, endingAt: 4, width: 4)
            key[4] = 0x2D
            put(date.month, endingAt: 7, width: 2)
            key[7] = 0x2D
            put(date.day, endingAt: 10, width: 2)
            return 10
        }
    }
}

func pad(_ value: Int, _ width: Int) -> String {
    let digits = String(abs(value))
    return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// "1 session", "2 sessions".
func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
