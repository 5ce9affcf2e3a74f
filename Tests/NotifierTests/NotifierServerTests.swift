import CGLib
import Foundation
import TestSupport
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
        let fake = try HungNotificationServer(bus: h.bus)
        defer { fake.stop() }

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
        // Shutting down does not wait out libnotify's timeout on the hung server.
        XCTAssertLessThan(elapsed { notifier.shutdown(waitingAtMost: 1) }, 3)
    }
}
