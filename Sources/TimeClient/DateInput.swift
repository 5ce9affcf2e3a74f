import Glibc

/// Local time through the C library, which honours TZ (FoundationEssentials' TimeZone is GMT-only).
public enum LocalTime {
    public struct Fields {
        public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
        /// 1 = Monday … 7 = Sunday.
        public var weekday: Int
    }

    public static func fields(_ time: Int64) -> Fields {
        var t = time_t(time)
        var parts = tm()
        localtime_r(&t, &parts)
        return Fields(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
                      hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec),
                      weekday: parts.tm_wday == 0 ? 7 : Int(parts.tm_wday))
    }

    /// The Unix time of a local wall-clock time; nil when the fields are out of range (30 February,
    /// 25:00). A time skipped by a DST change moves forward, as mktime does.
    public static func make(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int64? {
        guard (1...12).contains(month), (1...31).contains(day), (0...23).contains(hour),
              (0...59).contains(minute), (0...60).contains(second) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        parts.tm_isdst = -1
        let result = mktime(&parts)
        guard result != -1 || (year == 1969 && month == 12 && day == 31) else { return nil }
        // mktime normalizes 31 April to 1 May: refuse instead.
        guard Int(parts.tm_mday) == day, Int(parts.tm_mon) == month - 1 else { return nil }
        return Int64(result)
    }

    /// The local day `offset` days from the day holding `time` (calendar arithmetic, not 86400).
    public static func day(of time: Int64, offset: Int = 0) -> (year: Int, month: Int, day: Int) {
        let f = fields(time)
        var parts = tm()
        parts.tm_year = Int32(f.year - 1900)
        parts.tm_mon = Int32(f.month - 1)
        parts.tm_mday = Int32(f.day + offset)
        parts.tm_hour = 12
        parts.tm_isdst = -1
        _ = mktime(&parts)
        return (Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday))
    }

    public static func startOfDay(_ time: Int64, offset: Int = 0) -> Int64 {
        let d = day(of: time, offset: offset)
        return make(year: d.year, month: d.month, day: d.day) ?? time
    }

    public static func dateString(_ time: Int64) -> String {
        let f = fields(time)
        return "\(f.year)-\(pad(f.month))-\(pad(f.day))"
    }

    public static func clockString(_ time: Int64) -> String {
        let f = fields(time)
        return "\(pad(f.hour)):\(pad(f.minute))"
    }

    public static func dateTimeString(_ time: Int64) -> String {
        dateString(time) + " " + clockString(time)
    }

    public static func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

/// Dates and times as people type them, in local time:
/// `2026-11-25 09:00`, `2026-11-25T09:00:30`, `2026-11-25`, `today`, `today 9:00`, `yesterday`,
/// `yesterday 14:30`, `tomorrow`, `09:00` (today), `now`, `@1764057600` (Unix seconds).
public enum DateInput {
    public struct Value: Equatable {
        public var time: Int64
        /// False for a bare day ("2026-11-25", "yesterday"): it means the day's start.
        public var hasTime: Bool
        public init(time: Int64, hasTime: Bool) { self.time = time; self.hasTime = hasTime }
    }

    public static let accepted = "'2026-11-25 09:00', '2026-11-25', 'today 9:00', 'yesterday', 'yesterday 14:30', '09:00' (today), 'now'"

    public static func parse(_ input: String, now: Int64) -> Value? {
        let text = input.trimmed.lowercased()
        if text == "now" { return Value(time: now, hasTime: true) }
        if text.hasPrefix("@"), let seconds = Int64(text.dropFirst()) { return Value(time: seconds, hasTime: true) }

        var words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        if words.count == 1, let t = words[0].firstIndex(of: "t"), words[0].first?.isNumber == true {
            // 2026-11-25T09:00
            words = [String(words[0][..<t]), String(words[0][words[0].index(after: t)...])]
        }
        guard (1...2).contains(words.count) else { return nil }

        var day: (year: Int, month: Int, day: Int)?
        switch words[0] {
        case "today": day = LocalTime.day(of: now)
        case "yesterday": day = LocalTime.day(of: now, offset: -1)
        case "tomorrow": day = LocalTime.day(of: now, offset: 1)
        default: day = parseDay(words[0])
        }
        if let day {
            if words.count == 1 {
                guard let time = LocalTime.make(year: day.year, month: day.month, day: day.day) else { return nil }
                return Value(time: time, hasTime: false)
            }
            guard let clock = parseClock(words[1]),
                  let time = LocalTime.make(year: day.year, month: day.month, day: day.day,
                                            hour: clock.0, minute: clock.1, second: clock.2) else { return nil }
            return Value(time: time, hasTime: true)
        }
        // A bare time of day: today.
        guard words.count == 1, let clock = parseClock(words[0]) else { return nil }
        let today = LocalTime.day(of: now)
        guard let time = LocalTime.make(year: today.year, month: today.month, day: today.day,
                                        hour: clock.0, minute: clock.1, second: clock.2) else { return nil }
        return Value(time: time, hasTime: true)
    }

    /// YYYY-MM-DD.
    public static func parseDay(_ text: String) -> (year: Int, month: Int, day: Int)? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, (1...2).contains(parts[1].count), (1...2).contains(parts[2].count),
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]) else { return nil }
        return (y, m, d)
    }

    /// H:MM or H:MM:SS (24-hour).
    public static func parseClock(_ text: String) -> (Int, Int, Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), (1...2).contains(parts[0].count),
              parts.dropFirst().allSatisfy({ $0.count == 2 }),
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }) else { return nil }
        let numbers = parts.compactMap { Int($0) }
        guard numbers.count == parts.count, numbers[0] < 24, numbers[1] < 60 else { return nil }
        let seconds = numbers.count == 3 ? numbers[2] : 0
        guard seconds < 60 else { return nil }
        return (numbers[0], numbers[1], seconds)
    }
}

extension LocalTime {
    /// Local midnight starting the Monday of the week that holds `time`.
    public static func startOfWeek(_ time: Int64) -> Int64 {
        startOfDay(time, offset: 1 - fields(time).weekday)
    }

    /// "-1" → 1 week ago, "-2" → 2, "0" and "-0" → this week; nil for anything else.
    public static func weeksAgo(_ text: String) -> Int? {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        guard !digits.isEmpty, digits.count <= 4, digits.allSatisfy(\.isASCIIDigitCharacter),
              text.hasPrefix("-") || digits.allSatisfy({ $0 == "0" }) else { return nil }
        return Int(digits)
    }
}
