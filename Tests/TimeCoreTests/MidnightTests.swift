import Glibc
import XCTest
@testable import TimeCore

/// Local midnights compared with a brute-force search over localtime_r, for zones whose
/// changes fall at or near midnight, for every day of several years.
final class MidnightTests: XCTestCase {
    /// The first instant whose local date is `date` or later (binary search on localtime_r).
    func bruteStartOfDay(_ date: CivilDate) -> Int64 {
        func localDate(_ time: Int64) -> CivilDate {
            var seconds = time_t(time)
            var parts = tm()
            localtime_r(&seconds, &parts)
            return CivilDate(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
        }
        let guess = Int64(date.dayNumber) * 86400
        var low = guess - 2 * 86400, high = guess + 2 * 86400
        while low < high {
            let middle = low + (high - low) / 2
            if localDate(middle) < date { low = middle + 1 } else { high = middle }
        }
        return low
    }

    func testDayStartsMatchTheCalendarInManyZones() throws {
        let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "America/Havana",
                     "Africa/Cairo", "America/Asuncion", "America/Sao_Paulo", "Asia/Gaza", "Pacific/Apia", "Asia/Tehran",
                     "Europe/London", "UTC"]
        for zone in zones {
            try withTimeZone(zone) {
                var failures = 0
                var monday = CivilDate(year: 2015, month: 12, day: 28)
                while monday.year < 2028 && failures < 3 {
                    let week = Week(monday: monday)
                    for day in 0...7 {
                        let date = monday.adding(days: day)
                        let expected = bruteStartOfDay(date)
                        if week.dayStarts[day] != expected {
                            failures += 1
                            XCTFail("\(zone) \(date): day starts at \(week.dayStarts[day]), expected \(expected) (\(week.dayStarts[day] - expected) s off)")
                        }
                    }
                    monday = monday.adding(days: 7)
                }
            }
        }
    }
}
