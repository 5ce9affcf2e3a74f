import DBusKit
import Foundation
import TestSupport
import TimeCore
import XCTest

/// The nudges, with the real agent and dunst: the not-tracking reminder follows Presence (the
/// fake logind and Mutter of the away tests, on a private system bus), and a weekly target
/// reached is announced once a week, not again after a restart. Minutes last one second here
/// (TIME_AGENT_MINUTE_SECONDS); nothing waits for real minutes.
final class NudgeNotificationTests: XCTestCase {
    private var system: PrivateBus!
    private var helper: Process?
    private var desk: BusConnection!
    private var world: NotificationWorld!

    override func tearDown() {
        world?.stop()
        desk?.close()
        if let helper { Command.stop(helper) }
        system?.stop()
    }

    /// A world whose data holds "Writing" with one finished session (the last project), and the
    /// fake desktop on a private system bus, started before the agent.
    private func start(_ label: String) throws {
        system = try PrivateBus()
        desk = try system.connect()
        let systemAddress = system.address
        world = try NotificationWorld(label, environment: ["TIME_AGENT_MINUTE_SECONDS": "1", "DBUS_SYSTEM_BUS_ADDRESS": systemAddress],
                                      beforeAgent: { bus in
            let log = NSTemporaryDirectory() + "/time-nudge-desktop-\(getpid()).log"
            self.helper = try Command.start(Products.fakeDesktop, [], environment: bus.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": systemAddress]) { $1 },
                                            log: log)
            guard TestSupport.wait(seconds: 10, { (try? self.desk.nameHasOwner("io.github.timetracker.TestDesktop")) == true }) else {
                throw FixtureError("the fake desktop did not start")
            }
        }, prepareData: { folder in
            let home = try DataHome(directory: folder)
            let writing = try home.tracker.createProject(name: "Writing", color: "", category: "")
            try home.tracker.addSession(project: writing, start: Int64(Date().timeIntervalSince1970) - 7200, duration: "1h", note: "")
            home.tracker.tidyUp()
        })
        XCTAssertTrue(TestSupport.wait(seconds: 10) { self.inhibitorsHeld() == 1 }, "the agent follows the fake logind")
    }

    private func inhibitorsHeld() -> UInt32 {
        (try? fake("Inhibitors"))?.first?.uint32Value ?? 99
    }

    @discardableResult
    private func fake(_ method: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try desk.call(destination: "io.github.timetracker.TestDesktop", path: "/io/github/timetracker/TestDesktop",
                      interface: "io.github.timetracker.TestDesktop", member: method, arguments: arguments, timeoutMilliseconds: 10_000)
    }

    private var untracked: [NotifyCall] { world.reminderNotifies.filter { $0.summary == "Not tracking" } }

    /// Waits for the next not-tracking reminder; returns how long it took.
    private func nextReminder(after count: Int, _ what: String, file: StaticString = #filePath, line: UInt = #line) -> Double {
        let begin = Date()
        XCTAssertTrue(TestSupport.wait(seconds: 15) { self.untracked.count > count }, "no not-tracking reminder \(what)", file: file, line: line)
        return Date().timeIntervalSince(begin)
    }

