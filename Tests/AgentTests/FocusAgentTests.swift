import DBusKit
import Foundation
import TestSupport
import XCTest

/// The focus timer through D-Bus on a real agent: every member of the contract's section, the one
/// timer ending a phase (minutes shortened to seconds by TIME_AGENT_MINUTE_SECONDS), a kill -9
/// mid-phase, undo, and no wake-ups while a phase runs.
final class FocusAgentTests: XCTestCase {
    private func waitFor(_ agent: AgentHarness, _ property: String, _ value: DBusValue, seconds: Double = 10,
                         file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try agent.property(property) == value { return }
            usleep(100_000)
        }
        XCTAssertEqual(try agent.property(property), value, "\(property) after \(seconds) s", file: file, line: line)
    }

    func testEveryMemberThroughDBus() throws {
        let agent = try AgentHarness(environment: ["TIME_AGENT_MINUTE_SECONDS": "1"])
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        XCTAssertEqual(try agent.property("FocusState"), .string("off"))
        XCTAssertEqual(try agent.property("FocusEnds"), .int64(0))
        XCTAssertEqual(try agent.property("FocusMinutes"), .uint32(25))
        XCTAssertEqual(try agent.property("BreakMinutes"), .uint32(5))
        XCTAssertEqual(try agent.property("LongBreakMinutes"), .uint32(15))
        XCTAssertEqual(try agent.property("LongBreakEvery"), .uint32(4))
        XCTAssertEqual(try agent.property("FocusAutoStart"), .bool(false))
        XCTAssertEqual(try agent.property("PauseInBreaks"), .bool(true))
        assertBusError(ContractError.invalidArgument, "SkipPhase when off") { try agent.call("SkipPhase") }
        assertBusError(ContractError.invalidArgument, "ExtendPhase when off") { try agent.call("ExtendPhase", [.uint32(5)]) }
        assertBusError(ContractError.noSuchProject, "StartFocus on nothing") { try agent.call("StartFocus", [.string("")]) }
        assertBusError(ContractError.invalidArgument, "FocusMinutes 0") { try agent.setProperty("FocusMinutes", .uint32(0)) }
        XCTAssertNoThrow(try agent.call("StopFocus"), "no cycle: no error")

        try agent.setProperty("FocusMinutes", .uint32(2))
        try agent.setProperty("BreakMinutes", .uint32(60))
        let before = unixNow()
        let session = try agent.call("StartFocus", [.string("Writing")]).first?.uint64Value
        XCTAssertNotNil(session)
        XCTAssertEqual(try agent.state(), "running")
        XCTAssertEqual(try agent.property("FocusState"), .string("focus"))
        let ends = try XCTUnwrap(agent.property("FocusEnds").int64Value)
        XCTAssertTrue((before + 2...unixNow() + 2).contains(ends), "ends \(ends), started at \(before)")
        assertBusError(ContractError.invalidArgument, "ExtendPhase 61") { try agent.call("ExtendPhase", [.uint32(61)]) }

        // The one timer ends the phase at its end: the next waits (FocusAutoStart off).
        try waitFor(agent, "FocusState", .string("waiting"))
        XCTAssertEqual(try agent.property("FocusEnds"), .int64(0))
        XCTAssertEqual(try agent.property("FocusCount"), .uint32(1))
        XCTAssertEqual(try agent.state(), "running", "the break has not started")
        try agent.call("SkipPhase")
        XCTAssertEqual(try agent.property("FocusState"), .string("break"))
        XCTAssertEqual(try agent.state(), "paused", "PauseInBreaks")
        let breakEnds = try XCTUnwrap(agent.property("FocusEnds").int64Value)
        try agent.call("ExtendPhase", [.uint32(5)])
        XCTAssertEqual(try agent.property("FocusEnds"), .int64(breakEnds + 5), "5 minutes of a second each")
        try agent.call("SkipPhase")
        XCTAssertEqual(try agent.property("FocusState"), .string("focus"))
        XCTAssertEqual(try agent.state(), "running")
        try agent.call("StopFocus")
        XCTAssertEqual(try agent.property("FocusState"), .string("off"))
        XCTAssertEqual(try agent.state(), "running", "StopFocus leaves the session alone")
        XCTAssertEqual(try agent.sessions().first?["id"]?.uint64Value, session)

        // Report json counts the phase with its session.
        let report = try XCTUnwrap(agent.call("Report", [.string(""), .vardict(["format": .string("json")])]).first?.stringValue)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        XCTAssertEqual(json["focus"] as? Int, 1)
        XCTAssertEqual((json["groups"] as? [[String: Any]])?.first?["focus"] as? Int, 1)
        agent.assertAlive()
    }

    func testAutoStartRunsTheCycleOnItsOwnAndStopEndsIt() throws {
        let agent = try AgentHarness(environment: ["TIME_AGENT_MINUTE_SECONDS": "1"])
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        try agent.setProperty("FocusAutoStart", .bool(true))
        try agent.setProperty("FocusMinutes", .uint32(1))
        try agent.setProperty("BreakMinutes", .uint32(1))
        try agent.setProperty("LongBreakEvery", .uint32(0))
        try agent.call("StartFocus", [.string("Writing")])
        try waitFor(agent, "FocusCount", .uint32(2), seconds: 15)
        try agent.call("Stop")
        XCTAssertEqual(try agent.property("FocusState"), .string("off"), "Stop ends the cycle")
        let segments = try XCTUnwrap(agent.sessions().first?["segments"]?.arrayValue)
        XCTAssertGreaterThanOrEqual(segments.count, 2, "the break paused the session: \(segments)")
    }

    func testKillNineMidPhaseCarriesOnWithTheSameEndAndUndoTakesItBack() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        try agent.setProperty("FocusMinutes", .uint32(50))
        XCTAssertEqual(try agent.property("CanUndo"), .string("Set focus phases to 50 minutes"))
        try agent.call("StartFocus", [.string("Writing")])
        let ends = try agent.property("FocusEnds")
        try agent.crashAndRestart()
        XCTAssertEqual(try agent.property("FocusState"), .string("focus"))
        XCTAssertEqual(try agent.property("FocusEnds"), ends, "the same end after kill -9")
        XCTAssertEqual(try agent.property("FocusMinutes"), .uint32(50))
        try agent.call("Undo")
        XCTAssertEqual(try agent.property("FocusState"), .string("off"), "StartFocus undone")
        XCTAssertEqual(try agent.state(), "idle")
        try agent.call("Undo")
        XCTAssertEqual(try agent.property("FocusMinutes"), .uint32(25), "the setting undone")
    }

    /// Nothing ticks while a phase runs: one timer for its end, 25 minutes away.
    func testNoWakeUpsInAMinuteWhileAPhaseRunsWithNoTrayHost() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        try agent.call("StartFocus", [.string("Writing")])
        XCTAssertEqual(try agent.property("FocusState"), .string("focus"))
        usleep(500_000)
        let before = voluntaryContextSwitches(of: agent.agent.pid)
        sleep(60)
        let after = voluntaryContextSwitches(of: agent.agent.pid)
        XCTAssertEqual(after.total, before.total, "the agent woke up during a focus phase: before \(before.threads), after \(after.threads)")
    }
}
