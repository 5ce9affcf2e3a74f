import Glibc
import TimeClient
import XCTest

/// Moments given late ('9:15', '10 minutes ago', '-10m'), as timectl's --at and the window's
/// dialog read them; expected values in plain seconds or from UTC wall-clock times (timegm).
final class MomentInputTests: XCTestCase {
    override func setUp() {
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
    }

    private func utc(_ y: Int32, _ mo: Int32, _ d: Int32, _ h: Int32, _ mi: Int32) -> Int64 {
        var parts = tm()
        parts.tm_year = y - 1900; parts.tm_mon = mo - 1; parts.tm_mday = d; parts.tm_hour = h; parts.tm_min = mi
        return Int64(timegm(&parts))
    }

    func testTimesBackFromNowAsPeopleTypeThem() {
        let now: Int64 = 1_780_000_000
        let cases: [(String, Int64?)] = [
            ("10 minutes ago", 600), ("10 min ago", 600), ("1 minute ago", 60), ("2 hours ago", 7200),
            ("1 hour 30 min ago", 5400), ("90s ago", 90), ("45 seconds ago", 45), ("1h30m ago", 5400),
            ("-10m", 600), ("-10", 600), ("-1h30m", 5400), ("-1:30", 5400), (" -5m ", 300), ("now", 0),
            ("-", nil), ("ago", nil), ("10 fortnights ago", nil), ("-10x", nil), ("+10m", nil), ("in 10 minutes", nil),
        ]
        for (typed, back) in cases {
            XCTAssertEqual(MomentInput.parse(typed, now: now), back.map { now - $0 }, "'\(typed)'")
        }
    }

    func testClockTimesAreLocalAndABareDayIsNoMoment() {
        let now = utc(2026, 12, 2, 9, 0)  // 10:00 in Berlin (CET, +1)
        XCTAssertEqual(MomentInput.parse("9:15", now: now), utc(2026, 12, 2, 8, 15))
        XCTAssertEqual(MomentInput.parse("yesterday 17:30", now: now), utc(2026, 12, 1, 16, 30))
        XCTAssertEqual(MomentInput.parse("2026-12-01 23:59:30", now: now), utc(2026, 12, 1, 22, 59) + 30)
        XCTAssertNil(MomentInput.parse("yesterday", now: now), "a bare day would mean its midnight")
        XCTAssertNil(MomentInput.parse("25:00", now: now))
    }

    /// The night the clocks go forward in Berlin (2026-03-29, 02:00 → 03:00): "02:30" does not
    /// exist; it reads as 03:30 CEST (01:30 UTC), the wall-clock time after the gap, never an
    /// instant before 02:00 CET (01:00 UTC) that would give a segment ending before it began.
    func testASkippedTimeReadsAsTheSameWallClockTimeAfterTheGap() {
        let now = utc(2026, 3, 29, 5, 0)  // 07:00 CEST
        XCTAssertEqual(MomentInput.parse("02:30", now: now), utc(2026, 3, 29, 1, 30))
        XCTAssertEqual(MomentInput.parse("03:30", now: now), utc(2026, 3, 29, 1, 30))
        XCTAssertEqual(MomentInput.parse("01:59", now: now), utc(2026, 3, 29, 0, 59))
    }
}
