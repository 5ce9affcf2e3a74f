import DBusKit
import Foundation
import TestSupport
import XCTest

/// Every row of the contract's timer table, called over a private bus on a real agent.
final class TimerStateTests: XCTestCase {
    var agent: AgentHarness!

    override func setUpWithError() throws {
        agent = try AgentHarness()
    }

    override func tearDown() {
        agent?.tearDown()
        agent = nil
    }

    private func session(_ id: UInt64) throws -> [String: DBusValue]? {
        try agent.sessions().first { $0["id"]?.uint64Value == id }
    }

    // MARK: StartProject

    func testStartProjectFromIdleOpensARunningSession() throws {
        let projectID = try agent.createProject("Writing")
        let before = unixNow()
        let id = try agent.start("Writing")
        XCTAssertGreaterThan(id, 0)
        let status = try agent.status()
        XCTAssertEqual(status["state"], .string("running"))
        XCTAssertEqual(status["project"], .string("Writing"))
        XCTAssertEqual(status["project_id"], .uint64(projectID))
        XCTAssertEqual(status["session"], .uint64(id))
        XCTAssertEqual(try agent.property("State"), .string("running"))
        XCTAssertEqual(try agent.property("SessionId"), .uint64(id))
        let start = try XCTUnwrap(try agent.property("SessionStart").int64Value)
        XCTAssertTrue((before - 1)...(unixNow() + 1) ~= start)
        XCTAssertEqual(try agent.property("RunningSince"), .int64(start))
        let listed = try XCTUnwrap(try session(id))
        XCTAssertEqual(listed["end"], .int64(0), "an open session has end 0")
        XCTAssertEqual(listed["state"], .string("running"))
    }

    func testStartProjectOnTheRunningProjectChangesNothingAndReturnsTheOpenSession() throws {
        try agent.createProject("Writing")
        let id = try agent.start("Writing")
        let before = try agent.allProperties()
        XCTAssertEqual(try agent.start("Writing"), id)
        XCTAssertEqual(try agent.start("  writing "), id, "names are trimmed and compared ignoring case")
        XCTAssertEqual(try agent.allProperties(), before)
        XCTAssertEqual(try agent.sessions().count, 1)
    }

    func testStartProjectOnThePausedProjectResumesIt() throws {
        try agent.createProject("Writing")
        let id = try agent.start("Writing")
        try agent.call("Pause")
        XCTAssertEqual(try agent.state(), "paused")
        XCTAssertEqual(try agent.start("WRITING"), id)
        XCTAssertEqual(try agent.state(), "running")
        XCTAssertEqual(try agent.sessions().count, 1)
        XCTAssertEqual(try session(id)?["segments"]?.arrayValue?.count, 2, "a pause and a resume make two segments")
    }

    func testStartProjectOnAnotherProjectCompletesTheOpenSessionRunningOrPaused() throws {
        try agent.createProject("Writing")
        try agent.createProject("Reading")
        try agent.createProject("Coding")
        let first = try agent.start("Writing")
        let second = try agent.start("Reading")
        XCTAssertNotEqual(first, second)
        let completed = try XCTUnwrap(try session(first))
        XCTAssertEqual(completed["state"], .string("completed"))
        XCTAssertNotEqual(completed["end"], .int64(0))
        XCTAssertEqual(try agent.property("Project"), .string("Reading"))

        try agent.call("Pause")
        let third = try agent.start("Coding")
        XCTAssertEqual(try session(second)?["state"], .string("completed"), "a paused session is completed too")
        XCTAssertEqual(try agent.state(), "running")
        XCTAssertEqual(try agent.property("SessionId"), .uint64(third))
        let open = try agent.sessions().filter { $0["end"] == .int64(0) }
        XCTAssertEqual(open.count, 1, "at most one open session")
    }

