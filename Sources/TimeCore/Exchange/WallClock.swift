import Glibc

/// Local wall-clock times (without a zone) read with the zone rules of their own date, and
/// local times written with their offset. Uses the C library, which honours `TZ`.
public enum WallClock {
    /// The Unix time of a local wall-clock time. An ambiguous time (a DST fall-back hour) is its
    /// first occurrence; a skipped one (spring-forward) moves forward by the gap.
    public static func time(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Int64 {
        let asUTC = Int64(CivilDate(year: year, month: month, day: day).dayNumber) * 86400
            + Int64(hour * 3600 + minute * 60 + second)
        var offsets: [Int64] = []
        for probe in [asUTC - 86400, asUTC, asUTC + 86400] {
            let offset = Int64(LocalTime.parts(probe).tm_gmtoff)
            if !offsets.contains(offset) { offsets.append(offset) }
        }
        let matches = offsets.map { asUTC - $0 }.filter { candidate in
            let local = LocalTime.parts(candidate)
            return Int(local.tm_year) + 1900 == year && Int(local.tm_mon) + 1 == month && Int(local.tm_mday) == day
                && Int(local.tm_hour) == hour && Int(local.tm_min) == minute && Int(local.tm_sec) == second
        }
        if let first = matches.min() { return first }
        // Skipped: read with the offset in force before the gap, which lands after it.
        return asUTC - Int64(LocalTime.parts(asUTC - 86400).tm_gmtoff)
    }

    /// `2026-11-28T14:00:00+01:00`: ISO 8601 local time with its offset.
    public static func iso(_ time: Int64) -> String {
        let local = LocalTime.parts(time)
        let offset = Int(local.tm_gmtoff)
        let sign = offset < 0 ? "-" : "+"
        return "\(date(local))T\(clock(local))\(sign)\(pad(abs(offset) / 3600, 2)):\(pad(abs(offset) % 3600 / 60, 2))"
    }

    /// `2026-11-28` and `14:00:00` in local time.
    public static func localDate(_ time: Int64) -> String { date(LocalTime.parts(time)) }
    public static func localClock(_ time: Int64) -> String { clock(LocalTime.parts(time)) }

    /// `20261128T130000Z`.
    public static func utcBasic(_ time: Int64) -> String {
        let days = Int((time >= 0 ? time : time - 86399) / 86400)
        let date = CivilDate(dayNumber: days)
        let seconds = Int(time - Int64(days) * 86400)
        return "\(pad(date.year, 4))\(pad(date.month, 2))\(pad(date.day, 2))T\(pad(seconds / 3600, 2))\(pad(seconds % 3600 / 60, 2))\(pad(seconds % 60, 2))Z"
    }

    /// `H:MM:SS`.
    public static func duration(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        return "\(s / 3600):\(pad(Int(s % 3600 / 60), 2)):\(pad(Int(s % 60), 2))"
    }

    private static func date(_ local: tm) -> String {
        "\(pad(Int(local.tm_year) + 1900, 4))-\(pad(Int(local.tm_mon) + 1, 2))-\(pad(Int(local.tm_mday), 2))"
    }
    private static func clock(_ local: tm) -> String {
        "\(pad(Int(local.tm_hour), 2)):\(pad(Int(local.tm_min), 2)):\(pad(Int(local.tm_sec), 2))"
    }

    // MARK: Reading timestamps

    /// Digits at fixed places of a timestamp; nil when any is not a digit.
    static func number(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return bytes.reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// `YYYY-MM-DD HH:MM:SS` or `YYYY-MM-DDTHH:MM:SS`, optionally followed by `Z` or `±HH:MM`
    /// (then exact), else local wall-clock time. nil when malformed.
    public static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        guard b.count >= 19, b[4] == 0x2d, b[7] == 0x2d, b[10] == 0x20 || b[10] == 0x54, b[13] == 0x3a, b[16] == 0x3a,
              let year = number(b[0..<4]), let month = number(b[5..<7]), let day = number(b[8..<10]),
              let hour = number(b[11..<13]), let minute = number(b[14..<16]), let second = number(b[17..<19]),
              CivilDate(year: year, month: month, day: day).isValid, hour < 24, minute < 60, second < 60
        else { return nil }
        var rest = b[19...]
        if rest.first == 0x2e { // fractional seconds: ignored
            rest = rest.dropFirst()
            while let c = rest.first, c >= 0x30 && c <= 0x39 { rest = rest.dropFirst() }
        }
        let asUTC = Int64(CivilDate(year: year, month: month, day: day).dayNumber) * 86400 + Int64(hour * 3600 + minute * 60 + second)
        if rest.isEmpty { return time(year: year, month: month, day: day, hour: hour, minute: minute, second: second) }
        if rest.count == 1 && rest.first == 0x5a { return asUTC }
        let r = Array(rest)
        guard r.count == 6, r[0] == 0x2b || r[0] == 0x2d, r[3] == 0x3a, let oh = number(r[1..<3]), let om = number(r[4..<6]) else { return nil }
        let offset = Int64(oh * 3600 + om * 60) * (r[0] == 0x2d ? -1 : 1)
        return asUTC - offset
    }
}
