import XCTest
@testable import TimeCore

/// Weekly reports cut at local midnights: 23-, 25-, 23.5- and 24.5-hour days, week edges,
/// the open session, legacy sessions spread proportionally, and the week argument forms.
final class WeeklyReportTests: TrackerTestCase {
    private var savedTZ: String?

    override func setUpWithError() throws {
        savedTZ = getenv("TZ").map { String(cString: $0) }
        try super.setUpWithError()
    }

    override func tearDownWithError() throws {
        if let savedTZ { setenv("TZ", savedTZ, 1) } else { unsetenv("TZ") }
        tzset()
        try super.tearDownWithError()
    }

    func setZone(_ zone: String) {
        setenv("TZ", zone, 1)
        tzset()
    }

    /// The JSON report, parsed with the project's own reader, checked for shape and sums.
    func report(_ week: String, file: StaticString = #filePath, line: UInt = #line) throws -> JSON {
        let text = try tracker.weeklyReport(week: week, format: "json")
        let json = try JSON.parse(text)
        guard case .object(let members) = json else { XCTFail("not an object", file: file, line: line); return json }
        XCTAssertEqual(members.map(\.0), ["week", "from", "to", "timezone", "total", "days", "projects", "categories",
                                          "estimated_sessions"], file: file, line: line)
        let days = ints(json["days"])
        XCTAssertEqual(days.count, 7, file: file, line: line)
        XCTAssertEqual(days.reduce(0, +), json["total"]?.intValue, "days sum to the total", file: file, line: line)
        var projectDays = [Int64](repeating: 0, count: 7)
        for project in json["projects"]?.arrayValue ?? [] {
            guard case .object(let keys) = project else { XCTFail(file: file, line: line); continue }
            XCTAssertEqual(keys.map(\.0), ["id", "name", "color", "category", "total", "days"], file: file, line: line)
            let d = ints(project["days"])
            XCTAssertEqual(d.count, 7, file: file, line: line)
            XCTAssertEqual(d.reduce(0, +), project["total"]?.intValue, file: file, line: line)
            for i in 0..<7 { projectDays[i] += d[i] }
        }
        XCTAssertEqual(projectDays, days, "projects sum to the days", file: file, line: line)
        var categoryDays = [Int64](repeating: 0, count: 7)
        let categories = json["categories"]?.arrayValue ?? []
        XCTAssertEqual(categories.last?["name"]?.stringValue, "", "uncategorized is listed last", file: file, line: line)
        for category in categories {
            guard case .object(let keys) = category else { XCTFail(file: file, line: line); continue }
            XCTAssertEqual(keys.map(\.0), ["name", "total", "days"], file: file, line: line)
            let d = ints(category["days"])
            XCTAssertEqual(d.reduce(0, +), category["total"]?.intValue, file: file, line: line)
            for i in 0..<7 { categoryDays[i] += d[i] }
        }
        XCTAssertEqual(categoryDays, days, "categories sum to the days", file: file, line: line)
        return json
    }

    func ints(_ json: JSON?) -> [Int64] { (json?.arrayValue ?? []).map { $0.intValue ?? -1 } }

    func projectDays(_ json: JSON, _ name: String) -> [Int64]? {
        (json["projects"]?.arrayValue ?? []).first { $0["name"]?.stringValue == name }.map { ints($0["days"]) }
    }

    /// The cells of the text row that begins with `name`, split on white space.
    func textRow(_ text: String, _ name: String) -> [String]? {
        text.split(separator: "\n").map { $0.split(separator: " ").map(String.init) }.first { $0.first == name }
    }

    /// One running session from `start` to `stop`, with an optional pause [pauseAt, resumeAt).
    @discardableResult
    func run(_ project: String, from start: Int64, to stop: Int64, pause: (Int64, Int64)? = nil) throws -> SessionID {
        clock.time = start
        let id = try tracker.startProject(project)
        if let (pauseAt, resumeAt) = pause {
            clock.time = pauseAt
            try tracker.pause()
            clock.time = resumeAt
            try tracker.resume()
        }
        clock.time = stop
        try tracker.stop()
        return id
    }

    // MARK: Days of 23 and 25 hours