    func testProjectNamesMatchTrimmedCaseInsensitiveUnicodeAwareAndByHashID() throws {
        let id = try agent.createProject("Écriture")
        XCTAssertEqual(try agent.start("écriture"), try agent.start("  ÉCRITURE\t"))
        XCTAssertEqual(try agent.property("Project"), .string("Écriture"))
        try agent.call("Stop")
        let viaID = try agent.start("#\(id)")
        XCTAssertEqual(try agent.property("Project"), .string("Écriture"))
        XCTAssertEqual(try agent.status()["session"], .uint64(viaID))
        assertBusError(ContractError.alreadyExists, "a name equal ignoring case") { try agent.createProject("ÉCRITURE") }
    }

    func testStartProjectOfAnUnknownProjectIsNoSuchProject() throws {
        assertBusError(ContractError.noSuchProject, "unknown name") { try agent.start("Nothing") }
        assertBusError(ContractError.noSuchProject, "unknown #id") { try agent.start("#99") }
        XCTAssertEqual(try agent.state(), "idle")
    }

    // MARK: Pause, Resume, Toggle, Stop

    func testPauseAndResumeRowsIncludingHarmlessRepeats() throws {
        assertBusError(ContractError.noCurrentSession, "Pause when idle") { try agent.call("Pause") }
        assertBusError(ContractError.noCurrentSession, "Resume when idle") { try agent.call("Resume") }
        try agent.createProject("Writing")
        let id = try agent.start("Writing")
        try agent.call("Resume")                      // already running: nothing changes
        XCTAssertEqual(try agent.state(), "running")
        XCTAssertEqual(try session(id)?["segments"]?.arrayValue?.count, 1)
        try agent.call("Pause")
        XCTAssertEqual(try agent.state(), "paused")
        XCTAssertEqual(try agent.property("RunningSince"), .int64(0), "RunningSince is 0 unless running")
        let paused = try agent.allProperties()
        try agent.call("Pause")                       // a hotkey pressed twice is harmless
        XCTAssertEqual(try agent.allProperties(), paused)
        try agent.call("Resume")
        XCTAssertEqual(try agent.state(), "running")
        XCTAssertEqual(try session(id)?["segments"]?.arrayValue?.count, 2)
    }

    func testToggleRows() throws {
        assertBusError(ContractError.noSuchProject, "Toggle with no project ever used") { try agent.call("Toggle") }
        try agent.createProject("Writing")
        assertBusError(ContractError.noSuchProject, "Toggle when no project was ever started") { try agent.call("Toggle") }
        try agent.createProject("Reading")
        let first = try agent.start("Writing")
        XCTAssertEqual(try agent.call("Toggle"), [.string("paused")])
        XCTAssertEqual(try agent.state(), "paused")
        XCTAssertEqual(try agent.call("Toggle"), [.string("running")])
        XCTAssertEqual(try agent.state(), "running")
        try agent.start("Reading")
        try agent.call("Stop")
        XCTAssertEqual(try agent.property("LastProject"), .string("Reading"))
        XCTAssertEqual(try agent.call("Toggle"), [.string("running")], "idle → starts the most recently used project")
        XCTAssertEqual(try agent.property("Project"), .string("Reading"))
        XCTAssertNotEqual(try agent.property("SessionId"), .uint64(first))
    }

    func testStopRowsAndZeroSecondSessionsAreKept() throws {
        assertBusError(ContractError.noCurrentSession, "Stop when idle") { try agent.call("Stop") }
        try agent.createProject("Writing")
        let running = try agent.start("Writing")
        XCTAssertEqual(try agent.call("Stop"), [.uint64(running)], "a 0-second session stopped at once")
        XCTAssertEqual(try agent.state(), "idle")
        let kept = try XCTUnwrap(try session(running), "no session is ever dropped, however short")
        XCTAssertEqual(kept["state"], .string("completed"))
        XCTAssertEqual(kept["active"], .uint64(0))

        let paused = try agent.start("Writing")
        try agent.call("Pause")
        XCTAssertEqual(try agent.call("Stop"), [.uint64(paused)])
        XCTAssertEqual(try agent.state(), "idle")
        XCTAssertEqual(try agent.sessions().count, 2, "nothing merged")
        for (name, value) in ["Project": DBusValue.string(""), "ProjectColor": .string(""), "Category": .string(""),
                              "SessionId": .uint64(0), "SessionStart": .int64(0), "RunningSince": .int64(0)] {
            XCTAssertEqual(try agent.property(name), value, "\(name) when idle")
        }
    }

