import DBusKit
import Foundation
import TestSupport
import XCTest

/// Actions picked from dunst's menu (dunst emits the real ActionInvoked), reminders on a short
/// minute, and the weekly report notification.
final class ActionAndReminderTests: XCTestCase {
    /// Watches PropertiesChanged from the agent.
    private func propertiesMonitor(_ world: NotificationWorld) throws -> BusMonitor {
        let monitor = try BusMonitor(bus: world.bus,
                                     rule: "type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged'",
                                     output: world.output + "/properties-wire.txt")
        XCTAssertTrue(monitor.waitUntilListening())
        return monitor
    }

    private func changes(_ monitor: BusMonitor) -> [MonitoredMessage] {
        monitor.messages.filter { $0.member == "PropertiesChanged" }
    }

    /// Waits for the `count`th PropertiesChanged and returns it.
    private func waitForChange(_ monitor: BusMonitor, count: Int, file: StaticString = #filePath, line: UInt = #line) -> MonitoredMessage? {
        let seen = TestSupport.wait(seconds: 15) { changes(monitor).count >= count }
        XCTAssertTrue(seen, "expected \(count) PropertiesChanged, saw \(changes(monitor).count)", file: file, line: line)
        return seen ? changes(monitor)[count - 1] : nil
    }

    /// Pause, Resume and Stop from the notification do what the D-Bus methods do: the same new
    /// state, the same one PropertiesChanged, the same notification afterwards.
    func testActionsFromDunstChangeTheStateLikeTheMethods() throws {
        let world = try NotificationWorld("actions")
        defer { world.stop() }
        let properties = try propertiesMonitor(world)
        defer { properties.stop() }
        try world.call("CreateProject", [.string("Writing"), .string(""), .string("")])
        // CreateProject announces CanUndo (a new history step): counted from there.
        _ = try XCTUnwrap(waitForChange(properties, count: 1))
        let before = 1

        try world.call("StartProject", [.string("Writing")])
        _ = try XCTUnwrap(waitForChange(properties, count: before + 1))
        _ = try XCTUnwrap(world.waitForTimerNotify(count: 1))

        // The method, for reference.
        try world.call("Pause")
        let byMethod = try XCTUnwrap(waitForChange(properties, count: before + 2))
        _ = try XCTUnwrap(world.waitForTimerNotify(count: 2))
        try world.call("Resume")
        let resumedByMethod = try XCTUnwrap(waitForChange(properties, count: before + 3))
        _ = try XCTUnwrap(world.waitForTimerNotify(count: 3))
        usleep(300_000) // let dunst take the update before its menu is opened

        // Pause from the menu.
        try world.invoke(actionKey: "pause")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { (try? world.state()) == "paused" }, "Pause from the notification did not pause")
        let byAction = try XCTUnwrap(waitForChange(properties, count: before + 4))
        XCTAssertEqual(byAction.variantValue(forKey: "State"), "string \"paused\"")
        XCTAssertEqual(byAction.variantValue(forKey: "RunningSince"), "int64 0")
        XCTAssertEqual(byAction.variantValue(forKey: "State"), byMethod.variantValue(forKey: "State"))
        XCTAssertTrue(Set(byAction.dictionaryKeys).isSuperset(of: ["State", "RunningSince"]), "\(byAction.dictionaryKeys)")
        XCTAssertTrue(world.signals("ActionInvoked").contains { $0.text.contains("string \"pause\"") })
        let pausedNote = try XCTUnwrap(world.waitForTimerNotify(count: 4))
        XCTAssertEqual(pausedNote.actionKeys, ["default", "resume", "stop"])
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)
        usleep(300_000)

        // Resume from the menu.
        try world.invoke(actionKey: "resume")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { (try? world.state()) == "running" }, "Resume from the notification did not resume")
        let resumedByAction = try XCTUnwrap(waitForChange(properties, count: before + 5))
        XCTAssertEqual(resumedByAction.variantValue(forKey: "State"), resumedByMethod.variantValue(forKey: "State"))
        XCTAssertEqual(Set(resumedByAction.dictionaryKeys).intersection(["State", "RunningSince"]),
                       Set(resumedByMethod.dictionaryKeys).intersection(["State", "RunningSince"]))
        let resumedNote = try XCTUnwrap(world.waitForTimerNotify(count: 5))
        XCTAssertEqual(resumedNote.actionKeys, ["default", "pause", "stop"])
        usleep(300_000)

        // Stop from the menu: idle, the session completed, the timer notification closed by the
        // agent (dunst itself keeps a notification whose action was picked from its menu); what
        // stays is the short-lived "Stopped Writing" with its Undo (UndoNotificationTests).
        let session = try world.int64Property("SessionId")
        try world.invoke(actionKey: "stop")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { (try? world.state()) == "idle" }, "Stop from the notification did not stop")
        let stopped = try XCTUnwrap(waitForChange(properties, count: before + 6))
        XCTAssertEqual(stopped.variantValue(forKey: "State"), "string \"idle\"")
        XCTAssertEqual(stopped.variantValue(forKey: "SessionId"), "uint64 0")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { !world.calls("CloseNotification").isEmpty })
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)
        XCTAssertTrue(world.notifies(category: "string \"x-time-tracker.undo\"").last?.summary.hasPrefix("Stopped Writing · ") == true)
        let sessions = try world.call("ListSessions", [.uint64(0), .int64(0), .int64(Int64.max)])
        let listed = try XCTUnwrap(sessions.first?.arrayValue?.compactMap(\.variantDictionary))
        let completed = try XCTUnwrap(listed.first { $0["id"]?.uint64Value == UInt64(session) })
        XCTAssertEqual(completed["state"]?.stringValue, "completed")
        XCTAssertNotEqual(completed["end"]?.int64Value, 0)
        usleep(500_000)
        XCTAssertEqual(changes(properties).count, before + 6, "one PropertiesChanged per transition")
    }

    /// The timer notification's default action (`Open Time`) activates the window through the
    /// same function as the tray's Open Time: the bus starts the application (a real
    /// GApplication standing in for time-tracker) and it gets `Activate`. Without one installed,
    /// the agent says what to install and nothing else happens.
    func testDefaultActionOpensTheWindow() throws {
        var window: WindowStandIn?
        let world = try NotificationWorld("open-window", beforeAgent: { bus in
            try FileManager.default.createDirectory(atPath: bus.directory.file("window"), withIntermediateDirectories: true)
            window = try WindowStandIn(bus: bus, folder: bus.directory.file("window"))
        })
        defer { world.stop() }
        let standIn = try XCTUnwrap(window)
        try world.call("CreateProject", [.string("Writing"), .string(""), .string("")])
        try world.call("StartProject", [.string("Writing")])
        _ = try XCTUnwrap(world.waitForTimerNotify(count: 1))
        usleep(300_000) // let dunst take it before its menu is opened
        try world.invoke(actionKey: "default")
        XCTAssertTrue(TestSupport.wait(seconds: 20) { standIn.count == 1 }, "the default action did not activate the window")
        XCTAssertTrue(world.bus.hasOwner(WindowStandIn.applicationID), "started by D-Bus activation")
        XCTAssertEqual(try world.state(), "running", "opening the window changes nothing else")
    }

    func testDefaultActionWithoutAWindowSaysWhatToInstall() throws {
        let world = try NotificationWorld("no-window")
        defer { world.stop() }
        try world.call("CreateProject", [.string("Writing"), .string(""), .string("")])
        try world.call("StartProject", [.string("Writing")])
        _ = try XCTUnwrap(world.waitForTimerNotify(count: 1))
        usleep(300_000)
        try world.invoke(actionKey: "default")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { world.agent.logText.contains("cannot open Time's window") },
                      "no word about the missing window: \(world.agent.logText)")
        XCTAssertTrue(world.agent.logText.contains("time-tracker"), "the log names what to install: \(world.agent.logText)")
        XCTAssertEqual(try world.state(), "running")
    }

    /// ReminderMinutes = 2 with a one-second minute: a reminder after 2 s of active time naming
    /// the project and "2 min"; a pause postpones the next; "Stop" on it stops; 0 turns them off.
    func testRemindersFollowActiveTime() throws {
        let world = try NotificationWorld("reminders", environment: ["TIME_AGENT_MINUTE_SECONDS": "1"])
        defer { world.stop() }
        try world.call("CreateProject", [.string("Writing"), .string(""), .string("")])
        try world.setReminderMinutes(2)
        XCTAssertEqual(try world.client.agentProperty("ReminderMinutes").uint32Value, 2)

        let started = Date()
        try world.call("StartProject", [.string("Writing")])
        XCTAssertTrue(TestSupport.wait(seconds: 15) { world.reminderNotifies.count == 1 }, "no reminder after 2 s of active time")
        let reminded = Date().timeIntervalSince(started)
        XCTAssertGreaterThanOrEqual(reminded, 1.0, "the reminder came before 2 active seconds (second-granular start)")
        try world.call("Pause") // at once: about 2 active seconds, the next reminder is due at 4
        let atPause = try XCTUnwrap(try world.call("GetStatus").first?.variantDictionary)
        XCTAssertGreaterThanOrEqual(atPause["elapsed"]?.uint64Value ?? 0, 2, "the reminder came before 2 active seconds")
        let first = try XCTUnwrap(world.reminderNotifies.first)
        XCTAssertEqual(first.summary, "Writing: 2 min active")
        XCTAssertTrue(first.body.contains("Writing"), first.body)
        XCTAssertEqual(first.actionKeys, ["reminder-stop", "reminder-keep-going"])
        XCTAssertEqual(first.actions.map(\.label), ["Stop", "Keep going"])
        XCTAssertEqual(first.hint("desktop-entry"), "string \"io.github.timetracker.Time\"")

        // Paused: no reminder, however long (here 3.5 s, long past the unpaused due time).
        sleep(3)
        usleep(500_000)
        XCTAssertEqual(world.reminderNotifies.count, 1, "a reminder came while paused")
        XCTAssertEqual(try world.state(), "paused")

        // Resumed: the next one comes after the remaining active time, at "4 min".
        try world.call("Resume")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { world.reminderNotifies.count == 2 }, "no reminder after resuming")
        let atSecond = try XCTUnwrap(try world.call("GetStatus").first?.variantDictionary)
        XCTAssertGreaterThanOrEqual(atSecond["elapsed"]?.uint64Value ?? 0, 4, "the second reminder came before 4 active seconds")
        // 4 active seconds plus the 3.5 s pause (less a second of granularity): the pause postponed it.
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 6.0, "the pause did not postpone the reminder")
        let second = try XCTUnwrap(world.reminderNotifies.last)
        XCTAssertEqual(second.summary, "Writing: 4 min active")
        usleep(300_000)

        // "Keep going" changes nothing; "Stop" on the reminder stops the session.
        try world.invoke(actionKey: "reminder-keep-going")
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.signals("ActionInvoked").contains { $0.text.contains("reminder-keep-going") } })
        usleep(300_000)
        XCTAssertEqual(try world.state(), "running")
        try world.invoke(actionKey: "reminder-stop")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { (try? world.state()) == "idle" }, "Stop on the reminder did not stop the session")
        XCTAssertTrue(world.signals("ActionInvoked").contains { $0.text.contains("reminder-stop") })
        // Both go: the timer notification and the reminder, whose Stop would now do nothing.
        XCTAssertTrue(TestSupport.wait(seconds: 15) { world.calls("CloseNotification").count >= 2 },
                      "the timer notification or the reminder stayed: \(world.calls("CloseNotification").count) closed")

        // ReminderMinutes 0: none at all.
        try world.setReminderMinutes(0)
        let count = world.reminderNotifies.count
        try world.call("StartProject", [.string("Writing")])
        sleep(3)
        usleep(500_000)
        XCTAssertEqual(world.reminderNotifies.count, count, "a reminder with ReminderMinutes = 0")
        try world.call("Stop")
        XCTAssertTrue(world.agent.process.isRunning)
    }

    /// ShowWeeklyReport("") shows this week's totals per project as a notification.
    func testWeeklyReportNotification() throws {
        let world = try NotificationWorld("weekly-report")
        defer { world.stop() }
        let writing = try XCTUnwrap(try world.call("CreateProject", [.string("Writing"), .string(""), .string("")]).first?.uint64Value)
        let reading = try XCTUnwrap(try world.call("CreateProject", [.string("Reading"), .string(""), .string("")]).first?.uint64Value)

        // Two past sessions inside this week, whatever moment of the week the test runs at.
        let empty = try XCTUnwrap(try world.call("WeeklyReport", [.string(""), .string("json")]).first?.stringValue)
        let emptyJSON = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(empty.utf8)) as? [String: Any])
        let monday = try XCTUnwrap(emptyJSON["from"] as? String)
        let parser = DateFormatter()
        parser.locale = Locale(identifier: "en_US_POSIX")
        parser.timeZone = TimeZone(identifier: "Europe/Berlin")
        parser.dateFormat = "yyyy-MM-dd"
        let weekStart = Int64(try XCTUnwrap(parser.date(from: monday)).timeIntervalSince1970)
        let now = Int64(Date().timeIntervalSince1970)
        let start = max(weekStart + 1, now - 3 * 3600)
        let span = max(2, (now - 10 - start) / 2)
        try world.call("AddSession", [.uint64(writing), .int64(start), .string("\(span * 2 / 3)s"), .string("")])
        try world.call("AddSession", [.uint64(reading), .int64(start + span), .string("\(span / 2)s"), .string("")])

        try world.call("ShowWeeklyReport", [.string("")])
        XCTAssertTrue(TestSupport.wait(seconds: 15) { !world.notifies(category: NotificationWorld.reportCategory).isEmpty }, "no report notification")
        let shown = try XCTUnwrap(world.notifies(category: NotificationWorld.reportCategory).first)

        let json = try XCTUnwrap(try world.call("WeeklyReport", [.string(""), .string("json")]).first?.stringValue)
        let report = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let week = try XCTUnwrap(report["week"] as? String)
        let total = try XCTUnwrap((report["total"] as? NSNumber)?.int64Value)
        let projects = try XCTUnwrap(report["projects"] as? [[String: Any]])
        XCTAssertEqual(shown.summary, "Week \(week): \(clockDuration(total))")
        XCTAssertEqual(Set(projects.compactMap { $0["name"] as? String }), ["Writing", "Reading"])
        for project in projects {
            let name = try XCTUnwrap(project["name"] as? String)
            let seconds = try XCTUnwrap((project["total"] as? NSNumber)?.int64Value)
            XCTAssertTrue(shown.body.contains("\(name): \(clockDuration(seconds))"), "\(name) missing: \(shown.body)")
        }
        XCTAssertTrue(shown.body.contains("Total: \(clockDuration(total))"), shown.body)
        XCTAssertTrue(shown.body.contains(monday), "the week's dates: \(shown.body)")
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)
        XCTAssertTrue(world.timerNotifies.isEmpty, "no timer while idle")
    }
}