    func testBerlinSpringForwardSundayHas23Hours() throws {
        setZone("Europe/Berlin")
        try tracker.addCategory("Work")
        try tracker.createProject(name: "A", color: "#3366cc", category: "Work")
        // Sat 2026-03-28 22:00 CET to Mon 2026-03-30 01:00 CEST, paused Sun 01:30 CET to 03:30 CEST (one real hour).
        try run("A", from: utc(2026, 3, 28, 21), to: utc(2026, 3, 29, 23), pause: (utc(2026, 3, 29, 0, 30), utc(2026, 3, 29, 1, 30)))
        clock.time = utc(2026, 4, 10)
        let json = try report("2026-W13")
        XCTAssertEqual(json["week"]?.stringValue, "2026-W13")
        XCTAssertEqual(json["from"]?.stringValue, "2026-03-23")
        XCTAssertEqual(json["to"]?.stringValue, "2026-03-29")
        XCTAssertEqual(json["timezone"]?.stringValue, "Europe/Berlin")
        // Saturday 2 h; Sunday 1.5 h before the pause and 20.5 h after it (the day has 23 hours).
        XCTAssertEqual(ints(json["days"]), [0, 0, 0, 0, 0, 7200, 79200])
        XCTAssertEqual(json["total"]?.intValue, 86400)
        XCTAssertEqual(json["estimated_sessions"]?.intValue, 0)
        XCTAssertEqual(json["projects"]?.arrayValue?.count, 1)
        let line = json["projects"]!.arrayValue![0]
        XCTAssertEqual(line["id"]?.intValue, 1)
        XCTAssertEqual(line["name"]?.stringValue, "A")
        XCTAssertEqual(line["color"]?.stringValue, "#3366cc")
        XCTAssertEqual(line["category"]?.stringValue, "Work")
        XCTAssertEqual(line["total"]?.intValue, 86400)
        XCTAssertEqual(json["categories"]?.arrayValue?.map { $0["name"]?.stringValue ?? "?" }, ["Work", ""])
        XCTAssertEqual(json["categories"]?.arrayValue?.map { $0["total"]?.intValue ?? -1 }, [86400, 0])
        // The same week named by any of its days, and the Monday after in the next week.
        XCTAssertEqual(try tracker.weeklyReport(week: "2026-03-23", format: "json"), try tracker.weeklyReport(week: "2026-W13", format: "json"))
        XCTAssertEqual(try tracker.weeklyReport(week: "2026-03-29", format: "json"), try tracker.weeklyReport(week: "2026-W13", format: "json"))
        XCTAssertEqual(ints(try report("2026-03-30")["days"]), [3600, 0, 0, 0, 0, 0, 0])

        let text = try tracker.weeklyReport(week: "2026-W13", format: "text")
        XCTAssertTrue(text.hasPrefix("Week 2026-W13: 2026-03-23 to 2026-03-29 (Europe/Berlin)\n"), text)
        XCTAssertEqual(textRow(text, "A"), ["A", "-", "-", "-", "-", "-", "2:00", "22:00", "24:00"], text)
        XCTAssertEqual(textRow(text, "Total"), ["Total", "-", "-", "-", "-", "-", "2:00", "22:00", "24:00"], text)
        XCTAssertEqual(textRow(text, "Work"), ["Work", "-", "-", "-", "-", "-", "2:00", "22:00", "24:00"], text)
    }