    func testTimeWhilePausedNeverCounts() throws {
        try agent.createProject("Writing")
        let id = try agent.start("Writing")
        usleep(1_200_000)
        try agent.call("Pause")
        let activeWhenPaused = try XCTUnwrap(try agent.property("ActiveSeconds").uint64Value)
        XCTAssertTrue(1...2 ~= activeWhenPaused, "paused: ActiveSeconds holds all of them (\(activeWhenPaused))")
        usleep(2_200_000)
        XCTAssertEqual(try agent.status()["elapsed"], .uint64(activeWhenPaused), "paused time never counts")
        try agent.call("Resume")
        try agent.call("Stop")
        let stopped = try XCTUnwrap(try session(id))
        XCTAssertTrue(stopped["active"]!.uint64Value! <= activeWhenPaused + 1)
        let span = stopped["end"]!.int64Value! - stopped["start"]!.int64Value!
        XCTAssertGreaterThanOrEqual(span, 3, "the wall-clock span includes the pause")
        let segments = try XCTUnwrap(stopped["segments"]?.arrayValue)
        XCTAssertEqual(segments.count, 2, "every pause and resume is an exact segment")
    }

    // MARK: Notes

    func testAddNoteAppendsLinesAndSetNoteReplacesAnyNote() throws {
        assertBusError(ContractError.noCurrentSession, "AddNote when idle") { try agent.call("AddNote", [.string("x")]) }
        try agent.createProject("Writing")
        let id = try agent.start("Writing")
        try agent.call("AddNote", [.string("first")])
        try agent.call("AddNote", [.string("second")])
        XCTAssertEqual(try agent.property("Note"), .string("first\nsecond"))
        XCTAssertEqual(try agent.status()["note"], .string("first\nsecond"))
        try agent.call("SetNote", [.uint64(id), .string("replaced")])
        XCTAssertEqual(try agent.property("Note"), .string("replaced"))
        try agent.call("Stop")
        try agent.call("SetNote", [.uint64(id), .string("after the fact")])
        XCTAssertEqual(try session(id)?["note"], .string("after the fact"))
        try agent.call("SetNote", [.uint64(id), .string("")])
        XCTAssertEqual(try session(id)?["note"], .string(""), "\"\" clears it")
        assertBusError(ContractError.noSuchSession, "SetNote of a missing session") {
            try agent.call("SetNote", [.uint64(4242), .string("x")])
        }
    }

    // MARK: GetStatus, reports

    func testGetStatusHasEveryContractKeyWithItsType() throws {
        let expected = ["state": "s", "project": "s", "project_id": "t", "color": "s", "category": "s", "session": "t",
                        "elapsed": "t", "today": "t", "week": "t", "week_target": "t", "note": "s"]
        let idle = try agent.status()
        XCTAssertEqual(Set(idle.keys), Set(expected.keys))
        for (key, signature) in expected { XCTAssertEqual(idle[key]?.signature, signature, key) }
        XCTAssertEqual(idle["state"], .string("idle"))

        try agent.call("AddCategory", [.string("Work")])
        try agent.createProject("Writing", color: "#123456", category: "Work")
        try agent.start("Writing")
        usleep(1_100_000)
        let running = try agent.status()
        XCTAssertEqual(running["color"], .string("#123456"))
        XCTAssertEqual(running["category"], .string("Work"))
        let elapsed = try XCTUnwrap(running["elapsed"]?.uint64Value)
        XCTAssertGreaterThanOrEqual(elapsed, 1, "elapsed is computed at call time")
        XCTAssertGreaterThanOrEqual(running["today"]!.uint64Value!, elapsed, "the open session counts today")
        XCTAssertGreaterThanOrEqual(running["week"]!.uint64Value!, running["today"]!.uint64Value!)
    }

