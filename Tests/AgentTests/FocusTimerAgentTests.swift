import DBusKit
import Foundation
import TestSupport
import XCTest

/// The agent's one focus timer on a real agent, where it must follow what happens: a correction
/// over D-Bus moves the phase's end at once (and the timer with it), Undo of a correction, the
/// storage refusing a phase's end (tried again, the phase ending once it can), and FocusCount going
/// back to 0 at local midnight (a zone whose midnight is seconds away; nobody waits for midnight).
/// Minutes last a second (TIME_AGENT_MINUTE_SECONDS=1), so phases end within seconds.
final class FocusTimerAgentTests: XCTestCase {
    private let fast = ["TIME_AGENT_MINUTE_SECONDS": "1"]

    private func waitFor(_ agent: AgentHarness, _ property: String, _ value: DBusValue, seconds: Double = 10,
                         file: StaticString = #filePath, line: UInt = #line) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try agent.property(property) == value { return }
            usleep(50_000)
        }
        XCTAssertEqual(try agent.property(property), value, "\(property) after \(seconds) s", file: file, line: line)
    }

    /// Sleeps until the wall clock reads at least `time` (Unix seconds).
    private func sleep(until time: Int64) {
        while unixNow() < time { usleep(50_000) }
    }

    private func announced(_ recorder: PropertiesChangedRecorder) -> [String: DBusValue] {
        recorder.take(atLeast: 1).reduce(into: [:]) { all, signal in all.merge(signal) { $1 } }
    }

    private func reportFocus(_ agent: AgentHarness, _ range: String) throws -> Int? {
        let text = try XCTUnwrap(agent.call("Report", [.string(range), .vardict(["format": .string("json")])]).first?.stringValue)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return json["focus"] as? Int
    }

    // MARK: Corrections

    func testPauseAtAndResumeAtMoveThePhaseEndAndItsTimerAtOnce() throws {
        let agent = try AgentHarness(environment: fast)
        defer { agent.tearDown() }
        let recorder = try PropertiesChangedRecorder(bus: agent.bus)
        defer { recorder.close() }
        try agent.createProject("Writing")
        try agent.setProperty("FocusMinutes", .uint32(8))             // 8 s
        try agent.call("StartFocus", [.string("Writing")])
        let ends = try XCTUnwrap(agent.property("FocusEnds").int64Value)
        let start = ends - 8
        sleep(until: start + 2)
        _ = recorder.take(atLeast: 0, quiet: 0.05)

        try agent.call("PauseAt", [.int64(start + 1)])                  // 7 s of the phase left
        var changed = announced(recorder)
        XCTAssertEqual(changed["State"], .string("paused"))
        XCTAssertEqual(try agent.property("FocusState"), .string("focus"), "the phase pauses with the session")

        sleep(until: start + 4)
        try agent.call("ResumeAt", [.int64(start + 3)])                 // back at +3: 7 s left, ends at +10
        changed = announced(recorder)
        XCTAssertEqual(changed["State"], .string("running"))
        XCTAssertEqual(changed["FocusEnds"], .int64(start + 10), "announced with the correction: \(changed)")

        // The one timer moved with it: the phase ends at +10, not at its first end (+8).
        sleep(until: start + 9)
        XCTAssertEqual(try agent.property("FocusState"), .string("focus"), "still running a second before its new end")
        try waitFor(agent, "FocusState", .string("waiting"), seconds: 5)
        XCTAssertGreaterThanOrEqual(unixNow(), start + 10)
        XCTAssertEqual(try agent.property("FocusCount"), .uint32(1))
        agent.assertAlive()
    }

    func testStopAtEndsTheCycleAndNoTimerIsLeftBehind() throws {
        let agent = try AgentHarness(environment: fast)
        defer { agent.tearDown() }
        let recorder = try PropertiesChangedRecorder(bus: agent.bus)
        defer { recorder.close() }
        try agent.createProject("Writing")
        try agent.setProperty("FocusMinutes", .uint32(4))
        try agent.call("StartFocus", [.string("Writing")])
        let ends = try XCTUnwrap(agent.property("FocusEnds").int64Value)
        sleep(until: ends - 3)
        _ = recorder.take(atLeast: 0, quiet: 0.05)
        try agent.call("StopAt", [.int64(ends - 3)])
        let changed = announced(recorder)
        XCTAssertEqual(changed["FocusState"], .string("off"), "\(changed)")
        XCTAssertEqual(changed["FocusEnds"], .int64(0))
        XCTAssertEqual(changed["State"], .string("idle"))
        sleep(until: ends + 2)
        XCTAssertEqual(try agent.property("FocusState"), .string("off"), "the phase's old end passed and nothing came back")
        XCTAssertEqual(try agent.property("FocusCount"), .uint32(0))
        XCTAssertEqual(try reportFocus(agent, "today"), 0, "a phase cut short by StopAt is not counted")
    }

    func testUndoOfAPauseAtBringsThePhaseBackWithItsTimer() throws {
        let agent = try AgentHarness(environment: fast)
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        try agent.setProperty("FocusMinutes", .uint32(5))
        try agent.call("StartFocus", [.string("Writing")])
        let ends = try XCTUnwrap(agent.property("FocusEnds").int64Value)
        sleep(until: ends - 4)
        try agent.call("PauseAt", [.int64(ends - 4)])
        XCTAssertEqual(try agent.state(), "paused")
        try agent.call("Undo")
        XCTAssertEqual(try agent.state(), "running")
        XCTAssertEqual(try agent.property("FocusEnds"), .int64(ends), "the phase's end as before the pause")
        try waitFor(agent, "FocusState", .string("waiting"), seconds: 8)
        XCTAssertGreaterThanOrEqual(unixNow(), ends)
        XCTAssertEqual(try agent.property("FocusCount"), .uint32(1))
    }

    /// A person pauses during a focus phase, then starts another project: tracking again, the
    /// phase goes on (it used to stay paused with the old session, its timer never set again).
    func testStartingAnotherProjectContinuesAPausedPhase() throws {
        let agent = try AgentHarness(environment: fast)
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        try agent.createProject("Reading")
        try agent.setProperty("FocusMinutes", .uint32(4))
        try agent.call("StartFocus", [.string("Writing")])
        let ends = try XCTUnwrap(agent.property("FocusEnds").int64Value)
        sleep(until: ends - 3)
        try agent.call("PauseAt", [.int64(ends - 3)])                   // 3 s of the phase left
        sleep(until: ends - 1)
        try agent.call("StartProjectAt", [.string("Reading"), .int64(ends - 1), .vardict([:])])
        XCTAssertEqual(try agent.property("FocusEnds"), .int64(ends + 2), "3 s left from the new start")
        try waitFor(agent, "FocusState", .string("waiting"), seconds: 6)
        XCTAssertGreaterThanOrEqual(unixNow(), ends + 2)
        let text = try XCTUnwrap(agent.call("Report", [.string("today"), .vardict(["format": .string("json")])]).first?.stringValue)
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let groups = try XCTUnwrap(json["groups"] as? [[String: Any]])
        XCTAssertEqual(groups.first { $0["name"] as? String == "Reading" }?["focus"] as? Int, 1, "counted with the session open at its end")
    }

    /// The phase's end passes while no agent runs: the next agent ends it at once, at its end.
    func testAPhaseThatEndedWhileTheAgentWasStoppedEndsAtTheNextStart() throws {
        let agent = try AgentHarness(environment: fast)
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        try agent.setProperty("FocusMinutes", .uint32(2))
        try agent.call("StartFocus", [.string("Writing")])
        let ends = try XCTUnwrap(agent.property("FocusEnds").int64Value)
        agent.stopAgent()
        sleep(until: ends + 2)
        try agent.restart()
        try waitFor(agent, "FocusState", .string("waiting"), seconds: 3)
        XCTAssertEqual(try agent.property("FocusCount"), .uint32(1))
        XCTAssertEqual(try agent.state(), "running", "the break waits for the person (FocusAutoStart off)")
        XCTAssertEqual(try reportFocus(agent, "today"), 1)
    }

    // MARK: The storage refusing

    func testAPhaseEndTheStorageRefusesIsTriedAgainAndEndsOnceItCan() throws {
        let agent = try AgentHarness(environment: fast)
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        try agent.setProperty("FocusMinutes", .uint32(2))
        try agent.call("StartFocus", [.string("Writing")])
        let ends = try XCTUnwrap(agent.property("FocusEnds").int64Value)

        // The snapshot folder becomes a plain file: no change can be made durable.
        let snapshots = agent.dataDirectory + "/snapshots"
        try FileManager.default.moveItem(atPath: snapshots, toPath: snapshots + ".aside")
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: snapshots))
        sleep(until: ends + 1)
        usleep(500_000)
        let before = voluntaryContextSwitches(of: agent.agent.pid)
        sleep(until: ends + 4)
        let after = voluntaryContextSwitches(of: agent.agent.pid)
        XCTAssertEqual(try agent.property("FocusState"), .string("focus"), "the refused end changed nothing")
        XCTAssertEqual(try agent.property("FocusCount"), .uint32(0))
        // A try a (1-second) minute: a handful of wake-ups in 3 s, never a spin.
        XCTAssertLessThan(after.total - before.total, 100, "the agent spun on the refused end: \(after.threads)")
        agent.assertAlive("after refused phase ends")

        try FileManager.default.removeItem(atPath: snapshots)
        try FileManager.default.moveItem(atPath: snapshots + ".aside", toPath: snapshots)
        try waitFor(agent, "FocusState", .string("waiting"), seconds: 5)
        XCTAssertEqual(try agent.property("FocusCount"), .uint32(1))
        XCTAssertEqual(try reportFocus(agent, "today"), 1)
        try agent.crashAndRestart()
        XCTAssertEqual(try agent.property("FocusState"), .string("waiting"), "the late end is durable")
        XCTAssertEqual(try agent.property("FocusCount"), .uint32(1))
    }

    // MARK: Midnight

    /// A POSIX zone (`ZZZ-h:mm:ss`: east of UTC) in which the next local midnight is `seconds` away.
    static func zone(midnightIn seconds: Int64, now: Int64) -> String {
        var offset = ((86_400 - seconds - now % 86_400) % 86_400 + 86_400) % 86_400  // local = UTC + offset
        if offset > 43_200 { offset -= 86_400 }
        let size = abs(offset)
        let text = String(format: "%d:%02d:%02d", size / 3600, size % 3600 / 60, size % 60)
        return "ZZZ" + (offset >= 0 ? "-" : "+") + text  // POSIX writes an offset east of UTC negative
    }

    func testFocusCountGoesBackToZeroAtLocalMidnight() throws {
        let now = unixNow(), midnight = now + 10
        let agent = try AgentHarness(environment: fast.merging(["TZ": Self.zone(midnightIn: 10, now: now)]) { $1 })
        defer { agent.tearDown() }
        let recorder = try PropertiesChangedRecorder(bus: agent.bus)
        defer { recorder.close() }
        try agent.createProject("Writing")
        try agent.setProperty("FocusMinutes", .uint32(1))
        try agent.call("StartFocus", [.string("Writing")])
        try waitFor(agent, "FocusCount", .uint32(1), seconds: 4)
        XCTAssertLessThan(unixNow(), midnight, "the phase ended before midnight (the set-up took too long)")
        XCTAssertEqual(try reportFocus(agent, "today"), 1)
        _ = recorder.take(atLeast: 0, quiet: 0.05)

        // Nothing is called: only the agent's midnight timer can announce the new day's 0.
        recorder.pump(seconds: Double(max(0, midnight - unixNow())) + 3)
        let changes = recorder.take(atLeast: 0, quiet: 0.05).compactMap { $0["FocusCount"] }
        XCTAssertEqual(changes, [.uint32(0)], "one PropertiesChanged with FocusCount 0 after midnight")
        XCTAssertGreaterThanOrEqual(unixNow(), midnight)
        XCTAssertEqual(try agent.property("FocusCount"), .uint32(0))
        XCTAssertEqual(try reportFocus(agent, "yesterday"), 1, "the phase still counts on its own day")
        XCTAssertEqual(try reportFocus(agent, "today"), 0)
        agent.assertAlive()
    }
}