    func testBerlinFallBackSundayHas25Hours() throws {
        setZone("Europe/Berlin")
        try tracker.createProject(name: "A", color: "", category: "")
        // Sat 2026-10-24 23:00 CEST to Mon 2026-10-26 00:30 CET.
        try run("A", from: utc(2026, 10, 24, 21), to: utc(2026, 10, 25, 23, 30))
        clock.time = utc(2026, 11, 1)
        let json = try report("2026-W43")
        XCTAssertEqual(json["from"]?.stringValue, "2026-10-19")
        XCTAssertEqual(json["to"]?.stringValue, "2026-10-25")
        XCTAssertEqual(ints(json["days"]), [0, 0, 0, 0, 0, 3600, 90000])
        XCTAssertEqual(json["total"]?.intValue, 93600)
        XCTAssertEqual(ints(try report("2026-10-26")["days"]), [1800, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(json["categories"]?.arrayValue?.map { $0["name"]?.stringValue ?? "?" }, [""])
        XCTAssertEqual(json["categories"]?.arrayValue?.first?["total"]?.intValue, 93600)
        let text = try tracker.weeklyReport(week: "2026-W43", format: "text")
        XCTAssertEqual(textRow(text, "A"), ["A", "-", "-", "-", "-", "-", "1:00", "25:00", "26:00"], text)
    }

    func testNewYorkBothChanges() throws {
        setZone("America/New_York")
        try tracker.createProject(name: "A", color: "", category: "")
        // Sat 2026-03-07 23:00 EST to Mon 2026-03-09 00:15 EDT.
        try run("A", from: utc(2026, 3, 8, 4), to: utc(2026, 3, 9, 4, 15))
        // Sat 2026-10-31 23:30 EDT to Mon 2026-11-02 00:10 EST.
        try run("A", from: utc(2026, 11, 1, 3, 30), to: utc(2026, 11, 2, 5, 10))
        clock.time = utc(2026, 12, 1)
        let spring = try report("2026-03-08")
        XCTAssertEqual(spring["week"]?.stringValue, "2026-W10")
        XCTAssertEqual(spring["timezone"]?.stringValue, "America/New_York")
        XCTAssertEqual(ints(spring["days"]), [0, 0, 0, 0, 0, 3600, 82800])
        XCTAssertEqual(ints(try report("2026-W11")["days"]), [900, 0, 0, 0, 0, 0, 0])
        let fall = try report("2026-11-01")
        XCTAssertEqual(fall["from"]?.stringValue, "2026-10-26")
        XCTAssertEqual(ints(fall["days"]), [0, 0, 0, 0, 0, 1800, 90000])
        XCTAssertEqual(ints(try report("2026-11-02")["days"]), [600, 0, 0, 0, 0, 0, 0])
    }

    func testLordHoweHalfHourShifts() throws {
        setZone("Australia/Lord_Howe")
        try tracker.createProject(name: "A", color: "", category: "")
        // Sat 2026-04-04 23:00 +11 to Mon 2026-04-06 00:20 +10:30: Sunday has 24.5 hours.
        try run("A", from: utc(2026, 4, 4, 12), to: utc(2026, 4, 5, 13, 50))
        // Sat 2026-10-03 23:50 +10:30 to Mon 2026-10-05 00:05 +11: Sunday has 23.5 hours.
        try run("A", from: utc(2026, 10, 3, 13, 20), to: utc(2026, 10, 4, 13, 5))
        clock.time = utc(2026, 12, 1)
        let april = try report("2026-04-05")
        XCTAssertEqual(april["from"]?.stringValue, "2026-03-30")
        XCTAssertEqual(ints(april["days"]), [0, 0, 0, 0, 0, 3600, 88200])
        XCTAssertEqual(ints(try report("2026-04-06")["days"]), [1200, 0, 0, 0, 0, 0, 0])
        let october = try report("2026-10-04")
        XCTAssertEqual(october["from"]?.stringValue, "2026-09-28")
        XCTAssertEqual(ints(october["days"]), [0, 0, 0, 0, 0, 600, 84600])
        XCTAssertEqual(ints(try report("2026-10-05")["days"]), [300, 0, 0, 0, 0, 0, 0])
    }

    func testMidnightsOfOrdinaryDaysAndZones() throws {
        // Each day of a session that runs a whole week gets exactly its own hours, in two zones.
        try tracker.createProject(name: "A", color: "", category: "")
        try run("A", from: utc(2026, 6, 1) - 12 * 3600, to: utc(2026, 6, 9))
        clock.time = utc(2026, 6, 20)
        setZone("UTC")
        XCTAssertEqual(ints(try report("2026-W23")["days"]), [Int64](repeating: 86400, count: 7))
        setZone("Asia/Kolkata")
        XCTAssertEqual(ints(try report("2026-W23")["days"]), [Int64](repeating: 86400, count: 7))
        XCTAssertEqual(try report("2026-W23")["timezone"]?.stringValue, "Asia/Kolkata")
        // Monday 2026-06-08 00:00 +05:30 is 2026-06-07 18:30Z; the session ends at 2026-06-09 00:00Z.
        XCTAssertEqual(ints(try report("2026-W24")["days"]), [86400, 5 * 3600 + 1800, 0, 0, 0, 0, 0])
    }

    // MARK: Week edges, the open session, legacy time

    func testSessionsCrossingTheWeekEdgesCountOnlyTheirPartInside() throws {
        setZone("Europe/Berlin")
        try tracker.createProject(name: "A", color: "", category: "")
        try tracker.createProject(name: "B", color: "", category: "")
        // Sun 2026-05-31 23:30 to Mon 2026-06-01 00:45 CEST, and Sun 2026-06-07 23:00 to Mon 2026-06-08 01:00.
        try run("A", from: utc(2026, 5, 31, 21, 30), to: utc(2026, 5, 31, 22, 45))
        try run("B", from: utc(2026, 6, 7, 21), to: utc(2026, 6, 7, 23))
        clock.time = utc(2026, 6, 20)
        let json = try report("2026-W23")
        XCTAssertEqual(projectDays(json, "A"), [2700, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(projectDays(json, "B"), [0, 0, 0, 0, 0, 0, 3600])
        XCTAssertEqual(json["total"]?.intValue, 6300)
        // Sorted by total, largest first.
        XCTAssertEqual(json["projects"]?.arrayValue?.map { $0["name"]?.stringValue ?? "" }, ["B", "A"])
        XCTAssertEqual(projectDays(try report("2026-W22"), "A"), [0, 0, 0, 0, 0, 0, 1800])
        XCTAssertNil(projectDays(try report("2026-W22"), "B"))
        XCTAssertEqual(projectDays(try report("2026-W24"), "B"), [3600, 0, 0, 0, 0, 0, 0])
        XCTAssertNil(projectDays(try report("2026-W24"), "A"))
        XCTAssertEqual(try report("2026-W25")["projects"]?.arrayValue?.count, 0)
        let empty = try tracker.weeklyReport(week: "2026-W25", format: "text")
        XCTAssertEqual(empty, "Week 2026-W25: 2026-06-15 to 2026-06-21 (Europe/Berlin)\n\nNo time tracked this week.\n")
    }

    func testTheOpenSessionCountsUpToNow() throws {
        setZone("Europe/Berlin")
        try tracker.addCategory("Work")
        try tracker.createProject(name: "A", color: "", category: "Work")
        // Wed 2026-06-03 10:00 CEST, paused 12:00-13:00, still running at Thu 00:30.
        clock.time = utc(2026, 6, 3, 8)
        try tracker.startProject("A")
        clock.time = utc(2026, 6, 3, 10)
        try tracker.pause()
        clock.time = utc(2026, 6, 3, 11)
        try tracker.resume()
        clock.time = utc(2026, 6, 3, 22, 30)
        var json = try report("")
        XCTAssertEqual(json["week"]?.stringValue, "2026-W23")
        XCTAssertEqual(ints(json["days"]), [0, 0, 13 * 3600, 1800, 0, 0, 0])
        XCTAssertEqual(try tracker.todayAndWeekSeconds().today, 1800)
        XCTAssertEqual(try tracker.todayAndWeekSeconds().week, 13 * 3600 + 1800)
        XCTAssertEqual(json["categories"]?.arrayValue?.map { $0["name"]?.stringValue ?? "?" }, ["Work", ""])
        XCTAssertEqual(json["categories"]?.arrayValue?.map { $0["total"]?.intValue ?? -1 }, [13 * 3600 + 1800, 0])
        // Paused: the time stops counting.
        try tracker.pause()
        clock.advance(7200)
        json = try report("2026-06-04")
        XCTAssertEqual(ints(json["days"]), [0, 0, 13 * 3600, 1800, 0, 0, 0])
        // A session still open from last week counts into this one up to now.
        try tracker.resume()
        clock.time = utc(2026, 6, 8, 8)
        XCTAssertEqual(ints(try report("")["days"]), [36000, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(try report("")["week"]?.stringValue, "2026-W24")
        XCTAssertEqual(ints(try report("2026-W23")["days"]), [0, 0, 13 * 3600, 79200, 86400, 86400, 86400])
    }

    func testZeroSecondSessionShowsWithZero() throws {
        setZone("UTC")
        try tracker.createProject(name: "A", color: "", category: "")
        clock.time = utc(2026, 6, 2, 9)
        try tracker.startProject("A")
        try tracker.stop()
        let json = try report("")
        XCTAssertEqual(projectDays(json, "A"), [0, 0, 0, 0, 0, 0, 0])
        XCTAssertEqual(json["total"]?.intValue, 0)
    }

    func testLegacySessionsAreSpreadProportionally() throws {
        setZone("Europe/Berlin")
        tracker = nil
        try FileManager.default.removeItem(atPath: path)
        try LegacyStore.write(at: path, LegacyStore.v2 + LegacyStore.v3 + """
            INSERT INTO categories(id, name, name_key) VALUES (1, 'Work', 'work');
            INSERT INTO projects(id, name, name_key, color, category_id, archived) VALUES (1, 'Old', 'old', '#3366cc', 1, 0);
            -- Sat 2026-03-28 12:00 CET to Sun 2026-03-29 12:00 CEST: 23 hours, 12 of them on Saturday.
            INSERT INTO sessions(id, project_id, start, end, active_seconds, running_since, note)
                VALUES (1, 1, \(utc(2026, 3, 28, 11)), \(utc(2026, 3, 29, 10)), 2300, NULL, 'spread');
            -- Sun 2026-03-22 18:00 CET to Mon 2026-03-23 06:00 CET: half in the week before.
            INSERT INTO sessions(id, project_id, start, end, active_seconds, running_since, note)
                VALUES (2, 1, \(utc(2026, 3, 22, 17)), \(utc(2026, 3, 23, 5)), 1200, NULL, '');
            PRAGMA user_version = 3;
            """)
        try reopen()
        clock.time = utc(2026, 4, 10)
        XCTAssertEqual(try tracker.session(id: 1).unrecordedSeconds, 2300)
        XCTAssertEqual(try tracker.session(id: 1).segments, [])
        let json = try report("2026-W13")
        XCTAssertEqual(ints(json["days"]), [600, 0, 0, 0, 0, 1200, 1100])
        XCTAssertEqual(json["estimated_sessions"]?.intValue, 2)
        XCTAssertEqual(projectDays(json, "Old"), [600, 0, 0, 0, 0, 1200, 1100])
        let before = try report("2026-W12")
        XCTAssertEqual(ints(before["days"]), [0, 0, 0, 0, 0, 0, 600])
        XCTAssertEqual(before["estimated_sessions"]?.intValue, 1)
        let text = try tracker.weeklyReport(week: "2026-W12", format: "text")
        XCTAssertTrue(text.contains("1 session from an older store"), text)

        // Alone in a week, one legacy session: estimated_sessions is 1.
        try tracker.deleteSession(id: 2)
        XCTAssertEqual(try report("2026-W13")["estimated_sessions"]?.intValue, 1)
        XCTAssertEqual(ints(try report("2026-W13")["days"]), [0, 0, 0, 0, 0, 1200, 1100])
        // Editing its duration records an exact segment: no longer estimated.
        try tracker.editSession(id: 1, changes: SessionChanges(duration: "1h"))
        XCTAssertEqual(try report("2026-W13")["estimated_sessions"]?.intValue, 0)
        XCTAssertEqual(ints(try report("2026-W13")["days"]), [0, 0, 0, 0, 0, 3600, 0])
    }

    // MARK: The week argument

    func testWeekArgumentForms() throws {
        setZone("Europe/Berlin")
        clock.time = utc(2026, 11, 25, 12)
        for spec in ["", "2026-W48", "2026-w48", " 2026-W48 ", "2026-11-25", "2026-11-23", "2026-11-29"] {
            let json = try report(spec)
            XCTAssertEqual(json["week"]?.stringValue, "2026-W48", spec)
            XCTAssertEqual(json["from"]?.stringValue, "2026-11-23", spec)
            XCTAssertEqual(json["to"]?.stringValue, "2026-11-29", spec)
        }
        XCTAssertEqual(try report("2026-11-30")["week"]?.stringValue, "2026-W49")
        XCTAssertEqual(try report("2026-11-22")["week"]?.stringValue, "2026-W47")
        // 2026 has 53 ISO weeks; 2027-01-01 is in its last one, 2024-12-30 in 2025-W01.
        XCTAssertEqual(try report("2026-W53")["from"]?.stringValue, "2026-12-28")
        XCTAssertEqual(try report("2026-W53")["to"]?.stringValue, "2027-01-03")
        XCTAssertEqual(try report("2027-01-01")["week"]?.stringValue, "2026-W53")
        XCTAssertEqual(try report("2024-12-30")["week"]?.stringValue, "2025-W01")
        XCTAssertEqual(try report("2026-W1")["from"]?.stringValue, "2025-12-29")
        XCTAssertEqual(try report("2024-02-29")["from"]?.stringValue, "2024-02-26")

        for spec in ["2026-W54", "2025-W53", "2026-W00", "2026-13-01", "2026-00-10", "next week", "2026-02-30",
                     "2025-02-29", "2026-11-31", "2026-W4８", "26-W48", "2026/11/25", "W48", "tomorrow"] {
            assertTrackerError("InvalidArgument", try tracker.weeklyReport(week: spec, format: "json"))
        }
        assertTrackerError("InvalidArgument", try tracker.weeklyReport(week: "", format: "xml"))
        XCTAssertTrue(try tracker.weeklyReport(week: "", format: "text").hasPrefix("Week 2026-W48: "))
    }
}
