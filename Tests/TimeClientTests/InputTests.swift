import Glibc
import TimeClient
import XCTest

/// What people type, read the way the agent reads it; the expected values are worked out here by
/// hand (seconds) and through the C library's own `mktime` (local times), not through the parsers.
final class InputTests: XCTestCase {
    override func setUp() {
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
    }

    func testDurationsAsPeopleTypeThem() {
        let cases: [(String, Int64?)] = [
            ("1:30", 5400), ("1:30:15", 5415), ("90m", 5400), ("2h", 7200), ("45s", 45), ("1h30m", 5400),
            ("1h 30m", 5400), ("1h30m15s", 5415), ("1.5h", 5400), ("45", 2700), (" 20h ", 72000),
            ("", nil), ("1:3", nil), ("1:60", nil), ("1x", nil), ("m1h", nil), ("1mo", nil), ("1.333h", nil), ("h", nil),
        ]
        for (typed, seconds) in cases {
            XCTAssertEqual(DurationInput.seconds(typed), seconds, "'\(typed)'")
        }
    }

    private func local(_ y: Int32, _ mo: Int32, _ d: Int32, _ h: Int32, _ mi: Int32) -> Int64 {
        var parts = tm()
        parts.tm_year = y - 1900; parts.tm_mon = mo - 1; parts.tm_mday = d
        parts.tm_hour = h; parts.tm_min = mi; parts.tm_isdst = -1
        return Int64(mktime(&parts))
    }

    func testDatesAsPeopleTypeThem() {
        let now = local(2026, 12, 2, 10, 0)
        XCTAssertEqual(DateInput.parse("yesterday 17:00", now: now)?.time, local(2026, 12, 1, 17, 0))
        XCTAssertEqual(DateInput.parse("9:15", now: now)?.time, local(2026, 12, 2, 9, 15))
        XCTAssertEqual(DateInput.parse("2026-11-25 09:00", now: now)?.time, local(2026, 11, 25, 9, 0))
        XCTAssertEqual(DateInput.parse("2026-11-25", now: now), DateInput.Value(time: local(2026, 11, 25, 0, 0), hasTime: false))
        XCTAssertNil(DateInput.parse("25:00", now: now))
        XCTAssertNil(DateInput.parse("2026-02-30", now: now))
        XCTAssertNil(DateInput.parse("next week", now: now))
    }

    func testLocalDaysFollowTheCalendarAcrossDaylightSavingTime() {
        // 2026-10-25 has 25 hours in Berlin: the next midnight is 25 h later, not 24.
        let day = local(2026, 10, 25, 0, 0)
        XCTAssertEqual(LocalTime.startOfDay(day, offset: 1) - day, 25 * 3600)
        XCTAssertEqual(LocalTime.startOfWeek(local(2026, 11, 29, 23, 0)), local(2026, 11, 23, 0, 0))
    }

    func testRecordsDecodeWhatTheAgentSends() {
        let session = SessionRecord([
            "id": .uint64(7), "project_id": .uint64(3), "project": .string("Writing"), "start": .int64(100),
            "end": .int64(400), "active": .uint64(250), "state": .string("completed"), "note": .string("n"),
            "segments": .array(elementSignature: "(xx)", [.structure([.int64(100), .int64(200)]), .structure([.int64(250), .int64(400)])]),
        ])
        XCTAssertEqual(session.id, 7)
        XCTAssertEqual(session.active, 250)
        XCTAssertEqual(session.segments.map(\.end), [200, 400])
        XCTAssertFalse(session.isOpen)
        var properties = AgentProperties(["State": .string("running"), "RunningSince": .int64(1000), "ActiveSeconds": .uint64(60)])
        XCTAssertEqual(properties.elapsed(at: 1030), 90)
        properties.merge(["State": .string("paused"), "RunningSince": .int64(0), "ActiveSeconds": .uint64(90)])
        XCTAssertEqual(properties.elapsed(at: 5000), 90)
        let away = AwaySpan.list(.array(elementSignature: "(txxss)", [.structure([.uint64(4), .int64(10), .int64(0), .string("lock"), .string("Writing")])]))
        XCTAssertEqual(away, [AwaySpan(id: 4, start: 10, end: 0, reason: "lock", project: "Writing")])
    }
}
