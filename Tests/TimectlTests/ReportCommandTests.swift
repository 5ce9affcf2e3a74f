import Foundation
import TestSupport
import XCTest

/// `timectl report` over any range with its options, `project set`, `currency`, `target` and
/// `reminders untracked`, against the real agent (D-Bus activation on a private bus); exit status
/// 1 with the agent's words for what it refuses.
final class ReportCommandTests: XCTestCase {
    var bus: TestBus!
    let clock = ["TIMECTL_NOW": "1796112000"] // 2026-12-01 08:00 Europe/Berlin

    override func setUpWithError() throws { bus = try TestBus() }
    override func tearDown() { bus?.stop() }

    @discardableResult
    func ok(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try bus.runArray(arguments, env: clock)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stderr, "", "\(arguments)", file: file, line: line)
        return result.stdout
    }

    private func history() throws {
        try ok("categories", "add", "Work")
        try ok("projects", "add", "Writing", "--category", "Work", "--color", "#3366cc")
        try ok("projects", "add", "Counsel")
        XCTAssertEqual(try ok("project", "set", "Writing", "--rate", "85.5", "--target", "20h"),
                       "Writing: rate 85.50 an hour, weekly target 20:00.\n")
        XCTAssertEqual(try ok("currency", "eur"), "Amounts are in EUR.\n")
        XCTAssertEqual(try ok("projects", "set", "counsel", "--rate", "199.99"), "Counsel: rate 199.99 EUR an hour, no weekly target.\n")
        try ok("add", "Writing", "--start", "2026-11-02 09:00", "--duration", "1h7m", "--note", "draft #intro")
        try ok("add", "Counsel", "--start", "2026-11-03 23:50", "--duration", "30m")
    }

    func testTheTimesheetOfLastMonthRoundedWithAmounts() throws {
        try history()
        let sheet = try ok("report", "--last-month", "--round", "15m", "--round-mode", "up", "--timesheet")
        XCTAssertEqual(sheet, """
            date,project,category,tags,note,start,end,hours,rate,amount\r
            2026-11-02,Writing,Work,intro,draft #intro,09:00,10:07,1.25,85.50,106.88\r
            2026-11-03,Counsel,,,,23:50,00:00,0.25,199.99,50.00\r
            2026-11-04,Counsel,,,,00:00,00:20,0.50,199.99,100.00\r

            """)
        let file = bus.bus.directory.file("november.csv")
        XCTAssertEqual(try ok("report", "2026-11", "--round", "15m", "--round-mode", "up", "--timesheet", "-o", file), "")
        XCTAssertEqual(try String(contentsOfFile: file, encoding: .utf8), sheet)
    }

    func testRangesOptionsAndFormats() throws {
        try history()
        let json = try XCTUnwrap(try bus.runArray(["report", "2026-11", "--json", "--round", "15m", "--round-mode", "up"], env: clock).json() as? [String: Any])
        XCTAssertEqual(json["range"] as? String, "2026-11")
        XCTAssertEqual(json["total"] as? Int, 4500 + 2700)
        XCTAssertEqual(json["total_exact"] as? Int, 4020 + 1800)
        XCTAssertEqual(json["amount"] as? String, "256.87", "106.875 → 106.88 and 149.9925 → 149.99")
        XCTAssertEqual(json["currency"] as? String, "EUR")
        for (arguments, range) in [(["--month"], "2026-12"), (["--year"], "2026"), (["--from", "2026-11-02", "--to", "2026-11-03"], "2026-11-02..2026-11-03"),
                                   (["yesterday"], "2026-11-30"), (["today"], "2026-12-01"), (["2026-11-01..2026-11-15"], "2026-11-01..2026-11-15"),
                                   (["-1", "--by", "tag"], "2026-W48"), (["last", "--decimal"], "last-week")] {
            let made = try XCTUnwrap(try bus.runArray(["report"] + arguments + ["--json"], env: clock).json() as? [String: Any], "\(arguments)")
            XCTAssertEqual(made["range"] as? String, range == "last-week" ? "2026-W48" : range, "\(arguments)")
        }
        let weekly = try XCTUnwrap(try bus.runArray(["report", "2026-W45", "--json"], env: clock).json() as? [String: Any])
        XCTAssertEqual(weekly["week"] as? String, "2026-W45", "a week without report options is the weekly report as before")
        XCTAssertEqual(weekly["total"] as? Int, 5820)
        let month = try ok("report", "2026-11")
        XCTAssertTrue(month.contains("\n2026-11-02     1:07\n") && !month.contains("…"), "each day's label whole: \(month)")
        let tags = try ok("report", "2026-11", "--by", "tag", "--decimal")
        XCTAssertTrue(tags.contains("Tag rows overlap"), tags)
        XCTAssertTrue(tags.contains("1.12"), tags)
        let csv = try ok("report", "--from", "2026-11-02", "--to", "2026-11-03", "--project", "writing", "--csv")
        XCTAssertEqual(csv, "group,column_from,column_to,seconds,hours,amount\r\nWriting,2026-11-02,2026-11-02,4020,1:07,95.48\r\nWriting,2026-11-03,2026-11-03,0,0:00,0.00\r\n")
        XCTAssertEqual(try ok("report", "2026-11", "--tag", "#INTRO", "--json").contains("\"total\": 4020"), true)
        let svg = bus.bus.directory.file("month.svg"), png = bus.bus.directory.file("month.png")
        XCTAssertEqual(try ok("report", "2026-11", "--svg", svg, "--png", png), "")
        XCTAssertTrue(try String(contentsOfFile: svg, encoding: .utf8).contains("Report 2026-11: 1:37"))
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: png)).prefix(4)), [0x89, 0x50, 0x4E, 0x47])
    }

    func testRefusalsAreExitStatusOneWithTheAgentsWords() throws {
        try history()
        for (arguments, words) in [(["report", "2026-13"], "not a month"), (["report", "2026-11-31"], "not a date"),
                                   (["project", "set", "Writing", "--rate", "85.555"], "at most 2 places"),
                                   (["project", "set", "Nobody", "--rate", "5"], "no project is named"),
                                   (["report", "2026-11", "--project", "Nobody"], "no project is named")] {
            let result = try bus.runArray(arguments, env: clock)
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(words), "\(arguments): \(result.stderr)")
        }
        let forms = try bus.runArray(["report", "2026-13"], env: clock).stderr
        XCTAssertTrue(forms.contains("2026-W48") && forms.contains("A..B"), forms)
    }

    func testTargetsCurrencyAndTheNotTrackingReminder() throws {
        XCTAssertEqual(try ok("target"), "No weekly target (set one with 'timectl target 40h').\n")
        XCTAssertEqual(try ok("target", "40h"), "Weekly target 40:00; this week 0:00 (0%).\n")
        XCTAssertEqual(try ok("currency"), "No currency: amounts are shown as plain numbers.\n")
        XCTAssertEqual(try ok("currency", "chf"), "Amounts are in CHF.\n")
        XCTAssertEqual(try ok("currency", "none"), "No currency: amounts are shown as plain numbers.\n")
        XCTAssertEqual(try ok("reminders", "untracked"), "The not-tracking reminder is off.\n")
        XCTAssertEqual(try ok("reminders", "untracked", "15"), "A reminder after 15 minutes at your desk with no timer running.\n")
        XCTAssertEqual(try ok("reminders"), "Reminders every 60 minutes of active time.\n", "the other reminder is its own setting")
        XCTAssertEqual(try ok("reminders", "untracked", "off"), "The not-tracking reminder is off.\n")
        XCTAssertEqual(try ok("target", "none"), "No weekly target (set one with 'timectl target 40h').\n")
        let history = try ok("history")
        for sentence in ["Set the weekly target to 40:00", "Set the currency to CHF", "Removed the currency",
                         "Set the not-tracking reminder to 15 minutes", "Turned the not-tracking reminder off", "Removed the weekly target"] {
            XCTAssertTrue(history.contains(sentence), "\(sentence) in \(history)")
        }
    }
}
