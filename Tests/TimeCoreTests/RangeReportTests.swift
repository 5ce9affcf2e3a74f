import Glibc
import XCTest
@testable import TimeCore

/// Reports over any range against the oracle (RangeReportOracle.swift): months that hold DST
/// changes in Europe/Berlin and America/New_York, Lord Howe's half-hour shift, a session across a
/// month's edge, by day, week and month; the open session up to now.
final class RangeReportTests: TrackerTestCase {
    private var savedTZ: String?
    /// Each session the test made: its project and its exact active intervals.
    private var made: [(project: ProjectID, segments: [(Int64, Int64)], note: String)] = [] { didSet { oracleDays = [:] } }
    /// The oracle's seconds per local day of each project, worked out once per zone and history.
    private var oracleDays: [ProjectID: [OracleDay: Int64]] = [:]

    override func setUpWithError() throws {
        savedTZ = getenv("TZ").map { String(cString: $0) }
        try super.setUpWithError()
        for name in ["P0", "P1", "P2"] { try tracker.createProject(name: name, color: "", category: "") }
    }

    override func tearDownWithError() throws {
        if let savedTZ { setenv("TZ", savedTZ, 1) } else { unsetenv("TZ") }
        tzset()
        try super.tearDownWithError()
    }

    private func zone(_ name: String) {
        setenv("TZ", name, 1)
        tzset()
    }

    /// One session run by the timer: started at the first interval's start, paused and resumed
    /// between the intervals, stopped at the last one's end.
    private func session(_ project: ProjectID, _ segments: [(Int64, Int64)], note: String = "") throws {
        clock.time = segments[0].0
        let id = try tracker.startProject("#\(project)")
        for index in segments.indices {
            if index > 0 {
                clock.time = segments[index].0
                try tracker.resume()
            }
            clock.time = segments[index].1
            if index < segments.count - 1 { try tracker.pause() }
        }
        try tracker.stop()
        if !note.isEmpty { try tracker.setNote(session: id, note: note) }
        made.append((project, segments, note))
    }