    func testTheNotTrackingReminderFollowsPresence() throws {
        try start("untracked")
        try world.client.setAgentProperty("UntrackedReminderMinutes", .uint32(2))
        // Two minutes (seconds here) at the desk: the reminder, not before.
        XCTAssertGreaterThanOrEqual(nextReminder(after: 0, "after two minutes at the desk"), 1.5, "it came before two minutes")
        let first = try XCTUnwrap(untracked.first)
        XCTAssertEqual(first.actionKeys, ["untracked-continue", "untracked-start"])
        XCTAssertEqual(first.actions.map(\.label), ["Continue Writing", "Start…"])
        XCTAssertTrue(first.body.contains("no timer running"), first.body)
        XCTAssertEqual(first.hint("desktop-entry"), "string \"io.github.timetracker.Time\"")

        // Locked: none, however long.
        try fake("SetLocked", [.bool(true)])
        usleep(300_000)
        var count = untracked.count
        sleep(4)
        XCTAssertEqual(untracked.count, count, "a reminder while the screen was locked")
        // Back: the minutes count again from the return.
        try fake("SetLocked", [.bool(false)])
        XCTAssertGreaterThanOrEqual(nextReminder(after: count, "after the return"), 1.5, "it came before two minutes back at the desk")

        // Idle (Mutter's watch): none; input again: the minutes count from there.
        try fake("FireIdle")
        usleep(300_000)
        count = untracked.count
        sleep(3)
        XCTAssertEqual(untracked.count, count, "a reminder while idle")
        try fake("FireActive")
        XCTAssertGreaterThanOrEqual(nextReminder(after: count, "after input again"), 1.5)

        // A session open: none; it is closed when the session starts.
        let closes = world.calls("CloseNotification").count
        try world.call("StartProject", [.string("Writing")])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { self.world.calls("CloseNotification").count > closes }, "the reminder closes when a session opens")
        count = untracked.count
        sleep(4)
        XCTAssertEqual(untracked.count, count, "a not-tracking reminder while a session runs")
        try world.call("Stop")
        XCTAssertGreaterThanOrEqual(nextReminder(after: count, "after the session stopped"), 1.5)

        // Its action continues the last project, through the same function as the tray's entry.
        try world.invoke(actionKey: "untracked-continue")
        XCTAssertTrue(TestSupport.wait(seconds: 10) { (try? self.world.state()) == "running" }, "Continue Writing started it")
        XCTAssertEqual(try world.client.agentProperty("Project").stringValue, "Writing")
        try world.call("Stop")
        try world.client.setAgentProperty("UntrackedReminderMinutes", .uint32(0))
        count = untracked.count
        sleep(3)
        XCTAssertEqual(untracked.count, count, "off means off")
    }

    /// The overall target and a project's, each announced once when reached (by the running
    /// timer: one timer set for the moment), and not again after a restart in the same week; the
    /// timer notification shows the week against the target.
    func testAWeeklyTargetReachedIsAnnouncedOnceAWeek() throws {
        try start("targets")
        // A few seconds beyond this week's time so far (the history's hour, when it fell in this week).
        let week = try XCTUnwrap(try world.call("GetStatus").first?.variantDictionary?["week"]?.uint64Value)
        func clock(_ seconds: UInt64) -> String { "\(seconds / 3600):\(seconds / 60 % 60 < 10 ? "0" : "")\(seconds / 60 % 60)" }
        try world.client.setAgentProperty("WeeklyTarget", .uint64(week + 4))
        try world.call("UpdateProject", [.uint64(1), .vardict(["weekly_target": .uint64(week + 2)])])
        try world.call("StartProject", [.string("Writing")])
        let timer = try XCTUnwrap(world.waitForTimerNotify(count: 1))
        XCTAssertTrue(timer.body.contains("Week \(clock(week)) of \(clock(week + 4)) at "), "the week against its target: \(timer.body)")
        let targets = { self.world.notifies(category: "string \"x-time-tracker.target\"") }
        XCTAssertTrue(TestSupport.wait(seconds: 15) { targets().count == 2 }, "both targets announced: \(targets().map(\.summary))")
        XCTAssertEqual(Set(targets().map(\.summary)), ["Writing: weekly target of \(clock(week + 2)) reached", "Weekly target of \(clock(week + 4)) reached"])
        try world.call("Stop")
        sleep(2)
        XCTAssertEqual(targets().count, 2, "once a week")

        world.agent.terminate()
        world.agent = try AgentProcess(bus: world.bus, dataDirectory: world.data.file("data"), arguments: [],
                                       environment: ["TIME_AGENT_MINUTE_SECONDS": "1", "DBUS_SYSTEM_BUS_ADDRESS": system.address])
        try world.call("StartProject", [.string("Writing")])
        sleep(3)
        XCTAssertEqual(targets().count, 2, "not again after a restart in the same week")
    }
}

extension BusConnection {
    func setAgentProperty(_ name: String, _ value: DBusValue) throws {
        _ = try call(destination: AgentProcess.busName, path: AgentProcess.path, interface: "org.freedesktop.DBus.Properties", member: "Set",
                     arguments: [.string(AgentProcess.interface), .string(name), .variant(value)], timeoutMilliseconds: 10_000)
    }
}
