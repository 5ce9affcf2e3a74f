import Glibc
import XCTest
@testable import TimeCore

/// What a report does with its options, against values worked out here: every rounding mode at
/// and around its boundaries, tags that overlap and sessions without any, amounts from rates such
/// as 0.01, 85.50 and 199.99 over odd durations, targets over months of 28, 30 and 31 days, and
/// bad ranges and options refused by name.
final class ReportOptionsTests: TrackerTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    override func tearDownWithError() throws {
        unsetenv("TZ")
        tzset()
        try super.tearDownWithError()
    }

    private func report(_ range: String, group: String? = nil, columns: String? = nil, round: String? = nil, mode: String? = nil,
                        tag: String? = nil, project: Int64? = nil, format: String? = nil, decimal: Bool? = nil) throws -> RangeReport {
        try tracker.rangeReport(range: range, options: options(group: group, columns: columns, round: round, mode: mode, tag: tag,
                                                               project: project, format: format, decimal: decimal))
    }

    private func options(group: String? = nil, columns: String? = nil, round: String? = nil, mode: String? = nil, tag: String? = nil,
                         project: Int64? = nil, format: String? = nil, decimal: Bool? = nil) throws -> ReportOptions {
        try ReportOptions(format: format, group: group, columns: columns, project: project, tag: tag, round: round, roundMode: mode, decimal: decimal)
    }

    /// A completed session of `seconds` starting at `start` (a 0-second one is started and stopped at once).
    @discardableResult
    private func add(_ project: ProjectID, _ start: Int64, _ seconds: Int64, note: String = "") throws -> SessionID {
        if seconds == 0 {
            clock.time = start
            let id = try tracker.startProject("#\(project)")
            try tracker.stop()
            if !note.isEmpty { try tracker.setNote(session: id, note: note) }
            return id
        }
        clock.time = utc(2027, 6, 1)
        return try tracker.addSession(project: project, start: start, duration: "\(seconds)s", note: note)
    }

    // MARK: Rounding

    /// One session a day, each of a length at or around a multiple of the step; every mode.
    func testEveryRoundingModeAtAndAroundItsBoundaries() throws {
        let project = try tracker.createProject(name: "A", color: "", category: "")
        for (step, name) in [(Int64(900), "15m"), (360, "6m"), (3600, "1h"), (1800, "30m")] {
            let lengths: [Int64] = [0, 1, step / 2 - 1, step / 2, step / 2 + 1, step - 1, step, step + 1,
                                    step + step / 2 - 1, step + step / 2, step + step / 2 + 1, 3 * step - 1]
            let month = name == "15m" ? 1 : name == "6m" ? 2 : name == "1h" ? 3 : 4
            for (day, length) in lengths.enumerated() {
                try add(project, utc(2026, month, day + 1, 9), length)
            }
            let range = "2026-\(month < 10 ? "0" : "")\(month)"
            for mode in ["up", "nearest", "down"] {
                let made = try report(range, round: name, mode: mode)
                let expected = lengths.map { Oracle.round($0, step: step, mode: mode) }
                XCTAssertEqual(Array(made.groups[0].columns.prefix(lengths.count)), expected, "\(name) \(mode)")
                XCTAssertEqual(made.groups[0].total, expected.reduce(0, +), "\(name) \(mode)")
                XCTAssertEqual(made.groups[0].totalExact, lengths.reduce(0, +), "\(name) \(mode): the exact total beside")
                XCTAssertEqual(made.total, expected.reduce(0, +))
                XCTAssertEqual(made.options.rounding?.name, name)
            }
            // No mode given: to the nearest.
            XCTAssertEqual(try report(range, round: name).groups[0].columns.prefix(lengths.count).map { $0 },
                           lengths.map { Oracle.round($0, step: step, mode: "nearest") })
        }
        // The boundaries in numbers, for 15 minutes: 449 s is 0 to the nearest, 450 s is 15 min.
        XCTAssertEqual(Oracle.round(449, step: 900, mode: "nearest"), 0)
        XCTAssertEqual(Oracle.round(450, step: 900, mode: "nearest"), 900)
        XCTAssertEqual(Oracle.round(1, step: 900, mode: "up"), 900)
        XCTAssertEqual(Oracle.round(899, step: 900, mode: "down"), 0)
    }

    /// Each session is rounded on its own within each column, then summed: two 1-second sessions
    /// on one day are two quarters, and a session over midnight is rounded on each side.
    func testRoundingIsPerSessionAndColumn() throws {
        let project = try tracker.createProject(name: "A", color: "", category: "")
        try add(project, utc(2026, 5, 4, 9), 1)
        try add(project, utc(2026, 5, 4, 10), 1)
        try add(project, utc(2026, 5, 5, 23, 55), 600)
        let byDay = try report("2026-W19", round: "15m", mode: "up")
        XCTAssertEqual(byDay.groups[0].columns, [1800, 900, 900, 0, 0, 0, 0])
        XCTAssertEqual(byDay.groups[0].totalExact, 602)
        // As one week column: each session rounded once within it.
        let byWeek = try report("2026-W19", columns: "week", round: "15m", mode: "up")
        XCTAssertEqual(byWeek.groups[0].columns, [2700])
        let json = try tracker.report(range: "2026-W19", options: options(round: "15m", mode: "up", format: "json"))
        let parsed = try JSON.parse(json)
        XCTAssertEqual(parsed["round"]?.stringValue, "15m")
        XCTAssertEqual(parsed["round_mode"]?.stringValue, "up")
        XCTAssertEqual(parsed["total"]?.intValue, 3600)
        XCTAssertEqual(parsed["total_exact"]?.intValue, 602)
        XCTAssertEqual(parsed["groups"]?.arrayValue?.first?["total_exact"]?.intValue, 602)
        let plain = try JSON.parse(try tracker.report(range: "2026-W19", options: options(format: "json")))
        XCTAssertEqual(plain["round"]?.stringValue, "")
        XCTAssertEqual(plain["round_mode"]?.stringValue, "")
        XCTAssertEqual(plain["total"]?.intValue, 602)
    }

    // MARK: Tags

    func testTagsOverlapAndUntaggedSessionsHaveTheirOwnRow() throws {
        let project = try tracker.createProject(name: "A", color: "", category: "")
        let notes: [(String, Int64)] = [("drafted #intro #Client-A", 3600), ("#intro, then lunch", 1800), ("call #client-a.", 900),
                                        ("no tags at all", 600), ("#intro #intro twice", 300), ("mail#notatag", 120), ("", 60)]
        for (index, (note, seconds)) in notes.enumerated() { try add(project, utc(2026, 7, 6 + index, 9), seconds, note: note) }
        let made = try report("2026-07", group: "tag")
        XCTAssertEqual(made.groups.map(\.key), ["intro", "client-a", ""])
        XCTAssertEqual(made.groups.map(\.name), ["intro", "Client-A", ""])
        XCTAssertEqual(made.groups.map(\.total), [Int64(5700), 4500, 780])
        XCTAssertEqual(made.groups.map(\.sessions), [3, 2, 3])
        XCTAssertEqual(made.total, notes.map(\.1).reduce(0, +), "the total counts each session once")
        XCTAssertTrue(made.text.contains("Tag rows overlap"), made.text)
        XCTAssertTrue(made.text.contains("(untagged)"), made.text)
        // A tag filter keeps the matching sessions, whatever the case or a leading #.
        for tag in ["client-a", "#CLIENT-A", " Client-A "] {
            let filtered = try report("2026-07", tag: tag)
            XCTAssertEqual(filtered.total, 4500, tag)
            XCTAssertEqual(filtered.groups.map(\.key), ["\(project)"], tag)
        }
        XCTAssertEqual(try report("2026-07", tag: "notatag").total, 0)
        assertTrackerError("InvalidArgument", try self.report("2026-07", tag: "two words"))
    }

    func testCategoryGroupingAndTheProjectFilter() throws {
        try tracker.addCategory("Work")
        let a = try tracker.createProject(name: "A", color: "", category: "Work")
        let b = try tracker.createProject(name: "B", color: "", category: "Work")
        let c = try tracker.createProject(name: "C", color: "", category: "")
        try add(a, utc(2026, 8, 3, 9), 3600)
        try add(b, utc(2026, 8, 4, 9), 1800)
        try add(c, utc(2026, 8, 5, 9), 600)
        let made = try report("2026-08", group: "category")
        XCTAssertEqual(made.groups.map(\.key), ["Work", ""])
        XCTAssertEqual(made.groups.map(\.total), [5400, 600])
        XCTAssertTrue(made.text.contains("(uncategorized)"))
        XCTAssertEqual(try report("2026-08", project: b).groups.map(\.key), ["\(b)"])
        XCTAssertEqual(try report("2026-08", project: b).total, 1800)
        XCTAssertEqual(try report("2026-08", project: 0).total, 6000, "0 is every project")
        assertTrackerError("InvalidArgument", try self.report("2026-08", project: 99))
    }

    // MARK: Amounts

    /// seconds × rate in cents, half up, per group; a category holding two rates is rounded once.
    func testAmountsFromRatesOverOddDurations() throws {
        try tracker.addCategory("Clients")
        let penny = try tracker.createProject(name: "Penny", color: "", category: "Clients")
        let writing = try tracker.createProject(name: "Writing", color: "", category: "Clients")
        let counsel = try tracker.createProject(name: "Counsel", color: "", category: "")
        let free = try tracker.createProject(name: "Free", color: "", category: "")
        try tracker.updateProject(id: penny, changes: ProjectChanges(rate: "0.01"))
        try tracker.updateProject(id: writing, changes: ProjectChanges(rate: "85.50"))
        try tracker.updateProject(id: counsel, changes: ProjectChanges(rate: "199.99"))
        try tracker.setCurrency("EUR")
        let sessions: [(ProjectID, Int64)] = [(penny, 1799), (penny, 1), (writing, 433), (writing, 3661), (writing, 10799),
                                              (counsel, 12345), (counsel, 7), (free, 5000)]
        for (index, (project, seconds)) in sessions.enumerated() { try add(project, utc(2026, 9, 1 + index, 10), seconds) }
        func seconds(_ project: ProjectID) -> Int64 { sessions.filter { $0.0 == project }.reduce(0) { $0 + $1.1 } }
        let made = try report("2026-09")
        func group(_ id: ProjectID) -> RangeReport.Group? { made.groups.first { $0.key == "\(id)" } }
        XCTAssertEqual(group(penny)?.amountCents, Oracle.cents(seconds: 1800, centsPerHour: 1), "half a cent rounds up")
        XCTAssertEqual(group(penny)?.amountCents, 1)
        XCTAssertEqual(group(writing)?.amountCents, Oracle.cents(seconds: seconds(writing), centsPerHour: 8550))
        XCTAssertEqual(group(counsel)?.amountCents, Oracle.cents(seconds: seconds(counsel), centsPerHour: 19999))
        XCTAssertNil(group(free)?.amountCents)
        XCTAssertEqual(group(writing)?.rate, "85.50")
        XCTAssertEqual(group(free)?.rate, "")
        let pennyCents = Oracle.cents(seconds: seconds(penny), centsPerHour: 1)
        let writingCents = Oracle.cents(seconds: seconds(writing), centsPerHour: 8550)
        let counselCents = Oracle.cents(seconds: seconds(counsel), centsPerHour: 19999)
        XCTAssertEqual(made.amountCents, pennyCents + writingCents + counselCents)
        // 14893 s of Writing at 85.50: 353.70875 → 353.71.
        XCTAssertEqual(group(writing).flatMap(\.amountCents).map(Money.amountText), "353.71")

        // Rounded up to 6 minutes per session and day, the amount is of the rounded time.
        let rounded = try report("2026-09", round: "6m", mode: "up")
        let writingRounded = sessions.filter { $0.0 == writing }.reduce(Int64(0)) { $0 + Oracle.round($1.1, step: 360, mode: "up") }
        XCTAssertEqual(rounded.groups.first { $0.key == "\(writing)" }?.amountCents, Oracle.cents(seconds: writingRounded, centsPerHour: 8550))

        // By category: Clients holds 0.01 and 85.50 (rounded once over both); no single rate.
        let byCategory = try report("2026-09", group: "category")
        let clients = try XCTUnwrap(byCategory.groups.first { $0.key == "Clients" })
        XCTAssertEqual(clients.amountCents, Oracle.cents(centSeconds: seconds(penny) * 1 + seconds(writing) * 8550))
        XCTAssertEqual(clients.rate, "")
        XCTAssertEqual(byCategory.amountCents, byCategory.groups.compactMap(\.amountCents).reduce(0, +), "the rows add up to the total")

        let json = try JSON.parse(try tracker.report(range: "2026-09", options: options(format: "json")))
        XCTAssertEqual(json["currency"]?.stringValue, "EUR")
        XCTAssertEqual(json["amount"]?.stringValue, Money.amountText(made.amountCents!))
        let writingJSON = json["groups"]?.arrayValue?.first { $0["name"]?.stringValue == "Writing" }
        XCTAssertEqual(writingJSON?["rate"]?.stringValue, "85.50")
        XCTAssertEqual(writingJSON?["amount"]?.stringValue, "353.71")
        XCTAssertEqual(json["groups"]?.arrayValue?.first { $0["name"]?.stringValue == "Free" }?["amount"]?.stringValue, "")
    }

    // MARK: Targets

    func testTargetsOverMonthsOf28_30And31Days() throws {
        let writing = try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Idle", color: "", category: "")
        try tracker.setWeeklyTarget(40 * 3600)
        try tracker.updateProject(id: writing, changes: ProjectChanges(weeklyTarget: 20 * 3600))
        // 40 h × days ÷ 7, to the nearest second, worked out by hand.
        let months: [(String, Int64, Int64)] = [("2026-02", 576_000, 288_000), ("2026-04", 617_143, 308_571), ("2026-01", 637_714, 318_857),
                                                ("2026-W10", 144_000, 72_000), ("2026-03-02", 20_571, 10_286), ("2026", 7_508_571, 3_754_286),
                                                ("2024-02", 596_571, 298_286)]
        for (range, overall, project) in months {
            let made = try report(range)
            XCTAssertEqual(made.target, overall, range)
            XCTAssertEqual(made.groups.first { $0.key == "\(writing)" }?.target, project, "\(range): a project with a target is listed without time")
            XCTAssertFalse(made.groups.contains { $0.name == "Idle" }, "no time and no target: no row")
        }
        let json = try JSON.parse(try tracker.report(range: "2026-04", options: options(format: "json")))
        XCTAssertEqual(json["target"]?.intValue, 617_143)
        let april = try report("2026-04").text
        XCTAssertTrue(april.contains("Target 171:25 over these 30 days; 0:00 tracked (0%)."), april)
        // With a tag filter a target says nothing about the tagged time: no target rows.
        XCTAssertTrue(try report("2026-04", tag: "x").groups.isEmpty)
    }

    // MARK: Refused

    func testBadRangesAreRefusedNamingTheForms() throws {
        for range in ["2026-13", "2026-00", "2026-W54", "2025-W53", "2026-02-30", "next-month", "2026-11-30..2026-11-01", "2026/11",
                      "1969", "10000", "2026-11-01..", "..2026-11-01", "2026-11-01...2026-11-02", "2026-11..2026-12", "W48", "26-11",
                      "this week", "2026-11-01..2026-11-31", "1970-01-01..9999-12-31"] {
            let message = assertTrackerError("InvalidArgument", try tracker.report(range: range, options: ReportOptions()))
            if range != "1970-01-01..9999-12-31" {
                XCTAssertTrue(message.contains("2026-W48") && message.contains("A..B") && message.contains("this-month"), "\(range): \(message)")
            }
        }
        let tooMany = assertTrackerError("InvalidArgument", try self.report("1970-01-01..2026-12-31", columns: "day"))
        XCTAssertTrue(tooMany.contains("columns week or month"), tooMany)
    }

    func testBadOptionsAreRefusedNamingWhatIsAccepted() throws {
        let cases: [(() throws -> ReportOptions, String)] = [
            ({ try self.options(format: "pdf") }, "\"timesheet\""), ({ try self.options(group: "client") }, "\"tag\""),
            ({ try self.options(columns: "year") }, "\"month\""), ({ try self.options(round: "0") }, "6m"),
            ({ try self.options(round: "-15m") }, "6m"), ({ try self.options(round: "25h") }, "24h"),
            ({ try self.options(round: "15M") }, "6m"), ({ try self.options(round: "15m", mode: "ceil") }, "\"nearest\""),
            ({ try self.options(mode: "sideways") }, "\"down\""), ({ try self.options(project: -1) }, "0 for all"),
        ]
        for (make, expected) in cases {
            let message = assertTrackerError("InvalidArgument", try { () throws -> ReportOptions in try make() }())
            XCTAssertTrue(message.contains(expected), "\(message) should name \(expected)")
        }
        XCTAssertEqual(try options(round: " ").rounding, nil, "an empty round is none")
        XCTAssertEqual(try options(round: "1:30", mode: "UP").rounding, Rounding(seconds: 5400, mode: .up))
        XCTAssertEqual(try options(round: "90m").rounding?.name, "1h30m")
        XCTAssertEqual(try options(format: " CSV ").format, .csv)
    }
}
