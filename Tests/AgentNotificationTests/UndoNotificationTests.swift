import DBusKit
import Foundation
import TestSupport
import XCTest

/// After every Stop a short-lived notification offers Undo; picked from dunst's menu (a real
/// ActionInvoked), it reopens the stopped session, but only while that Stop is the newest step.
final class UndoNotificationTests: XCTestCase {
    static let undoCategory = "string \"x-time-tracker.undo\""

    private func waitForUndoNotify(_ world: NotificationWorld, count: Int, file: StaticString = #filePath, line: UInt = #line) -> NotifyCall? {
        let seen = TestSupport.wait(seconds: 15) { world.notifies(category: Self.undoCategory).count >= count }
        XCTAssertTrue(seen, "expected \(count) Stop notifications; wire: \(world.wire.output)", file: file, line: line)
        return seen ? world.notifies(category: Self.undoCategory)[count - 1] : nil
    }

    func testUndoOnTheStopNotificationReopensTheSameSession() throws {
        let world = try NotificationWorld("undo-stop")
        defer { world.stop() }
        try world.call("CreateProject", [.string("Writing"), .string(""), .string("")])
        try world.call("StartProject", [.string("Writing")])
        let session = try world.int64Property("SessionId")
        let start = try world.int64Property("SessionStart")
        _ = try XCTUnwrap(world.waitForTimerNotify(count: 1))

        try world.call("Stop")
        let notice = try XCTUnwrap(waitForUndoNotify(world, count: 1))
        XCTAssertEqual(notice.summary, "Stopped Writing · 0:00")
        XCTAssertTrue(notice.body.hasPrefix("Stopped Writing at "), notice.body)
        XCTAssertEqual(notice.actionKeys, ["undo"])
        XCTAssertEqual(notice.actions.map(\.label), ["Undo"])
        XCTAssertEqual(try world.state(), "idle")
        usleep(300_000) // let dunst take it before its menu is opened

        try world.invoke(actionKey: "undo")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { (try? world.state()) == "running" }, "Undo from the notification did not reopen the session")
        XCTAssertTrue(world.signals("ActionInvoked").contains { $0.text.contains("string \"undo\"") })
        XCTAssertEqual(try world.int64Property("SessionId"), session, "the same session")
        XCTAssertEqual(try world.int64Property("SessionStart"), start, "the same start")
        let sessions = try XCTUnwrap(world.call("ListSessions", [.uint64(0), .int64(0), .int64(Int64.max)]).first?.arrayValue)
        XCTAssertEqual(sessions.count, 1)
        XCTAssertEqual(sessions.first?.variantDictionary?["segments"], .array(elementSignature: "(xx)", [.structure([.int64(start), .int64(0)])]),
                       "its open segment continues")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { world.timerNotifies.count >= 2 }, "the timer notification is back")
    }

    func testUndoOfAnOlderStopChangesNothingAndSaysWhy() throws {
        let world = try NotificationWorld("undo-stale")
        defer { world.stop() }
        try world.call("CreateProject", [.string("Writing"), .string(""), .string("")])
        try world.call("StartProject", [.string("Writing")])
        try world.call("Stop")
        _ = try XCTUnwrap(waitForUndoNotify(world, count: 1))
        try world.call("AddCategory", [.string("Later")]) // a newer step
        usleep(300_000)

        try world.invoke(actionKey: "undo")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { world.signals("ActionInvoked").contains { $0.text.contains("string \"undo\"") } })
        let reportSeen = TestSupport.wait(seconds: 15) { !world.notifies(category: NotificationWorld.reportCategory).isEmpty }
        XCTAssertTrue(reportSeen, "a notification says why nothing was undone; wire: \(world.wire.output)")
        let report = try XCTUnwrap(world.notifies(category: NotificationWorld.reportCategory).last)
        XCTAssertEqual(report.summary, "Nothing was undone")
        XCTAssertTrue(report.body.contains("newer changes"), report.body)
        XCTAssertEqual(try world.state(), "idle", "the Stop stays")
        XCTAssertEqual(try world.call("ListCategories").first, .stringArray(["Later"]), "the newer change stays")
        XCTAssertEqual(try world.client.agentProperty("CanUndo"), .string("Added category Later"))
    }
}
