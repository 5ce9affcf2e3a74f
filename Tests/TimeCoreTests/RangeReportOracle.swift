import Glibc
@testable import TimeCore

/// The oracle of the report tests, computed without any of the engine's helpers: each second of
/// each active interval is put in its local day by the C library's localtime_r, and days, weeks
/// and months are plain calendar arithmetic written here.
struct OracleDay: Hashable, Comparable, CustomStringConvertible {
    let year: Int, month: Int, day: Int

    static func < (a: OracleDay, b: OracleDay) -> Bool { (a.year, a.month, a.day) < (b.year, b.month, b.day) }

    /// The local day of one second, as the C library sees it under the current TZ.
    static func of(_ time: Int64) -> OracleDay {
        var seconds = time_t(time)
        var parts = tm()
        localtime_r(&seconds, &parts)
        return OracleDay(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
    }

    static func daysIn(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Every day of a month, in order.
    static func month(_ year: Int, _ month: Int) -> [OracleDay] {
        (1...daysIn(year: year, month: month)).map { OracleDay(year: year, month: month, day: $0) }
    }

    /// 0 = Monday … 6 = Sunday (Sakamoto's method).
    var weekday: Int {
        let offsets = [0, 3, 2, 5, 0, 3, 5, 1, 4, 6, 2, 4]
        let y = month < 3 ? year - 1 : year
        let sunday0 = (y + y / 4 - y / 100 + y / 400 + offsets[month - 1] + day) % 7
        return (sunday0 + 6) % 7
    }

    var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }
}

enum Oracle {
    /// Active seconds per local day, second by second.
    static func perDay(_ intervals: [(Int64, Int64)]) -> [OracleDay: Int64] {
        var result: [OracleDay: Int64] = [:]
        for (from, to) in intervals where to > from {
            var second = from
            while second < to {
                result[OracleDay.of(second), default: 0] += 1
                second += 1
            }
        }
        return result
    }

    /// A session's seconds in each of `columns` (each a list of days).
    static func columns(_ days: [OracleDay: Int64], _ columns: [[OracleDay]]) -> [Int64] {
        columns.map { column in column.reduce(0) { $0 + (days[$1] ?? 0) } }
    }

    /// The days of `days` cut into ISO weeks (a new column on each Monday).
    static func weeks(_ days: [OracleDay]) -> [[OracleDay]] {
        var result: [[OracleDay]] = []
        for day in days {
            if result.isEmpty || day.weekday == 0 { result.append([]) }
            result[result.count - 1].append(day)
        }
        return result
    }

    /// `value` rounded to `step`: up, to the nearest (a half step up) or down, written out plainly.
    static func round(_ value: Int64, step: Int64, mode: String) -> Int64 {
        let whole = value / step, rest = value % step
        switch mode {
        case "up": return rest == 0 ? value : (whole + 1) * step
        case "down": return whole * step
        default: return rest * 2 >= step ? (whole + 1) * step : whole * step
        }
    }

    /// seconds × cents per hour, in cents, half up.
    static func cents(seconds: Int64, centsPerHour: Int64) -> Int64 { cents(centSeconds: seconds * centsPerHour) }

    /// Seconds × cents per hour, summed, in cents: half a cent and more goes up.
    static func cents(centSeconds: Int64) -> Int64 { (centSeconds * 2 + 3600) / 7200 }

    /// Unix seconds of a local wall-clock time under the current TZ (mktime; the first of two, for the tests' unambiguous times).
    static func local(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Int64 {
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        parts.tm_isdst = -1
        return Int64(mktime(&parts))
    }
}
