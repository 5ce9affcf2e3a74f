import DBusKit
import Foundation
import TestSupport
import XCTest

/// The focus timer's notifications with the real agent and dunst: at the end of each phase one
/// notification says what comes next, and each of its answers, picked from dunst's menu (a real
/// ActionInvoked), does what it says; the timer notification says the phase. Minutes last one
/// second here (TIME_AGENT_MINUTE_SECONDS).
final class FocusNotificationTests: XCTestCase {
    static let focusCategory = "string \"x-time-tracker.focus\""
    private var world: NotificationWorld!

    override func setUpWithError() throws {
        world = try NotificationWorld("focus", environment: ["TIME_AGENT_MINUTE_SECONDS": "1"])
        try world.call("CreateProject", [.string("Writing"), .string(""), .string("")])
        try setProperty("FocusMinutes", .uint32(2))
        try setProperty("BreakMinutes", .uint32(60))
    }

    override func tearDown() { world?.stop() }

    private var phaseEnds: [NotifyCall] { world.notifies(category: Self.focusCategory) }

    private func nextPhaseEnd(after count: Int, file: StaticString = #filePath, line: UInt = #line) throws -> NotifyCall {
        let seen = TestSupport.wait(seconds: 15) { self.phaseEnds.count > count }
        XCTAssertTrue(seen, "no phase-end notification; wire: \(world.wire.output)", file: file, line: line)
        usleep(300_000) // let dunst take it before its menu is opened
        return try XCTUnwrap(phaseEnds.last, file: file, line: line)
    }

    private func property(_ name: String) throws -> DBusValue { try world.client.agentProperty(name) }

    private func setProperty(_ name: String, _ value: DBusValue) throws {
        _ = try world.client.call(destination: AgentProcess.busName, path: AgentProcess.path, interface: "org.freedesktop.DBus.Properties",
                                  member: "Set", arguments: [.string(AgentProcess.interface), .string(name), .variant(value)],
                                  timeoutMilliseconds: 10_000)
    }

    private func waitFor(_ name: String, _ value: DBusValue, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(TestSupport.wait(seconds: 15) { (try? self.property(name)) == value },
                      "\(what): \(name) is \(String(describing: try? self.property(name)))", file: file, line: line)
    }

    func testTheAnswersAfterAFocusPhase() throws {
        try world.call("StartFocus", [.string("Writing")])
        XCTAssertTrue(TestSupport.wait(seconds: 15) { self.world.timerNotifies.contains { $0.body.contains("Focus until ") } },
                      "the timer notification says the phase; wire: \(world.wire.output)")
        var notice = try nextPhaseEnd(after: 0)
        XCTAssertEqual(notice.summary, "Focus phase done")
        XCTAssertEqual(notice.body, "Time for a break from Writing.")
        XCTAssertEqual(notice.actionKeys, ["focus-start-break", "focus-more", "focus-skip-break"])
        XCTAssertEqual(notice.actions.map(\.label), ["Start break", "+5 min", "Skip break"])
        XCTAssertEqual(try property("FocusState"), .string("waiting"))

        try world.invoke(actionKey: "focus-start-break")
        waitFor("FocusState", .string("break"), "Start break")
        XCTAssertEqual(try world.state(), "paused", "the break pauses the session")

        try world.call("SkipPhase")
        notice = try nextPhaseEnd(after: 1)
        try world.invoke(actionKey: "focus-skip-break")
        waitFor("FocusState", .string("focus"), "Skip break")
        XCTAssertEqual(try world.state(), "running")
        XCTAssertEqual(try property("FocusCount"), .uint32(2))

        notice = try nextPhaseEnd(after: 2)
        XCTAssertEqual(try property("FocusCount"), .uint32(3))
        let before = Int64(Date().timeIntervalSince1970)
        try world.invoke(actionKey: "focus-more")
        waitFor("FocusState", .string("focus"), "+5 min")
        let ends = try XCTUnwrap(property("FocusEnds").int64Value)
        XCTAssertTrue((before + 5...before + 7).contains(ends), "five more minutes (seconds here): ends \(ends), asked at \(before)")
        XCTAssertEqual(try property("FocusCount"), .uint32(2), "counted again when it ends")
        _ = try nextPhaseEnd(after: 3)
        XCTAssertEqual(try property("FocusCount"), .uint32(3))
    }

    func testTheAnswersAfterABreak() throws {
        try setProperty("BreakMinutes", .uint32(1))
        try world.call("StartFocus", [.string("Writing")])
        _ = try nextPhaseEnd(after: 0)
        try world.call("SkipPhase") // the break starts, one second long
        var notice = try nextPhaseEnd(after: 1)
        XCTAssertEqual(notice.summary, "Break over")
        XCTAssertEqual(notice.body, "Back to Writing?")
        XCTAssertEqual(notice.actionKeys, ["focus-start-focus", "focus-more", "focus-stop"])
        XCTAssertEqual(notice.actions.map(\.label), ["Start focus", "+5 min", "Stop focus"])
        try world.invoke(actionKey: "focus-more")
        waitFor("FocusState", .string("break"), "+5 min after a break")
        XCTAssertEqual(try world.state(), "paused", "the break goes on")

        notice = try nextPhaseEnd(after: 2) // the five more minutes (seconds) are over
        try world.invoke(actionKey: "focus-start-focus")
        waitFor("FocusState", .string("focus"), "Start focus")
        XCTAssertEqual(try world.state(), "running", "the next focus resumes the session")

        _ = try nextPhaseEnd(after: 3)
        try world.call("SkipPhase")
        notice = try nextPhaseEnd(after: 4)
        try world.invoke(actionKey: "focus-stop")
        waitFor("FocusState", .string("off"), "Stop focus")
        XCTAssertEqual(try world.state(), "paused", "Stop focus leaves the session as it is")
    }
}
