import XCTest
@testable import TimeCore

/// A period's key ("YYYY-MM-DD", "YYYY-MM", "YYYY") gives the UTC seconds it spans. A day's key is
/// read from its bytes in place (`CivilDate(dayKey:)`); the oracle here is the arithmetic of a UTC
/// day, 86,400 seconds from a midnight, and the key each of its seconds is given.
final class PeriodBoundsTests: XCTestCase {
    func testADaysKeySpansTheSecondsThatAreGivenIt() {
        // Days from 1970 to 9999, leap days and the turns of months and years among them.
        var times: [Int64] = [0, 86_399, 951_782_400, 951_868_799, 1_709_164_800, 253_402_300_799]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2_000 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            times.append(Int64(seed >> 33) % 253_402_300_800)
        }
        for time in times {
            let key = CivilDate.utcDayKey(time)
            let (start, end) = Store.periodBounds(key)
            XCTAssertEqual(start, time - time % 86_400, key)
            XCTAssertEqual(end, start + 86_400, key)
            XCTAssertEqual(CivilDate.utcDayKey(start), key)
            XCTAssertEqual(CivilDate.utcDayKey(end - 1), key)
        }
    }

    func testMonthsAndYearsStillSpanTheirDays() {
        XCTAssertEqual(Store.periodBounds("2024-02").0, Store.periodBounds("2024-02-01").0)
        XCTAssertEqual(Store.periodBounds("2024-02").1, Store.periodBounds("2024-02-29").1)
        XCTAssertEqual(Store.periodBounds("2023-12").1, Store.periodBounds("2024-01-01").0)
        XCTAssertEqual(Store.periodBounds("1970").0, 0)
        XCTAssertEqual(Store.periodBounds("1970").1, 365 * 86_400)
    }

    func testOnlyADaysTenBytesAreReadAsADay() {
        XCTAssertEqual(CivilDate(dayKey: "2026-12-07"), CivilDate(year: 2026, month: 12, day: 7))
        for text in ["", "2026-12", "2026-12-7", "2026-12-077", "2026/12/07", "2026-1a-07", "-026-12-07", "２026-12-07"] {
            XCTAssertNil(CivilDate(dayKey: text), text)
        }
    }
}
