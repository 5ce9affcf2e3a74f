import CGLib
import Foundation
import XCTest
@testable import Notifier

/// Collects actions delivered on the main context.
final class ActionLog: @unchecked Sendable {
    var actions: [NotifierAction] = []
}

final class NotifierServerTests: XCTestCase {
    private func elapsed(_ body: () -> Void) -> Double {
        let t0 = Date()
        body()
        return Date().timeIntervalSince(t0)
    }

    private let sample = TimerNotification(project: "Writing", category: "Work", state: .running,
                                           since: 1_795_594_320, sessionStart: 1_795_594_320, note: "")

    // No notification server on the bus: every call returns at once, nothing crashes.
    func testNoServerNeverBlocksOrCrashes() throws {
        let h = try Harness.get()
        XCTAssertFalse(h.nameHasOwner("org.freedesktop.Notifications"))
        let notifier = Notifier(appName: "Time", desktopEntry: "io.github.timetracker.Time",
                                mainContext: nil) { _ in }
        var paused = sample
        paused.state = .paused
        for _ in 0..<3 {
            XCTAssertLessThan(elapsed { notifier.showTimer(sample) }, 0.1)
            XCTAssertLessThan(elapsed { notifier.showTimer(paused) }, 0.1)
            XCTAssertLessThan(elapsed { notifier.showReminder(summary: "Writing — 2 h 00 min active", body: "") }, 0.1)
            XCTAssertLessThan(elapsed { notifier.showReport(summary: "Week", body: "nothing") }, 0.1)
            XCTAssertLessThan(elapsed { notifier.closeTimer() }, 0.1)
            usleep(200_000) // let the worker try (and fail) against the empty bus
        }
        XCTAssertLessThan(elapsed { notifier.shutdown() }, 5)
    }

    // A server that owns the name and never answers: calls still return at once.
    func testHungServerDoesNotBlockCaller() throws {
        let h = try Harness.get()
        let src = h.dir.appendingPathComponent("hung.c")
        try """
        #include <dbus/dbus.h>
        #include <stdio.h>
        #include <unistd.h>
        int main(void) {
            DBusError e; dbus_error_init(&e);
            DBusConnection *c = dbus_bus_get(DBUS_BUS_SESSION, &e);
            if (!c) return 1;
            if (dbus_bus_request_name(c, "org.freedesktop.Notifications", DBUS_NAME_FLAG_DO_NOT_QUEUE, &e)
                != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) return 2;
            for (;;) pause(); /* never reads, never replies */
        }
        """.write(to: src, atomically: true, encoding: .utf8)
        let bin = h.dir.appendingPathComponent("hung").path
        let (cflags, libs) = (try h.run("pkg-config", ["--cflags", "dbus-1"]).1,
                              try h.run("pkg-config", ["--libs", "dbus-1"]).1)
        let args = cflags.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
            + [src.path, "-o", bin]
            + libs.split(separator: " ").map { String($0).trimmingCharacters(in: .whitespacesAndNewlines) }
        let cc = try h.run("gcc", args.filter { !$0.isEmpty })
        XCTAssertEqual(cc.0, 0, "gcc failed")
        let fake = try h.spawn(bin, [])
        defer { h.stop(fake) }
        try Harness.waitFor(seconds: 5, "fake server owns the name") {
            h.nameHasOwner("org.freedesktop.Notifications")
        }

        let notifier = Notifier(appName: "Time", desktopEntry: "io.github.timetracker.Time",
                                mainContext: nil) { _ in }
        XCTAssertLessThan(elapsed { notifier.showTimer(sample) }, 1.0)
        usleep(300_000) // the worker is now stuck in a call to the hung server
        var s = sample
        for i in 0..<20 {
            s.note = "note \(i)"
            XCTAssertLessThan(elapsed { notifier.showTimer(s) }, 1.0)
        }
        XCTAssertLessThan(elapsed { notifier.showReminder(summary: "r", body: "b") }, 1.0)
        XCTAssertLessThan(elapsed { notifier.closeTimer() }, 1.0)
        // When the hung server goes away its pending calls fail and the worker can stop.
        h.stop(fake)
        XCTAssertLessThan(elapsed { notifier.shutdown() }, 10)
    }
}
