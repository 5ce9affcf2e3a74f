import DBusKit
import Foundation
import TestSupport
import XCTest

/// Notifications must never cost the timer anything: no server at all, or one that never answers.
final class UnavailableServerTests: XCTestCase {
    /// No org.freedesktop.Notifications on the bus: every method answers at once, the timer
    /// works, and the log says once that notifications are unavailable.
    func testNoNotificationServerAtAll() throws {
        let world = try NotificationWorld("no-server", dunst: false)
        defer { world.stop() }
        XCTAssertFalse(try world.client.nameHasOwner("org.freedesktop.Notifications"))

        let calls: [(String, [DBusValue])] = [
            ("CreateProject", [.string("Writing"), .string(""), .string("")]),
            ("StartProject", [.string("Writing")]), ("Pause", []), ("Resume", []), ("Toggle", []), ("Toggle", []),
            ("ShowWeeklyReport", [.string("")]), ("Stop", []), ("StartProject", [.string("Writing")]),
            ("AddNote", [.string("offline")]), ("GetStatus", []),
        ]
        for (method, arguments) in calls {
            let seconds = try world.timed { try world.call(method, arguments) }
            XCTAssertLessThan(seconds, 1.0, "\(method) took \(seconds) s without a notification server")
        }
        XCTAssertEqual(try world.state(), "running")
        sleep(1)
        usleep(200_000)
        let status = try XCTUnwrap(try world.call("GetStatus").first?.variantDictionary)
        XCTAssertGreaterThanOrEqual(status["elapsed"]?.uint64Value ?? 0, 1, "the timer does not run")
        XCTAssertEqual(status["note"]?.stringValue, "offline")
        let stop = try world.timed { try world.call("Stop") }
        XCTAssertLessThan(stop, 1.0)
        XCTAssertEqual(try world.state(), "idle")

        XCTAssertTrue(world.agent.process.isRunning)
        let log = world.agent.logText
        let lines = log.split(separator: "\n").filter { $0.contains("notifications unavailable") }
        XCTAssertEqual(lines.count, 1, "one line about notifications, not one per change: \(log)")
    }

    /// A server that takes the name and never answers: 20 changes, each answered in under a second.
    func testHungNotificationServerNeverDelaysAReply() throws {
        var hung: HungNotificationServer?
        let world = try NotificationWorld("hung-server", dunst: false) { bus in hung = try HungNotificationServer(bus: bus) }
        defer {
            hung?.stop()
            world.stop()
        }
        try world.call("CreateProject", [.string("Writing"), .string(""), .string("")])
        let cycle = ["StartProject", "Pause", "Resume"]
        var slowest = 0.0
        for index in 0..<20 {
            let method = cycle[index % 3]
            let arguments: [DBusValue] = method == "StartProject" ? [.string("Writing")] : []
            let seconds = try world.timed { try world.call(method, arguments) }
            slowest = max(slowest, seconds)
            XCTAssertLessThan(seconds, 1.0, "\(method) #\(index) took \(seconds) s behind a hung notification server")
        }
        XCTAssertLessThan(slowest, 1.0)
        XCTAssertEqual(try world.state(), "paused") // the 20th call (index 19) was a Pause
        XCTAssertTrue(world.agent.process.isRunning)
        XCTAssertTrue(world.wire.messages.contains { $0.kind == "method call" && $0.header.contains("sender=:") },
                      "the agent never called the hung server")

        // SIGTERM while the server still hangs: the store is saved and the agent does not wait
        // out libnotify's 25-second timeout.
        let shutdown = world.timed { world.agent.terminate() }
        XCTAssertLessThan(shutdown, 5.0, "SIGTERM waited for the hung notification server")
        XCTAssertEqual(world.agent.process.terminationReason, .exit)
        XCTAssertEqual(world.agent.process.terminationStatus, 0)
        XCTAssertTrue(world.agent.logText.contains("stopped; the store was closed cleanly"), world.agent.logText)
    }
}
