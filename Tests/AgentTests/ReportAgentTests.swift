import DBusKit
import Foundation
import TestSupport
import XCTest

/// The contract's section "Reports over any range, rates and targets" over D-Bus: `Report` with
/// its options, the `rate` and `weekly_target` keys of projects, the read-write `Currency`,
/// `WeeklyTarget` and `UntrackedReminderMinutes` with their PropertiesChanged, persisted and
/// undoable, and `week_target` in GetStatus; every bad value refused by name, changing nothing.
final class ReportAgentTests: XCTestCase {
    var agent: AgentHarness!
    var recorder: PropertiesChangedRecorder!

    override func setUpWithError() throws {
        agent = try AgentHarness(environment: ["TZ": "UTC"])
        recorder = try PropertiesChangedRecorder(bus: agent.bus)
    }

    override func tearDown() {
        recorder?.close()
        agent?.tearDown()
    }

    private func report(_ range: String, _ options: [String: DBusValue] = [:]) throws -> String {
        try agent.call("Report", [.string(range), .vardict(options)]).first?.stringValue ?? ""
    }

    private func json(_ range: String, _ options: [String: DBusValue] = [:]) throws -> [String: Any] {
        var options = options
        options["format"] = .string("json")
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try report(range, options).utf8)) as? [String: Any])
    }

    private func project(_ id: UInt64) throws -> [String: DBusValue] {
        try XCTUnwrap(try agent.projects().first { $0["id"]?.uint64Value == id })
    }

    func testReportOverDBusWithRatesRoundingAndTargets() throws {
        let writing = try agent.createProject("Writing", color: "#3366cc")
        let counsel = try agent.createProject("Counsel")
        XCTAssertEqual(try project(writing)["rate"], .string(""))
        XCTAssertEqual(try project(writing)["weekly_target"], .uint64(0))
        try agent.call("UpdateProject", [.uint64(writing), .vardict(["rate": .string("85.5"), "weekly_target": .uint64(72000)])])
        try agent.call("UpdateProject", [.uint64(counsel), .vardict(["rate": .string("199.99")])])
        XCTAssertEqual(try project(writing)["rate"], .string("85.50"))
        XCTAssertEqual(try project(writing)["weekly_target"], .uint64(72000))
        // 2026-10-05 (a Monday) 09:00 UTC: 67 minutes of Writing, 61 seconds of Counsel the next day.
        try agent.call("AddSession", [.uint64(writing), .int64(1_791_190_800), .string("1h7m"), .string("draft #intro")])
        try agent.call("AddSession", [.uint64(counsel), .int64(1_791_277_200), .string("61s"), .string("")])
        try agent.setProperty("Currency", .string("EUR"))
        try agent.setProperty("WeeklyTarget", .uint64(144_000))

        let month = try json("2026-10", ["round": .string("15m"), "round_mode": .string("up")])
        XCTAssertEqual(month["range"] as? String, "2026-10")
        XCTAssertEqual(month["currency"] as? String, "EUR")
        XCTAssertEqual(month["round"] as? String, "15m")
        XCTAssertEqual(month["total"] as? Int, 4500 + 900)
        XCTAssertEqual(month["total_exact"] as? Int, 4020 + 61)
        XCTAssertEqual(month["target"] as? Int, 637_714, "40 h × 31 ÷ 7")
        let groups = try XCTUnwrap(month["groups"] as? [[String: Any]])
        XCTAssertEqual(groups.map { $0["name"] as? String }, ["Writing", "Counsel"])
        XCTAssertEqual(groups[0]["amount"] as? String, "106.88", "4500 s × 85.50")
        XCTAssertEqual(groups[1]["amount"] as? String, "50.00", "900 s × 199.99 = 49.9975")
        XCTAssertEqual(month["amount"] as? String, "156.88")
        XCTAssertEqual(groups[0]["target"] as? Int, 318_857)
        XCTAssertEqual((month["columns"] as? [Any])?.count, 31)

        let text = try report("2026-10-05..2026-10-06", ["decimal": .bool(true)])
        XCTAssertTrue(text.hasPrefix("Report 2026-10-05..2026-10-06: 2026-10-05 to 2026-10-06 (UTC), by project"), text)
        XCTAssertTrue(text.contains("1.12"), text)
        let sheet = try report("2026-10", ["format": .string("timesheet"), "round": .string("15m"), "round_mode": .string("up")])
        XCTAssertTrue(sheet.hasPrefix("date,project,category,tags,note,start,end,hours,rate,amount\r\n2026-10-05,Writing,,intro,draft #intro,09:00,10:07,1.25,85.50,106.88\r\n"), sheet)
        XCTAssertEqual(try json("2026-10", ["group": .string("tag"), "tag": .string("#INTRO")])["total"] as? Int, 4020)
        XCTAssertEqual(try json("2026-10", ["project": .uint64(counsel)])["total"] as? Int, 61)
        XCTAssertTrue(try report("2026-10", ["format": .string("svg")]).hasPrefix("<svg"))
        XCTAssertEqual(try agent.status()["week_target"], .uint64(144_000))
    }

    func testBadRangesOptionsAndRatesAreRefusedByNameAndChangeNothing() throws {
        let writing = try agent.createProject("Writing")
        let forms = try XCTUnwrap(assertBusError(ContractError.invalidArgument, "a bad range") { try self.report("2026-13") })
        XCTAssertTrue(forms.contains("2026-W48") && forms.contains("A..B") && forms.contains("last-month"), forms)
        let refused: [([String: DBusValue], String)] = [
            (["colour": .string("red")], "accepted keys"), (["format": .uint32(1)], "type s"), (["format": .string("pdf")], "timesheet"),
            (["group": .string("client")], "tag"), (["columns": .string("year")], "month"), (["round": .string("forever")], "15m"),
            (["round": .string("15m"), "round_mode": .string("ceiling")], "nearest"), (["decimal": .string("yes")], "type b"),
            (["project": .uint64(999)], "no project"), (["project": .int64(1)], "type t"), (["tag": .string("two words")], "one word"),
        ]
        for (options, expected) in refused {
            let message = assertBusError(ContractError.invalidArgument, "\(options)") { try self.report("", options) }
            XCTAssertTrue(message?.contains(expected) == true, "\(options): \(message ?? "")")
        }
        let before = try agent.call("History", [.uint32(10)])
        for rate in ["-5", "85.555", "85,50", "lots"] {
            let message = assertBusError(ContractError.invalidArgument, rate) {
                try self.agent.call("UpdateProject", [.uint64(writing), .vardict(["rate": .string(rate)])])
            }
            XCTAssertTrue(message?.contains("at most 2 places") == true, message ?? "")
        }
        assertBusError(ContractError.invalidArgument, "a weekly target of more than a week") {
            try self.agent.call("UpdateProject", [.uint64(writing), .vardict(["weekly_target": .uint64(700_000)])])
        }
        assertBusError(ContractError.invalidArgument, "weekly_target as a string") {
            try self.agent.call("UpdateProject", [.uint64(writing), .vardict(["weekly_target": .string("20h")])])
        }
        for (name, value) in [("Currency", DBusValue.string("euros")), ("Currency", .string("eur")), ("Currency", .string(" ")), ("WeeklyTarget", .uint64(604_801)), ("UntrackedReminderMinutes", .uint32(1441))] {
            assertBusError(ContractError.invalidArgument, name) { try self.agent.setProperty(name, value) }
        }
        XCTAssertEqual(try agent.call("History", [.uint32(10)]), before, "nothing refused became a step")
        XCTAssertEqual(try project(writing)["rate"], .string(""))
        agent.assertAlive("after the refusals")
    }

    /// Each property announces itself, lasts across a restart, and goes back with Undo (announced again).
    func testThePlanPropertiesAreAnnouncedPersistedAndUndoable() throws {
        let all = try agent.allProperties()
        XCTAssertEqual(all["Currency"], .string(""))
        XCTAssertEqual(all["WeeklyTarget"], .uint64(0))
        XCTAssertEqual(all["UntrackedReminderMinutes"], .uint32(0))
        _ = recorder!.take(atLeast: 0, quiet: 0.2)
        let settings: [(String, DBusValue, DBusValue)] = [
            ("Currency", .string("CHF"), .string("CHF")), ("WeeklyTarget", .uint64(36_000), .uint64(36_000)),
            ("UntrackedReminderMinutes", .uint32(15), .uint32(15)),
        ]
        for (name, given, stored) in settings {
            try agent.setProperty(name, given)
            XCTAssertEqual(try agent.property(name), stored, name)
            let signals = recorder!.take()
            XCTAssertEqual(signals.compactMap { $0[name] }, [stored], "\(name) is announced once: \(signals)")
        }
        XCTAssertEqual(try agent.call("Undo").first?.stringValue, "Set the not-tracking reminder to 15 minutes")
        XCTAssertEqual(try agent.property("UntrackedReminderMinutes"), .uint32(0))
        let announced = recorder!.take().compactMap { $0["UntrackedReminderMinutes"] }
        XCTAssertEqual(announced, [.uint32(0)], "the undo is announced")
        try agent.restart()
        XCTAssertEqual(try agent.property("Currency"), .string("CHF"))
        XCTAssertEqual(try agent.property("WeeklyTarget"), .uint64(36_000))
        XCTAssertEqual(try agent.property("UntrackedReminderMinutes"), .uint32(0))
        XCTAssertEqual(try agent.status()["week_target"], .uint64(36_000))
    }
}