    private struct Random {
        var state: UInt64
        mutating func below(_ bound: Int64) -> Int64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int64(state % UInt64(bound))
        }
    }

    /// About `count` sessions of random projects, lengths and pauses over [from, to).
    private func randomSessions(from: Int64, to: Int64, count: Int, seed: UInt64) throws {
        var random = Random(state: seed)
        var starts = (0..<count).map { _ in from + random.below(to - from) }
        starts.sort()
        for start in starts {
            let length = 1 + random.below(10 * 3600)
            var segments = [(start, start + length)]
            if random.below(3) == 0 {
                let cut = start + length / 2, pause = 60 + random.below(7200)
                segments = [(start, cut), (cut + pause, start + length + pause)]
            }
            try session(1 + random.below(3), segments)
        }
    }

    private func report(_ range: String, group: String = "project", columns: String? = nil, round: String? = nil,
                        mode: String? = nil, tag: String? = nil, project: Int64? = nil) throws -> RangeReport {
        try tracker.rangeReport(range: range, options: ReportOptions(format: "json", group: group, columns: columns, project: project,
                                                                      tag: tag, round: round, roundMode: mode, decimal: nil))
    }

    /// Every project's columns equal the oracle's, and the totals add up.
    private func assertMatchesOracle(_ report: RangeReport, _ columns: [[OracleDay]], _ what: String,
                                     file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(report.columns.map { "\($0.first)..\($0.last)" }, columns.map { "\($0.first!)..\($0.last!)" },
                       "\(what): the columns", file: file, line: line)
        var all: [Int64] = columns.map { _ in 0 }
        for project in [ProjectID(1), 2, 3] {
            if oracleDays[project] == nil { oracleDays[project] = Oracle.perDay(made.filter { $0.project == project }.flatMap(\.segments)) }
            let days = oracleDays[project]!
            let expected = Oracle.columns(days, columns)
            let group = report.groups.first { $0.key == String(project) }
            XCTAssertEqual(group?.columns ?? columns.map { _ in 0 }, expected, "\(what): P\(project - 1)", file: file, line: line)
            XCTAssertEqual(group?.totalExact ?? 0, expected.reduce(0, +), "\(what): P\(project - 1) exact", file: file, line: line)
            for index in all.indices { all[index] += expected[index] }
        }
        XCTAssertEqual(report.columnTotals, all, "\(what): the column totals", file: file, line: line)
        XCTAssertEqual(report.total, all.reduce(0, +), file: file, line: line)
        XCTAssertEqual(report.totalExact, all.reduce(0, +), file: file, line: line)
    }

    private func checkMonth(_ year: Int, _ month: Int, _ what: String) throws {
        let name = "\(year)-\(month < 10 ? "0" : "")\(month)"
        let days = OracleDay.month(year, month)
        assertMatchesOracle(try report(name), days.map { [$0] }, "\(what) \(name) by day")
        assertMatchesOracle(try report(name, columns: "week"), Oracle.weeks(days), "\(what) \(name) by week")
        assertMatchesOracle(try report(name, columns: "month"), [days], "\(what) \(name) as one month")
        XCTAssertEqual(try report(name).columnKind, .day, "a month is by day by default")
    }

    func testBerlinDSTMonthsAgainstTheOracle() throws {
        zone("Europe/Berlin")
        // Across the skipped hour (02:00 → 03:00 on 2026-03-29) and the repeated one (2026-10-25).
        try session(1, [(Oracle.local(2026, 3, 28, 23, 10), Oracle.local(2026, 3, 29, 1, 59, 59)), (Oracle.local(2026, 3, 29, 3, 0, 1), Oracle.local(2026, 3, 30, 0, 20))])
        try session(2, [(utc(2026, 10, 24, 21, 30), utc(2026, 10, 25, 2, 15))])
        try randomSessions(from: utc(2026, 2, 27), to: utc(2026, 4, 2), count: 70, seed: 0x1234_5678)
        try randomSessions(from: utc(2026, 9, 29), to: utc(2026, 11, 2), count: 70, seed: 0x9abc_def1)
        clock.time = utc(2027, 1, 1)
        try checkMonth(2026, 3, "Berlin")
        try checkMonth(2026, 10, "Berlin")
        // The days of the changes have 23 and 25 hours: a session over all of each counts them.
        XCTAssertEqual(Oracle.perDay([(Oracle.local(2026, 3, 29), Oracle.local(2026, 3, 30))])[OracleDay(year: 2026, month: 3, day: 29)], 23 * 3600)
    }

    func testNewYorkDSTMonthsAgainstTheOracle() throws {
        zone("America/New_York")
        try session(1, [(utc(2026, 3, 8, 5), utc(2026, 3, 8, 9, 30))])     // 00:00 EST to 05:30 EDT
        try session(3, [(utc(2026, 11, 1, 3, 45), utc(2026, 11, 2, 5, 5))])  // Sat 23:45 EDT to Mon 00:05 EST
        try randomSessions(from: utc(2026, 2, 27), to: utc(2026, 4, 2), count: 60, seed: 0x2468_ace0)
        try randomSessions(from: utc(2026, 10, 30), to: utc(2026, 12, 2), count: 60, seed: 0x1357_9bdf)
        clock.time = utc(2027, 1, 1)
        try checkMonth(2026, 3, "New York")
        try checkMonth(2026, 11, "New York")
    }

    func testLordHoweHalfHourShiftAgainstTheOracle() throws {
        zone("Australia/Lord_Howe")
        // 2026-04-05 02:00 +11 becomes 01:30 +10:30; 2026-10-04 02:00 +10:30 becomes 02:30 +11.
        try session(2, [(utc(2026, 4, 4, 14), utc(2026, 4, 4, 16))])
        try session(2, [(utc(2026, 10, 3, 14), utc(2026, 10, 4, 14, 10))])
        try randomSessions(from: utc(2026, 3, 30), to: utc(2026, 5, 2), count: 50, seed: 0x0f0f_1234)
        try randomSessions(from: utc(2026, 9, 29), to: utc(2026, 11, 2), count: 50, seed: 0x7777_1111)
        clock.time = utc(2027, 1, 1)
        try checkMonth(2026, 4, "Lord Howe")
        try checkMonth(2026, 10, "Lord Howe")
        let april = OracleDay(year: 2026, month: 4, day: 5)
        XCTAssertEqual(Oracle.perDay([(Oracle.local(2026, 4, 5), Oracle.local(2026, 4, 6))])[april], 24 * 3600 + 1800)
    }

    /// A session from 22:00 on the last of October to 02:30 on the first of November counts in
    /// each month (and each year column) exactly its part, also rounded per column.
    func testASessionAcrossAMonthsEdge() throws {
        zone("Europe/Berlin")
        try session(1, [(Oracle.local(2026, 10, 31, 22), Oracle.local(2026, 11, 1, 2, 30))])
        try session(2, [(Oracle.local(2026, 12, 31, 23, 50), Oracle.local(2027, 1, 1, 0, 20))])
        clock.time = utc(2027, 2, 1)
        let october = try report("2026-10")
        XCTAssertEqual(october.groups.first?.columns.last, 7200)
        XCTAssertEqual(october.total, 7200)
        let november = try report("2026-11")
        XCTAssertEqual(november.groups.first?.columns.first, 9000)
        XCTAssertEqual(november.total, 9000)
        let year = try report("2026")
        XCTAssertEqual(year.columnKind, .month)
        XCTAssertEqual(year.columns.map(\.label), (1...12).map { "2026-\($0 < 10 ? "0" : "")\($0)" })
        XCTAssertEqual(year.groups.first { $0.key == "1" }?.columns[9...10], [7200, 9000])
        XCTAssertEqual(year.groups.first { $0.key == "2" }?.columns.last, 600, "the last ten minutes of the year")
        XCTAssertEqual(try report("2027").total, 1200)
        let span = try report("2026-10-31..2026-11-01")
        XCTAssertEqual(span.range.name, "2026-10-31..2026-11-01")
        XCTAssertEqual(span.groups.first?.columns, [7200, 9000])
        // Rounded up to the hour per session and column: 2 h and 3 h, the exact 4.5 h beside.
        let rounded = try report("2026", round: "1h", mode: "up")
        XCTAssertEqual(rounded.groups.first { $0.key == "1" }?.columns[9...10], [7200, 10800])
        XCTAssertEqual(rounded.groups.first { $0.key == "1" }?.total, 18000)
        XCTAssertEqual(rounded.groups.first { $0.key == "1" }?.totalExact, 16200)
    }

    /// The open session counts up to the moment of the call.
    func testTheOpenSessionCountsUpToNow() throws {
        zone("UTC")
        clock.time = utc(2026, 11, 30, 22)
        try tracker.startProject("P0")
        clock.time = utc(2026, 12, 1, 1, 30)
        XCTAssertEqual(try report("2026-11").total, 7200)
        XCTAssertEqual(try report("2026-12").total, 5400)
        XCTAssertEqual(try report("this-month").range.name, "2026-12")
        XCTAssertEqual(try report("last-month").total, 7200)
        XCTAssertEqual(try report("today").total, 5400)
        XCTAssertEqual(try report("yesterday").total, 7200)
        XCTAssertEqual(try report("this-year").range.name, "2026")
        XCTAssertEqual(try report("").range.name, "2026-W49")
        XCTAssertEqual(try report("last-week").range.name, "2026-W48")
        XCTAssertEqual(try report("this-week").total, 12600)
    }

    /// Day, week and month columns are chosen by the range's length, and cut to the range.
    func testDefaultColumnsFollowTheRangesLength() throws {
        zone("UTC")
        let kinds: [(String, ReportOptions.Columns, Int)] = [
            ("2026-11-25", .day, 1), ("2026-W48", .day, 7), ("2026-01", .day, 31), ("2026-01-01..2026-02-01", .week, 5),
            ("2026-01-01..2026-07-01", .week, 27), ("2026-01-01..2026-07-02", .month, 7), ("2026", .month, 12),
        ]
        for (range, kind, count) in kinds {
            let made = try report(range)
            XCTAssertEqual(made.columnKind, kind, range)
            XCTAssertEqual(made.columns.count, count, range)
        }
        // 2026-01-01 is a Thursday: the first week column runs to Sunday the 4th.
        let weeks = try report("2026-01", columns: "week")
        XCTAssertEqual(weeks.columns.map { "\($0.label) \($0.first)..\($0.last)" }, [
            "2026-W01 2026-01-01..2026-01-04", "2026-W02 2026-01-05..2026-01-11", "2026-W03 2026-01-12..2026-01-18",
            "2026-W04 2026-01-19..2026-01-25", "2026-W05 2026-01-26..2026-01-31",
        ])
        let months = try report("2026-11-15..2027-01-10", columns: "month")
        XCTAssertEqual(months.columns.map { "\($0.label) \($0.first)..\($0.last)" },
                       ["2026-11 2026-11-15..2026-11-30", "2026-12 2026-12-01..2026-12-31", "2027-01 2027-01-01..2027-01-10"])
    }
}
