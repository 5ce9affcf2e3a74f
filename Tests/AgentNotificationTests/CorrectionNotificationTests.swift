import DBusKit
import Foundation
import TestSupport
import XCTest

/// A correction moves what the desktop shows at once (contract "Fixing what was forgotten"): the
/// timer notification says the corrected time, and the reminder's one timer is set again from the
/// corrected active time (a one-second minute, so a reminder is due after 60 s of active time).
final class CorrectionNotificationTests: XCTestCase {
    func testTheTimerNotificationAndTheRemindersFollowACorrectedStart() throws {
        let world = try NotificationWorld("corrections", environment: ["TIME_AGENT_MINUTE_SECONDS": "1"])
        defer { world.stop() }
        try world.call("CreateProject", [.string("Writing"), .string(""), .string("")])
        try world.setReminderMinutes(60)

        // Started 57 s back: 3 active seconds are left before the first reminder, not 60.
        let start = Int64(Date().timeIntervalSince1970) - 57
        let called = Date()
        try world.call("StartProjectAt", [.string("Writing"), .int64(start), .vardict([:])])
        let shown = try XCTUnwrap(world.waitForTimerNotify(count: 1))
        XCTAssertEqual(shown.body, "Running since \(berlinClock(start))")
        XCTAssertTrue(TestSupport.wait(seconds: 30) { world.reminderNotifies.count == 1 }, "no reminder after the corrected 60 active seconds")
        let after = Date().timeIntervalSince(called)
        XCTAssertLessThan(after, 20, "the reminder came \(after) s after the call: it was not moved by the corrected start")
        XCTAssertEqual(world.reminderNotifies.first?.summary.hasPrefix("Writing: "), true)

        // Paused as of 30 s back: the notification says paused since then.
        let pausedAt = Int64(Date().timeIntervalSince1970) - 30
        try world.call("PauseAt", [.int64(pausedAt)])
        let paused = try XCTUnwrap(world.waitForTimerNotify(count: 2))
        XCTAssertTrue(paused.body.hasPrefix("Paused since \(berlinClock(pausedAt))"), paused.body)
        try world.call("StopAt", [.int64(pausedAt)])
        XCTAssertTrue(TestSupport.wait(seconds: 15) { !world.calls("CloseNotification").isEmpty }, "the timer notification stayed after StopAt")
        XCTAssertEqual(try world.state(), "idle")
    }
}