    func testWeeklyReportTextAndJSONAndShowWeeklyReport() throws {
        let id = try agent.createProject("Writing")
        // Wednesday 2025-11-19 10:00 in Europe/Berlin (the harness' TZ) is 09:00 UTC.
        XCTAssertNotNil(try agent.call("AddSession", [.uint64(id), .int64(1_763_542_800), .string("1h30m"), .string("")]).first?.uint64Value)
        let json = try XCTUnwrap(try agent.call("WeeklyReport", [.string("2025-11-19"), .string("json")]).first?.stringValue)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(object["week"] as? String, "2025-W47")
        XCTAssertEqual(object["from"] as? String, "2025-11-17")
        XCTAssertEqual(object["to"] as? String, "2025-11-23")
        XCTAssertEqual(object["timezone"] as? String, "Europe/Berlin")
        XCTAssertEqual(object["total"] as? Int, 5400)
        XCTAssertEqual(object["days"] as? [Int], [0, 0, 5400, 0, 0, 0, 0])
        let text = try XCTUnwrap(try agent.call("WeeklyReport", [.string("2025-W47"), .string("text")]).first?.stringValue)
        XCTAssertTrue(text.contains("Writing"), text)
        XCTAssertNoThrow(try agent.call("WeeklyReport", [.string(""), .string("text")]))
        XCTAssertNoThrow(try agent.call("ShowWeeklyReport", [.string("")]))
        assertBusError(ContractError.invalidArgument, "an unknown format") { try agent.call("WeeklyReport", [.string(""), .string("xml")]) }
        assertBusError(ContractError.invalidArgument, "a week that is no week") { try agent.call("WeeklyReport", [.string("next tuesday"), .string("text")]) }
    }

    // MARK: Projects and categories

    func testProjectsAndCategoriesRows() throws {
        let id = try agent.createProject("Writing")
        let project = try XCTUnwrap(try agent.projects().first)
        XCTAssertEqual(Set(project.keys), ["id", "name", "color", "category", "archived", "rate", "weekly_target"])
        XCTAssertEqual(project["id"], .uint64(id))
        XCTAssertEqual(project["category"], .string(""), "\"\" = none")
        XCTAssertEqual(project["archived"], .bool(false))
        let color = try XCTUnwrap(project["color"]?.stringValue)
        XCTAssertNotNil(color.range(of: "^#[0-9a-f]{6}$", options: .regularExpression), "a palette color: \(color)")

        assertBusError(ContractError.noSuchCategory, "CreateProject in an unknown category") { try agent.createProject("X", category: "Nope") }
        assertBusError(ContractError.alreadyExists, "CreateProject with a taken name") { try agent.createProject(" writing ") }
        try agent.call("AddCategory", [.string("Work")])
        try agent.call("AddCategory", [.string("Admin")])
        try agent.call("AddCategory", [.string("leisure")])
        assertBusError(ContractError.alreadyExists, "AddCategory twice") { try agent.call("AddCategory", [.string("work")]) }
        XCTAssertEqual(try agent.call("ListCategories"), [.stringArray(["Admin", "leisure", "Work"])], "sorted")

        try agent.call("UpdateProject", [.uint64(id), .vardict(["name": .string("Prose"), "color": .string("#AABBCC"),
                                                                "category": .string("Work"), "archived": .bool(true)])])
        let updated = try XCTUnwrap(try agent.projects().first)
        XCTAssertEqual(updated["name"], .string("Prose"))
        XCTAssertEqual(updated["color"], .string("#aabbcc"))
        XCTAssertEqual(updated["category"], .string("Work"))
        XCTAssertEqual(updated["archived"], .bool(true))
        assertBusError(ContractError.invalidArgument, "UpdateProject with an unknown key") {
            try agent.call("UpdateProject", [.uint64(id), .vardict(["colour": .string("#000000")])])
        }
        assertBusError(ContractError.noSuchProject, "UpdateProject of a missing project") {
            try agent.call("UpdateProject", [.uint64(999), .vardict(["name": .string("x")])])
        }
        assertBusError(ContractError.noSuchCategory, "UpdateProject into a missing category") {
            try agent.call("UpdateProject", [.uint64(id), .vardict(["category": .string("Nope")])])
        }

        // DeleteCategory: its projects become uncategorized, no session is touched.
        try agent.call("UpdateProject", [.uint64(id), .vardict(["archived": .bool(false)])])
        let past = unixNow() - 86_400
        let sessionID = try XCTUnwrap(try agent.call("AddSession", [.uint64(id), .int64(past), .string("1h"), .string("n")]).first?.uint64Value)
        let sessionsBefore = try agent.sessions()
        try agent.call("DeleteCategory", [.string("WORK")])
        XCTAssertEqual(try agent.projects().first?["category"], .string(""))
        XCTAssertEqual(try agent.call("ListCategories"), [.stringArray(["Admin", "leisure"])])
        XCTAssertEqual(try agent.sessions(), sessionsBefore)
        XCTAssertNotNil(sessionsBefore.first { $0["id"] == .uint64(sessionID) })
        assertBusError(ContractError.noSuchCategory, "DeleteCategory of a missing category") { try agent.call("DeleteCategory", [.string("Work")]) }
    }

