import DBusKit
import Foundation
import TestSupport
import XCTest

/// The timer notification of the real agent, shown by a real dunst on a private bus and read
/// back from the wire (dbus-monitor) and from dunst itself (dunstctl).
final class TimerNotificationTests: XCTestCase {
    private func makeProjects(_ world: NotificationWorld) throws {
        try world.call("AddCategory", [.string("Work")])
        try world.call("CreateProject", [.string("Writing"), .string(""), .string("Work")])
        try world.call("CreateProject", [.string("Reading"), .string(""), .string("")])
    }

    private func checkTimerHints(_ call: NotifyCall, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(call.appName, "Time", file: file, line: line)
        XCTAssertEqual(call.appIcon, "io.github.timetracker.Time", "Time's own icon", file: file, line: line)
        XCTAssertEqual(call.hint("urgency"), "byte 0", "low urgency", file: file, line: line)
        XCTAssertEqual(call.hint("resident"), "boolean true", file: file, line: line)
        XCTAssertEqual(call.hint("desktop-entry"), "string \"io.github.timetracker.Time\"", file: file, line: line)
        XCTAssertEqual(call.hint("category"), NotificationWorld.timerCategory, file: file, line: line)
        XCTAssertEqual(call.expireTimeout, 0, "the timer never expires", file: file, line: line)
    }

    /// Appearance, in-place updates on pause, project switch and note, close on stop; one timer
    /// notification displayed all along.
    func testAppearsUpdatesInPlaceAndClosesOnStop() throws {
        let world = try NotificationWorld("appearance")
        defer { world.stop() }
        try makeProjects(world)
        XCTAssertEqual(world.timerNotifies.count, 0, "nothing to show while idle")

        // Start: exactly one Notify, a new notification.
        try world.call("StartProject", [.string("Writing")])
        let first = try XCTUnwrap(world.waitForTimerNotify(count: 1))
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)
        usleep(700_000)
        XCTAssertEqual(world.timerNotifies.count, 1, "one state change, one Notify")
        let runningSince = try world.int64Property("RunningSince")
        XCTAssertEqual(first.replacesID, 0, "the first Notify creates the notification")
        XCTAssertEqual(first.summary, "Writing · Work")
        XCTAssertEqual(first.body, "Running since \(berlinClock(runningSince))")
        XCTAssertEqual(first.actionKeys, ["default", "pause", "stop"])
        XCTAssertEqual(first.actions.map(\.label), ["Open Time", "Pause", "Stop"])
        checkTimerHints(first)

