import CGLib
import Foundation
import XCTest
@testable import Notifier

/// The real thing: dunst on the private bus and an Xvfb display; dbus-monitor watches the wire.
final class NotifierDunstTests: XCTestCase {
    func testTimerNotificationThroughDunst() throws {
        setenv("TZ", "UTC", 1); tzset()
        let h = try Harness.get()
        XCTAssertFalse(h.nameHasOwner("org.freedesktop.Notifications"))
        let want = h.dir.appendingPathComponent("want.txt")
        let menuInput = h.dir.appendingPathComponent("menu-input.txt")
        let pick = h.dir.appendingPathComponent("pick.sh")
        try """
        #!/bin/sh
        cat > '\(menuInput.path)'
        grep -m1 -F "$(cat '\(want.path)')" '\(menuInput.path)'
        """.write(to: pick, atomically: true, encoding: .utf8)
        chmod(pick.path, 0o755)
        let conf = h.dir.appendingPathComponent("dunstrc")
        try """
        [global]
            monitor = 0
            follow = none
            width = 500
            height = 300
            origin = top-right
            offset = 10x10
            font = Monospace 11
            markup = full
            format = "<b>%s</b>\\n%b"
            dmenu = \(pick.path)
            show_indicators = no
            frame_width = 2
            frame_color = "#88aaff"
        [urgency_low]
            background = "#202830"
            foreground = "#ffffff"
            timeout = 0
        [urgency_normal]
            background = "#285577"
            foreground = "#ffffff"
            timeout = 0
        """.write(to: conf, atomically: true, encoding: .utf8)

        let dunst = try h.spawn("dunst", ["-config", conf.path])
        defer { h.stop(dunst) }
        try Harness.waitFor(seconds: 10, "dunst owns the name") {
            h.nameHasOwner("org.freedesktop.Notifications")
        }
        let monitorFile = h.outputDir.appendingPathComponent("dbus-monitor.txt")
        _ = FileManager.default.createFile(atPath: monitorFile.path, contents: nil)
        let monitorHandle = try FileHandle(forWritingTo: monitorFile)
        let monitor = try h.spawn("dbus-monitor",
                                  ["--address", h.busAddress, "interface=org.freedesktop.Notifications"],
                                  stdout: monitorHandle)
        defer { h.stop(monitor) }
        usleep(500_000)
        func wire() -> String { (try? String(contentsOf: monitorFile, encoding: .utf8)) ?? "" }
        func notifyCalls() -> [String] {
            wire().components(separatedBy: "method call ").filter { $0.contains("member=Notify") }
        }
        func displayed() -> Int {
            Int((try? h.run("dunstctl", ["count", "displayed"]).1)?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? -1
        }

        let log = ActionLog()
        let notifier = Notifier(appName: "Time", desktopEntry: "io.github.timetracker.Time",
                                mainContext: nil) { log.actions.append($0) }
        defer { notifier.shutdown() }

        // 1. Create, then update in place.
        var n = TimerNotification(project: "Writing", category: "Work", state: .running,
                                  since: 1_795_594_320, sessionStart: 1_795_594_320, note: "")
        notifier.showTimer(n)
        try Harness.waitFor(seconds: 10, "first Notify") { notifyCalls().count == 1 && displayed() == 1 }
        n.state = .paused
        n.since += 3600
        notifier.showTimer(n)
        try Harness.waitFor(seconds: 10, "second Notify") { notifyCalls().count == 2 }
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
        try Harness.waitFor(seconds: 10, "closed") { displayed() == 0 }
        XCTAssertTrue(wire().contains("member=CloseNotification"))
        XCTAssertTrue(try h.run("dunstctl", ["history"]).1.contains("Writing · Work"))

        // 3. Escaping: summary plain, user text in the body escaped (dunst has body-markup).
        let nasty = #"<b>Bold & "quoted"</b>"#
        let e = TimerNotification(project: nasty, category: "", state: .running,
                                  since: 1_795_594_320, sessionStart: 1_795_594_320, note: nasty)
        notifier.showTimer(e)
        try Harness.waitFor(seconds: 10, "escaped Notify") { notifyCalls().count == 3 && displayed() == 1 }
        let third = notifyCalls()[2]
        XCTAssertTrue(third.contains("string \"\(nasty)\""), "summary is plain text: \(third)")
        XCTAssertTrue(third.contains("&lt;b&gt;Bold &amp; &quot;quoted&quot;&lt;/b&gt;"), third)
        XCTAssertTrue(third.contains("   uint32 0\n"), "a closed timer comes back as a new notification")

        // 4. Screenshot under Xvfb, not blank.
        usleep(500_000)
        let shot = h.outputDir.appendingPathComponent("dunst-timer.png")
        let imp = try h.run("import", ["-display", h.display, "-window", "root", shot.path])
        XCTAssertEqual(imp.0, 0)
        let colours = try h.run("convert", [shot.path, "-format", "%k", "info:"]).1
        XCTAssertGreaterThan(Int(colours.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0, 1,
                             "screenshot is blank: \(shot.path)")

        // 5. A real ActionInvoked through dunst's context menu reaches onAction on the main context.
        try "Stop".write(to: want, atomically: true, encoding: .utf8)
        try h.run("dunstctl", ["context"])
        XCTAssertTrue(Harness.iterateMain(seconds: 10) { log.actions.contains(.stop) },
                      "menu offered: \((try? String(contentsOf: menuInput, encoding: .utf8)) ?? "nothing")")

        // 6. Reminder with Stop / Keep going.
        notifier.showReminder(summary: NotifierText.reminderSummary(project: "Writing", activeSeconds: 7200),
                              body: "a & b")
        try Harness.waitFor(seconds: 10, "reminder") {
            notifyCalls().last?.contains("x-time-tracker.reminder") ?? false
        }
        let rem = notifyCalls().last ?? ""
        XCTAssertTrue(rem.contains("Writing — 2 h 00 min active"), rem)
        XCTAssertTrue(rem.contains("string \"reminder-keep-going\"\n      string \"Keep going\""), rem)
        XCTAssertTrue(rem.contains("a &amp; b"), rem)
        try "Keep going".write(to: want, atomically: true, encoding: .utf8)
        try h.run("dunstctl", ["context"])
        XCTAssertTrue(Harness.iterateMain(seconds: 10) { log.actions.contains(.reminderKeepGoing) })

        // 7. A report notification.
        notifier.showReport(summary: "Week 2026-W48", body: "Writing  10:00")
        try Harness.waitFor(seconds: 10, "report") {
            notifyCalls().last?.contains("x-time-tracker.report") ?? false
        }
        XCTAssertEqual(log.actions, [.stop, .reminderKeepGoing])
    }
}