    // MARK: Sessions

    func testListSessionsFieldsAndRangeAndProjectFilter() throws {
        let a = try agent.createProject("A")
        let b = try agent.createProject("B")
        let base = unixNow() - 10 * 86_400
        let s1 = try XCTUnwrap(try agent.call("AddSession", [.uint64(a), .int64(base), .string("1h"), .string("one")]).first?.uint64Value)
        let s2 = try XCTUnwrap(try agent.call("AddSession", [.uint64(b), .int64(base + 7200), .string("30m"), .string("")]).first?.uint64Value)
        let listed = try agent.sessions()
        XCTAssertEqual(listed.count, 2)
        let first = try XCTUnwrap(listed.first { $0["id"] == .uint64(s1) })
        XCTAssertEqual(Set(first.keys), ["id", "project_id", "project", "start", "end", "active", "state", "note", "segments", "device", "overlaps"])
        XCTAssertEqual(first["project_id"], .uint64(a))
        XCTAssertEqual(first["project"], .string("A"))
        XCTAssertEqual(first["start"], .int64(base))
        XCTAssertEqual(first["end"], .int64(base + 3600))
        XCTAssertEqual(first["active"], .uint64(3600))
        XCTAssertEqual(first["note"], .string("one"))
        XCTAssertEqual(first["segments"], .array(elementSignature: "(xx)", [.structure([.int64(base), .int64(base + 3600)])]),
                       "stored as one exact segment")
        XCTAssertEqual(try agent.sessions(project: b).map { $0["id"] }, [.uint64(s2)], "project filter")
        // Overlapping [from, to): the end is exclusive, the start inclusive.
        XCTAssertEqual(try agent.sessions(from: base + 3600, to: base + 7200).count, 0)
        XCTAssertEqual(try agent.sessions(from: base + 3599, to: base + 7200).map { $0["id"] }, [.uint64(s1)])
        XCTAssertEqual(try agent.sessions(from: base + 3600, to: base + 7201).map { $0["id"] }, [.uint64(s2)])
        assertBusError(ContractError.noSuchProject, "ListSessions of a missing project") { try agent.sessions(project: 77) }
    }

