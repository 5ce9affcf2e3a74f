import CGLib
import Foundation
import TestSupport
import XCTest
@testable import Notifier

/// The real thing: dunst on the private bus and an Xvfb display; dbus-monitor watches the wire.
final class NotifierDunstTests: XCTestCase {
    func testTimerNotificationThroughDunst() throws {
        setenv("TZ", "UTC", 1); tzset()
        let h = try Harness.get()
        XCTAssertFalse(h.nameHasOwner("org.freedesktop.Notifications"))
        try h.desktop.startDunst()
        defer { h.desktop.stopDunst() }
        let monitor = try BusMonitor(bus: h.bus, rule: "interface=org.freedesktop.Notifications",
                                     output: h.outputDirectory + "/dbus-monitor.txt")
        defer { monitor.stop() }
        guard monitor.waitUntilListening() else { throw FixtureError("dbus-monitor did not start") }
        func wire() -> String { monitor.text }
        func notifyCalls() -> [String] {
            wire().components(separatedBy: "method call ").filter { $0.contains("member=Notify") }
        }
        func displayed() -> Int { h.desktop.count() }
        /// What dunst's context menu can offer: the actions of the notifications on the wire.
        func offered() -> String {
            monitor.notifyCalls.map { "\($0.summary): \($0.actions.map(\.label))" }.joined(separator: "; ")
        }

        let log = ActionLog()
        let notifier = Notifier(appName: "Time", desktopEntry: "io.github.timetracker.Time",
                                mainContext: nil) { log.actions.append($0) }
        defer { notifier.shutdown() }

        // 1. Create, then update in place.
        var n = TimerNotification(project: "Writing", category: "Work", state: .running,
                                  since: 1_795_594_320, sessionStart: 1_795_594_320, note: "")
        notifier.showTimer(n)
        try waitFor("first Notify", seconds: 10) { notifyCalls().count == 1 && displayed() == 1 }
        n.state = .paused
        n.since += 3600
        notifier.showTimer(n)
        try waitFor("second Notify", seconds: 10) { notifyCalls().count == 2 }
        usleep(200_000)
        XCTAssertEqual(displayed(), 1, "the update must replace, not add")
        let calls = notifyCalls()
        let first = calls[0], second = calls[1]
        XCTAssertTrue(first.contains("string \"Time\"\n   uint32 0\n"), first)
        let replaces = second.components(separatedBy: "\n").dropFirst(2).first ?? ""
        XCTAssertTrue(replaces.hasPrefix("   uint32 "), second)
        XCTAssertNotEqual(replaces, "   uint32 0", "the update must reuse the id")
        for call in [first, second] {
            XCTAssertTrue(call.contains("string \"Writing · Work\""), call)
            XCTAssertTrue(call.contains("string \"urgency\"\n         variant             byte 0"), call)
            XCTAssertTrue(call.contains("string \"resident\"\n         variant             boolean true"), call)
            XCTAssertTrue(call.contains("string \"desktop-entry\"\n         variant             string \"io.github.timetracker.Time\""), call)
            XCTAssertTrue(call.contains("string \"category\"\n         variant             string \"x-time-tracker.timer\""), call)
            XCTAssertTrue(call.contains("string \"default\""), call)
            XCTAssertTrue(call.contains("string \"stop\"\n      string \"Stop\""), call)
            XCTAssertTrue(call.hasSuffix("   int32 0\n") || call.contains("   int32 0\n"), "expire timeout never")
        }
        XCTAssertTrue(first.contains("string \"pause\"\n      string \"Pause\""), first)
        XCTAssertTrue(first.contains("Running since 08:12"), first)
        XCTAssertTrue(second.contains("string \"resume\"\n      string \"Resume\""), second)
        XCTAssertTrue(second.contains("Paused since 09:12"), second)

        // 2. Close on stop; dunst's history has it.
        notifier.closeTimer()
        try waitFor("closed", seconds: 10) { displayed() == 0 }
        XCTAssertTrue(wire().contains("member=CloseNotification"))
        XCTAssertTrue(try h.desktop.dunstctl(["history"]).stdout.contains("Writing · Work"))

        // 3. Escaping: summary plain, user text in the body escaped (dunst has body-markup).
        let nasty = #"<b>Bold & "quoted"</b>"#
        let e = TimerNotification(project: nasty, category: "", state: .running,
                                  since: 1_795_594_320, sessionStart: 1_795_594_320, note: nasty)
        notifier.showTimer(e)
        try waitFor("escaped Notify", seconds: 10) { notifyCalls().count == 3 && displayed() == 1 }
        let third = notifyCalls()[2]
        XCTAssertTrue(third.contains("string \"\(nasty)\""), "summary is plain text: \(third)")
        XCTAssertTrue(third.contains("&lt;b&gt;Bold &amp; &quot;quoted&quot;&lt;/b&gt;"), third)
        XCTAssertTrue(third.contains("   uint32 0\n"), "a closed timer comes back as a new notification")

        // 4. Screenshot under Xvfb, not blank.
        usleep(500_000)
        let shot = h.outputDirectory + "/dunst-timer.png"
        XCTAssertNoThrow(try h.desktop.screenshot(to: shot))
        XCTAssertGreaterThan((try? imageColourCount(shot)) ?? 0, 1, "screenshot is blank: \(shot)")

        // 5. A real ActionInvoked through dunst's context menu reaches onAction on the main context.
        try h.desktop.invokeAction("Stop")
        XCTAssertTrue(Harness.iterateMain(seconds: 10) { log.actions.contains(.stop) }, "menu offered: \(offered())")

        // 6. Reminder with Stop / Keep going.
        notifier.showReminder(summary: NotifierText.reminderSummary(project: "Writing", activeSeconds: 7200),
                              body: "a & b")
        try waitFor("reminder", seconds: 10) {
            notifyCalls().last?.contains("x-time-tracker.reminder") ?? false
        }
        let rem = notifyCalls().last ?? ""
        XCTAssertTrue(rem.contains("Writing — 2 h 00 min active"), rem)
        XCTAssertTrue(rem.contains("string \"reminder-keep-going\"\n      string \"Keep going\""), rem)
        XCTAssertTrue(rem.contains("a &amp; b"), rem)
        try h.desktop.invokeAction("Keep going")
        XCTAssertTrue(Harness.iterateMain(seconds: 10) { log.actions.contains(.reminderKeepGoing) })

        // 7. A report notification.
        notifier.showReport(summary: "Week 2026-W48", body: "Writing  10:00")
        try waitFor("report", seconds: 10) {
            notifyCalls().last?.contains("x-time-tracker.report") ?? false
        }
        XCTAssertEqual(log.actions, [.stop, .reminderKeepGoing])
    }
}