        // Pause: the same notification, now offering Resume.
        try world.call("Pause")
        let paused = try XCTUnwrap(world.waitForTimerNotify(count: 2))
        let id = paused.replacesID
        XCTAssertNotEqual(id, 0, "an update reuses the notification's id")
        XCTAssertEqual(paused.summary, "Writing · Work")
        let pausedAt = try world.int64Property("SessionStart") + world.int64Property("ActiveSeconds")
        XCTAssertTrue(paused.body.hasPrefix("Paused since \(berlinClock(pausedAt))"), paused.body)
        XCTAssertEqual(paused.actionKeys, ["default", "resume", "stop"])
        XCTAssertEqual(paused.actions.map(\.label), ["Open Time", "Resume", "Stop"])
        checkTimerHints(paused)
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)

        // Another project: the open session is completed, the same notification shows the new one.
        try world.call("StartProject", [.string("Reading")])
        let switched = try XCTUnwrap(world.waitForTimerNotify(count: 3))
        XCTAssertEqual(switched.replacesID, id)
        XCTAssertEqual(switched.summary, "Reading")
        XCTAssertEqual(switched.body, "Running since \(berlinClock(try world.int64Property("RunningSince")))")
        XCTAssertEqual(switched.actionKeys, ["default", "pause", "stop"])
        checkTimerHints(switched)
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)

        // A note: in place again, the note in the body.
        try world.call("AddNote", [.string("chapter 3 notes")])
        let noted = try XCTUnwrap(world.waitForTimerNotify(count: 4))
        XCTAssertEqual(noted.replacesID, id)
        XCTAssertTrue(noted.body.hasSuffix("\nchapter 3 notes"), noted.body)
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)

        // Stop: CloseNotification of that id; one notification in history, and displayed only
        // the short-lived "Stopped …" with its Undo (UndoNotificationTests).
        try world.call("Stop")
        XCTAssertTrue(TestSupport.wait(seconds: 15) { !world.calls("CloseNotification").isEmpty }, "no CloseNotification")
        let close = try XCTUnwrap(world.calls("CloseNotification").first)
        XCTAssertEqual(close.lines.first?.trimmingCharacters(in: .whitespaces), "uint32 \(id)")
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)
        XCTAssertEqual(world.notifies(category: "string \"x-time-tracker.undo\"").count, 1)
        XCTAssertEqual(world.desktop?.count("history"), 1, "exactly one timer notification all along")
        usleep(500_000)
        XCTAssertEqual(world.timerNotifies.count, 4, "no Notify after Stop")
        XCTAssertEqual(world.calls("CloseNotification").count, 1)
    }

    /// A notification the user dismissed comes back, as a new one, at the next state change.
    func testDismissedNotificationReturnsAtNextChange() throws {
        let world = try NotificationWorld("dismissed")
        defer { world.stop() }
        try makeProjects(world)
        try world.call("StartProject", [.string("Writing")])
        let first = try XCTUnwrap(world.waitForTimerNotify(count: 1))
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)

        _ = try world.desktop!.dunstctl(["close"])
        XCTAssertEqual(world.displayed(settlingOn: 0), 0)
        XCTAssertTrue(TestSupport.wait(seconds: 10) { !world.signals("NotificationClosed").isEmpty }, "dunst announced no NotificationClosed")
        usleep(300_000)
        XCTAssertEqual(world.timerNotifies.count, 1, "dismissing is not a state change")

        try world.call("Pause")
        let back = try XCTUnwrap(world.waitForTimerNotify(count: 2))
        XCTAssertEqual(back.replacesID, 0, "a dismissed notification is not updated, it is shown anew")
        XCTAssertEqual(back.summary, first.summary)
        XCTAssertEqual(back.actionKeys, ["default", "resume", "stop"])
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)

        // ... and from then on it is updated in place again.
        try world.call("Resume")
        let resumed = try XCTUnwrap(world.waitForTimerNotify(count: 3))
        XCTAssertNotEqual(resumed.replacesID, 0)
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)
    }

    /// A project name and a note full of markup show literally: plain summary, escaped body.
    func testMarkupInUserTextIsShownLiterally() throws {
        let world = try NotificationWorld("escaping")
        defer { world.stop() }
        let nasty = #"<b>Bold & "quoted"</b>"#
        let escaped = "&lt;b&gt;Bold &amp; &quot;quoted&quot;&lt;/b&gt;"
        try world.call("CreateProject", [.string(nasty), .string(""), .string("")])
        try world.call("StartProject", [.string(nasty)])
        try world.call("AddNote", [.string(nasty)])
        XCTAssertTrue(TestSupport.wait(seconds: 15) { world.timerNotifies.contains { $0.body.contains("quoted") } })
        let call = try XCTUnwrap(world.timerNotifies.last)
        XCTAssertEqual(call.summary, nasty, "the summary is plain text everywhere: sent as is")
        XCTAssertTrue(call.body.hasSuffix("\n" + escaped), "dunst has body-markup: the note is escaped: \(call.body)")
        XCTAssertFalse(call.body.contains("<b>"), call.body)
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)

        usleep(500_000) // let dunst draw
        let shot = world.output + "/escaping.png"
        try world.desktop!.screenshot(to: shot)
        XCTAssertGreaterThan(try imageColourCount(shot), 1, "blank screenshot: \(shot)")
        _ = try Command.run("convert", [shot, "-trim", "+repage", "-bordercolor", "black", "-border", "12",
                                        world.output + "/escaping-cropped.png"])

        // What dunst made of it: its history keeps the text it displayed.
        _ = try world.desktop!.dunstctl(["close"])
        XCTAssertEqual(world.displayed(settlingOn: 0), 0)
        let history = try world.desktop!.dunstctl(["history"]).stdout
        try history.write(toFile: world.output + "/history.json", atomically: true, encoding: .utf8)
        // "message" is the markup dunst rendered: the summary (escaped by dunst) and the body
        // (escaped by us) both show the text literally, so it appears escaped in body and message twice.
        XCTAssertGreaterThanOrEqual(history.components(separatedBy: escaped).count - 1, 3, history)
        XCTAssertFalse(history.contains("<b><b>Bold"), "the project name was rendered as markup: \(history)")
    }

    /// dunst killed and started again while the agent runs: the next change shows the timer on
    /// the new dunst, including a change made while there was no server at all.
    func testDunstRestartShowsTheTimerAgain() throws {
        let world = try NotificationWorld("dunst-restart")
        defer { world.stop() }
        let desktop = try XCTUnwrap(world.desktop)
        try makeProjects(world)
        try world.call("StartProject", [.string("Writing")])
        _ = try XCTUnwrap(world.waitForTimerNotify(count: 1))
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)

        desktop.stopDunst()
        try desktop.startDunst()
        XCTAssertEqual(world.displayed(settlingOn: 0), 0, "a fresh dunst shows nothing")
        // Another application's notification on the new dunst: it gets the ids the old one
        // gave out, and the timer must not take its place.
        let other = try Command.run("gdbus", ["call", "--session", "--dest", "org.freedesktop.Notifications",
                                              "--object-path", "/org/freedesktop/Notifications",
                                              "--method", "org.freedesktop.Notifications.Notify",
                                              "Mail", "0", "", "New mail", "From a friend", "[]", "{}", "0"],
                                    environment: desktop.environment)
        XCTAssertEqual(other.status, 0, other.stderr)
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)
        try world.call("Pause")
        let shown = try XCTUnwrap(world.waitForTimerNotify(count: 2))
        XCTAssertEqual(shown.actionKeys, ["default", "resume", "stop"])
        XCTAssertEqual(world.displayed(settlingOn: 2), 2, "the timer is back on the new dunst, beside the other notification")

        // A change while no server runs is not lost: the next change after the restart shows it.
        desktop.stopDunst()
        try world.call("Resume")
        usleep(500_000)
        try desktop.startDunst()
        try world.call("AddNote", [.string("after the restart")])
        XCTAssertTrue(TestSupport.wait(seconds: 15) { world.timerNotifies.last?.body.hasSuffix("after the restart") == true },
                      "no Notify after the second restart")
        XCTAssertEqual(world.timerNotifies.last?.actionKeys, ["default", "pause", "stop"])
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)
        XCTAssertTrue(world.agent.process.isRunning)
    }

    /// A screenshot of the running timer under Xvfb, kept in the test output, not blank.
    func testScreenshotOfTheRunningTimer() throws {
        let world = try NotificationWorld("screenshot")
        defer { world.stop() }
        try makeProjects(world)
        try world.call("StartProject", [.string("Writing")])
        try world.call("AddNote", [.string("Draft the reminder chapter")])
        XCTAssertTrue(TestSupport.wait(seconds: 15) { world.timerNotifies.last?.body.hasSuffix("reminder chapter") == true })
        XCTAssertEqual(world.displayed(settlingOn: 1), 1)
        usleep(700_000) // let dunst draw

        let shot = world.output + "/running-timer.png"
        try world.desktop!.screenshot(to: shot)
        XCTAssertGreaterThan(try imageColourCount(shot), 1, "blank screenshot: \(shot)")
        // The notification, cut out of the black screen (dunst draws it at the top right).
        let cropped = world.output + "/running-timer-cropped.png"
        let box = try Command.run("convert", [shot, "-format", "%@", "info:"]).stdout
        let size = box.split(separator: "+").first?.split(separator: "x").compactMap { Int($0) } ?? []
        XCTAssertEqual(size.count, 2, "no drawing on the screen: \(box)")
        XCTAssertGreaterThan(size.first ?? 0, 300, "the notification is too narrow: \(box)")
        XCTAssertGreaterThan(size.last ?? 0, 40, "the notification is too low: \(box)")
        let crop = try Command.run("convert", [shot, "-trim", "+repage", "-bordercolor", "black", "-border", "12", cropped])
        XCTAssertEqual(crop.status, 0, crop.stderr)
        XCTAssertGreaterThan(try imageColourCount(cropped), 2, "the notification area is blank: \(cropped)")
    }
}
