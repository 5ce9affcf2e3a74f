import DBusKit
import Foundation
import TestSupport
import XCTest

/// Undo, Redo, History and CanUndo on a real agent over a private bus: every kind of change made
/// through the contract is undone and redone, and everything a client can read is compared with
/// the state before, also after a clean restart and after kill -9 right after the reply.
final class UndoAgentTests: XCTestCase {
    var agent: AgentHarness!

    override func setUpWithError() throws { agent = try AgentHarness() }
    override func tearDown() { agent?.tearDown() }

    /// Everything a client can read (the running clock's seconds left out).
    private func observable() throws -> [String] {
        var properties = try agent.allProperties()
        // DataRevision counts the changes this run of the agent made (an undo is one more): not data.
        for name in ["ActiveSeconds", "CanUndo", "DataRevision"] { properties[name] = nil }
        return [canonical(properties)] + (try agent.projects().map(canonical)) + ["\(try agent.call("ListCategories"))"]
            + (try agent.sessions().map { session in var s = session; s["active"] = nil; return canonical(s) })
    }

    private func history(_ count: UInt32 = 100) throws -> [[String: DBusValue]] {
        try (agent.call("History", [.uint32(count)]).first?.arrayValue ?? []).compactMap(\.variantDictionary)
    }

    func testEveryKindOfChangeIsUndoneAndRedoneAlsoAcrossRestartsAndKillNine() throws {
        let now = Int64(Date().timeIntervalSince1970)
        XCTAssertEqual(try history(), [], "a new store has an empty history")
        XCTAssertEqual(try agent.property("CanUndo"), .string(""))
        assertBusError(ContractError.prefix + "NothingToUndo") { try agent.call("Undo") }
        assertBusError(ContractError.prefix + "NothingToRedo") { try agent.call("Redo") }

        let changes: [(String, [DBusValue])] = [
            ("AddCategory", [.string("Work")]),
            ("CreateProject", [.string("Writing"), .string("#3366cc"), .string("Work")]),
            ("CreateProject", [.string("Reviews"), .string(""), .string("")]),
            ("UpdateProject", [.uint64(2), .vardict(["name": .string("Code reviews"), "archived": .bool(true)])]),
            ("AddSession", [.uint64(2), .int64(now - 3 * 86400), .string("1:30"), .string("by hand")]),
            ("EditSession", [.uint64(1), .vardict(["duration": .string("2h"), "note": .string("edited")])]),
            ("StartProject", [.string("Writing")]),
            ("Pause", []),
            ("Resume", []),
            ("AddNote", [.string("a line")]),
            ("SetNote", [.uint64(1), .string("set")]),
            ("Toggle", []),
            ("Stop", []),
            ("DeleteSession", [.uint64(1)]),
            ("DeleteCategory", [.string("Work")]),
        ]
        var restarts = 0
        for (index, (method, arguments)) in changes.enumerated() {
            let before = try observable()
            try agent.call(method, arguments)
            let after = try observable()
            let description = try XCTUnwrap(agent.property("CanUndo").stringValue)
            XCTAssertFalse(description.isEmpty, "\(method) made a step")
            XCTAssertEqual(try history(1).first?["description"]?.stringValue, description)

            XCTAssertEqual(try agent.call("Undo").first?.stringValue, description, method)
            // Right after the reply: a clean restart, kill -9, or nothing.
            switch index % 3 {
            case 0: try agent.crashAndRestart(); restarts += 1
            case 1: try agent.restart(); restarts += 1
            default: break
            }
            XCTAssertEqual(try observable(), before, "undo of \(method) (\(description))")
            XCTAssertEqual(try history(1).first?["undone"], .bool(true))

            XCTAssertEqual(try agent.call("Redo").first?.stringValue, description, method)
            if index % 3 == 2 { try agent.crashAndRestart(); restarts += 1 }
            XCTAssertEqual(try observable(), after, "redo of \(method) (\(description))")
            XCTAssertEqual(try agent.property("CanUndo"), .string(description))
        }
        XCTAssertGreaterThan(restarts, 5)
        let steps = try history()
        XCTAssertEqual(steps.count, changes.count)
        XCTAssertEqual(steps.compactMap { $0["id"]?.uint64Value }, steps.compactMap { $0["id"]?.uint64Value }.sorted(by: >), "newest first")
        XCTAssertTrue(steps.allSatisfy { ($0["time"]?.int64Value ?? 0) >= now - 5 && $0["undone"] == .bool(false) })
        XCTAssertEqual(try history(2).count, 2)
    }

    func testUndoingAStopReopensTheSessionAndCanUndoIsAnnounced() throws {
        let recorder = try PropertiesChangedRecorder(bus: agent.bus)
        defer { recorder.close() }
        try agent.createProject("Writing")
        let session = try agent.start("Writing")
        let running = try XCTUnwrap(agent.sessions().first)
        _ = recorder.take()
        try agent.call("Stop")
        let stopped = recorder.take()
        let description = try XCTUnwrap(stopped.last?["CanUndo"]?.stringValue, "CanUndo is in the PropertiesChanged of the Stop")
        XCTAssertTrue(description.hasPrefix("Stopped Writing at "), description)

        XCTAssertEqual(try agent.call("Undo").first?.stringValue, description)
        let undone = recorder.take()
        XCTAssertEqual(undone.last?["State"], .string("running"))
        XCTAssertTrue(undone.last?["CanUndo"]?.stringValue?.hasPrefix("Started Writing at ") == true, "\(undone)")
        XCTAssertEqual(try agent.property("SessionId"), .uint64(session), "the same session")
        var reopened = try XCTUnwrap(agent.sessions().first)
        var expected = running
        for key in ["active", "segments"] { reopened[key] = nil; expected[key] = nil }
        XCTAssertEqual(canonical(reopened), canonical(expected), "same id, same start, still open")
        XCTAssertEqual(try agent.sessions().first?["segments"], running["segments"], "its open segment continues")
    }

    func testUndoAndRedoAreRefusedOnReadOnlyStorageLikeEveryChange() throws {
        agent.stopAgent()
        agent.tearDown()
        agent = try AgentHarness { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data("not a store".utf8).write(to: URL(fileURLWithPath: directory + "/time.sqlite"))
        }
        XCTAssertEqual(try agent.property("StorageState"), .string("read-only"))
        assertBusError(ContractError.readOnly) { try agent.call("Undo") }
        assertBusError(ContractError.readOnly) { try agent.call("Redo") }
    }
}