    func testAddSessionAcceptsEveryDurationFormAPersonTypes() throws {
        let id = try agent.createProject("A")
        let forms: [(String, UInt64)] = [
            ("1:30", 5400), ("1:30:15", 5415), ("90m", 5400), ("2h", 7200), ("45s", 45), ("1h30m", 5400),
            ("1h 30m", 5400), ("1h30m15s", 5415), ("1.5h", 5400), ("45", 2700), ("168h", 7 * 86_400),
        ]
        var start = unixNow() - 400 * 86_400
        for (form, seconds) in forms {
            start += 10 * 86_400
            let session = try XCTUnwrap(try agent.call("AddSession", [.uint64(id), .int64(start), .string(form), .string("")]).first?.uint64Value,
                                        form)
            let listed = try XCTUnwrap(try agent.sessions().first { $0["id"] == .uint64(session) }, form)
            XCTAssertEqual(listed["active"], .uint64(seconds), form)
            XCTAssertEqual(listed["end"], .int64(start + Int64(seconds)), form)
        }
        for bad in ["0", "0m", "-5m", "169h", "8d", "2mo", "3M", "abc", "", "1h30x", "1::30"] {
            let message = assertBusError(ContractError.invalidArgument, "duration \"\(bad)\"") {
                try agent.call("AddSession", [.uint64(id), .int64(start), .string(bad), .string("")])
            }
            if ["abc", "2mo", "1h30x"].contains(bad) {
                XCTAssertTrue(message?.contains("1h30m") == true || message?.contains("1:30") == true,
                              "the message names the accepted forms: \(message ?? "")")
            }
        }
        XCTAssertEqual(try agent.sessions().count, forms.count, "no refused session was stored")
        assertBusError(ContractError.noSuchProject, "AddSession to a missing project") {
            try agent.call("AddSession", [.uint64(404), .int64(start), .string("1h"), .string("")])
        }
    }

    func testEditSessionShiftsSegmentsOrReplacesThemAndDeleteSessionRows() throws {
        try agent.createProject("A")
        let b = try agent.createProject("B")
        // A recorded session with a pause: two segments.
        let open = try agent.start("A")
        try agent.call("Pause")
        try agent.call("Resume")
        assertBusError(ContractError.invalidArgument, "DeleteSession of the open session") { try agent.call("DeleteSession", [.uint64(open)]) }
        XCTAssertEqual(try agent.sessions().count, 1, "an open session cannot be deleted")
        try agent.call("Stop")
        let original = try XCTUnwrap(try agent.sessions().first)
        let segments = try XCTUnwrap(original["segments"]?.arrayValue)
        XCTAssertEqual(segments.count, 2)
        let oldStart = original["start"]!.int64Value!
        let newStart = oldStart - 86_400
        try agent.call("EditSession", [.uint64(open), .vardict(["start": .int64(newStart), "project": .uint64(b), "note": .string("moved")])])
        let moved = try XCTUnwrap(try agent.sessions().first)
        XCTAssertEqual(moved["start"], .int64(newStart))
        XCTAssertEqual(moved["project_id"], .uint64(b))
        XCTAssertEqual(moved["note"], .string("moved"))
        let shifted = segments.map { segment -> DBusValue in
            let fields = segment.structureFields
            return .structure([.int64(fields[0].int64Value! - 86_400), .int64(fields[1].int64Value! - 86_400)])
        }
        XCTAssertEqual(moved["segments"]?.arrayValue, shifted, "a new start shifts every segment by the same amount")

        try agent.call("EditSession", [.uint64(open), .vardict(["duration": .string("2h")])])
        let replaced = try XCTUnwrap(try agent.sessions().first)
        XCTAssertEqual(replaced["segments"]?.arrayValue, [.structure([.int64(newStart), .int64(newStart + 7200)])],
                       "a new duration replaces the segments with one from the session's start")
        XCTAssertEqual(replaced["active"], .uint64(7200))

        assertBusError(ContractError.invalidArgument, "EditSession with an unknown key") {
            try agent.call("EditSession", [.uint64(open), .vardict(["end": .int64(newStart)])])
        }
        assertBusError(ContractError.noSuchSession, "EditSession of a missing session") {
            try agent.call("EditSession", [.uint64(9999), .vardict(["note": .string("x")])])
        }
        assertBusError(ContractError.noSuchProject, "EditSession to a missing project") {
            try agent.call("EditSession", [.uint64(open), .vardict(["project": .uint64(555)])])
        }
        try agent.call("DeleteSession", [.uint64(open)])
        XCTAssertEqual(try agent.sessions().count, 0)
        assertBusError(ContractError.noSuchSession, "DeleteSession twice") { try agent.call("DeleteSession", [.uint64(open)]) }
    }
}

extension DBusValue {
    var structureFields: [DBusValue] {
        if case .structure(let fields) = self { return fields }
        return []
    }
}
