import DBusKit
import Foundation
import TestSupport
import TimeCore
import XCTest

/// The return notification under dunst: its words, its three answers picked from dunst's menu
/// (a real ActionInvoked), and its return after a restart while unanswered.
final class AwayNotificationTests: XCTestCase {
    static let awayCategory = "string \"x-time-tracker.away\""

    private final class Then: TimeCore.Clock {
        let time: Int64
        init(_ time: Int64) { self.time = time }
        func now() -> Int64 { time }
    }

    /// A session of Writing running for an hour when the agent starts.
    private func world(_ label: String) throws -> (NotificationWorld, Int64) {
        let start = Int64(Date().timeIntervalSince1970) - 3600
        let world = try NotificationWorld(label, prepareData: { folder in
            let home = try DataHome(directory: folder, clock: Then(start))
            try home.tracker.createProject(name: "Writing", color: "", category: "")
            try home.tracker.startProject("Writing")
            home.tracker.tidyUp()
        })
        return (world, start)
    }

    private func awayNotifies(_ world: NotificationWorld) -> [NotifyCall] { world.notifies(category: Self.awayCategory) }

    private func segments(_ world: NotificationWorld) throws -> [[Int64]] {
        let reply = try world.call("ListSessions", [.uint64(0), .int64(0), .int64(Int64.max)])
        let list = reply.first?.arrayValue?.first?.variantDictionary?["segments"]?.arrayValue ?? []
        return list.compactMap { if case .structure(let f) = $0 { f.compactMap(\.int64Value) } else { nil } }
    }

    private func pendingCount(_ world: NotificationWorld) -> Int {
        (try? world.client.agentProperty("PendingAway"))?.arrayValue?.count ?? -1
    }

    func testTheReturnNotificationAndDiscardFromDunst() throws {
        let (world, start) = try world("away-discard")
        defer { world.stop() }
        try world.call("MarkAway", [.string("lock"), .uint32(42 * 60)])
        let left = try world.int64Property("AwaySince")
        try world.call("MarkBack")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { awayNotifies(world).count == 1 }, "no return notification; wire: \(world.wire.output)")
        let note = try XCTUnwrap(awayNotifies(world).first)
        let span = try XCTUnwrap(world.client.agentProperty("PendingAway").arrayValue?.first)
        guard case .structure(let fields) = span else { return XCTFail("PendingAway item \(span)") }
        let back = fields[2].int64Value ?? 0
        XCTAssertEqual(note.summary, "Away 42 min")
        XCTAssertEqual(note.body, "Writing kept running \(berlinClock(left))–\(berlinClock(back)) (screen locked)")
        XCTAssertEqual(note.actions.map(\.label), ["Keep", "Discard", "Stop at \(berlinClock(left))"])
        XCTAssertEqual(note.actionKeys, ["away-keep-1", "away-discard-1", "away-stop-1"])
        XCTAssertEqual(note.hint("desktop-entry"), "string \"io.github.timetracker.Time\"")
        XCTAssertEqual(world.displayed(settlingOn: 2), 2, "the timer and the return notification")
        try? world.desktop?.screenshot(to: world.output + "/away.png")
        usleep(300_000)

        try world.invoke(actionKey: "away-discard-1")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { pendingCount(world) == 0 }, "Discard from the notification answered nothing")
        XCTAssertTrue(world.signals("ActionInvoked").contains { $0.text.contains("string \"away-discard-1\"") })
        XCTAssertEqual(try segments(world), [[start, left], [back, 0]], "the span is cut out; the timer keeps running")
        XCTAssertEqual(try world.state(), "running")
    }

    /// Unanswered: still counted, and shown again by the next agent; Stop from it ends the session there.
    func testAnUnansweredSpanIsShownAgainAfterARestartAndStopFromIt() throws {
        let (world, start) = try world("away-restart")
        defer { world.stop() }
        try world.call("MarkAway", [.string("idle"), .uint32(600)])
        let left = try world.int64Property("AwaySince")
        try world.call("MarkBack")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { awayNotifies(world).count == 1 })
        XCTAssertEqual(try segments(world), [[start, 0]], "unanswered time stays counted")

        world.agent.terminate()
        world.agent = try AgentProcess(bus: world.bus, dataDirectory: world.data.file("data"), arguments: [])
        XCTAssertTrue(TestSupport.wait(seconds: 15) { awayNotifies(world).count == 2 }, "not shown again after the restart")
        XCTAssertEqual(awayNotifies(world).last?.body.hasSuffix("(no input)"), true)
        XCTAssertEqual(pendingCount(world), 1)
        usleep(300_000)

        try world.invoke(actionKey: "away-stop-1")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { (try? world.state()) == "idle" }, "Stop at … from the notification did not stop")
        XCTAssertEqual(try segments(world), [[start, left]])
        XCTAssertEqual(pendingCount(world), 0)
    }
}
