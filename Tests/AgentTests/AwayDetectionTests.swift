import DBusKit
import Foundation
import Glibc
import TestSupport
import XCTest

/// Away detection through the real signal paths: a fake logind on a private system bus and a
/// fake Mutter IdleMonitor on the session bus, served by time-fake-desktop over DBusKit.
final class AwayDetectionTests: XCTestCase {
    /// The inhibitor is held before any suspend, released only once the away start is stored
    /// (a kill -9 right after the release finds it in the store), and taken again on resume.
    func testSuspendWithTheInhibitorTakenInAdvanceAndReleasedOnceStored() throws {
        let world = try AwayWorld()
        defer { world.stop() }
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.inhibitors() == (1, 1) }, "a delay inhibitor is taken at start: \(world.inhibitors())")
        XCTAssertEqual(try world.fake("GetSessionArguments").first?.arrayValue?.compactMap(\.stringValue), ["auto"])

        let before = unixNow()
        try world.fake("Sleep", [.bool(true)])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.inhibitors().held == 0 }, "released after PrepareForSleep(true)")
        XCTAssertEqual(try world.lastingSpansInTheStore(), ["suspend"], "stored before the release")
        let since = world.awaySince()
        XCTAssertTrue((before...unixNow()).contains(since), "AwaySince \(since)")

        try world.fake("Sleep", [.bool(false)])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.inhibitors() == (1, 2) }, "taken again after resume: \(world.inhibitors())")
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() == 0 })
        XCTAssertTrue(world.pending().isEmpty, "a sleep of seconds is under a minute: forgotten")

        // Durable before the release: the agent dies right after it, and the store has the start.
        try world.fake("Sleep", [.bool(true)])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.inhibitors().held == 0 })
        world.kill9Agent()
        XCTAssertEqual(try world.lastingSpansInTheStore(), ["suspend"])
    }

    func testLockAndUnlockThroughLockedHint() throws {
        let world = try AwayWorld()
        defer { world.stop() }
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.inhibitors().held == 1 })
        let before = unixNow()
        try world.fake("SetLocked", [.bool(true)])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() > 0 }, "locking is leaving")
        XCTAssertTrue((before...unixNow()).contains(world.awaySince()))
        XCTAssertEqual(try world.lastingSpansInTheStore(), ["lock"])
        try world.fake("SetLocked", [.bool(false)])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() == 0 }, "unlocking is coming back")
    }

    /// Switching to another user (the session's Active) and the screen savers' ActiveChanged
    /// also mean away; both must clear before the person is back.
    func testSessionActiveAndScreenSaverSignals() throws {
        let world = try AwayWorld()
        defer { world.stop() }
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.inhibitors().held == 1 })
        try world.fake("SetActive", [.bool(false)])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() > 0 }, "another user's session in front")
        try world.fake("SetActive", [.bool(true)])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() == 0 })

        for saver in ["org.gnome.ScreenSaver", "org.freedesktop.ScreenSaver"] {
            let path = saver == "org.gnome.ScreenSaver" ? "/org/gnome/ScreenSaver" : "/org/freedesktop/ScreenSaver"
            try world.client.emitSignal(path: path, interface: saver, name: "ActiveChanged", arguments: [.bool(true)])
            XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() > 0 }, "\(saver) active")
            try world.fake("SetLocked", [.bool(true)])
            try world.client.emitSignal(path: path, interface: saver, name: "ActiveChanged", arguments: [.bool(false)])
            usleep(300_000)
            XCTAssertGreaterThan(world.awaySince(), 0, "still locked")
            try world.fake("SetLocked", [.bool(false)])
            XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() == 0 }, "\(saver) inactive and unlocked")
        }
    }

    /// Idle at AwayMinutes through WatchFired, back through the user-active watch; the span
    /// begins when input stopped (the watch time minus AwayMinutes), and discard cuts it out.
    func testIdleThroughMutterWatchesAndDiscard() throws {
        let world = try AwayWorld()
        defer { world.stop() }
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.idleWatches().intervals == [600_000] }, "AwayMinutes 10: \(world.idleWatches())")
        _ = try world.client.call(destination: AgentProcess.busName, path: AgentProcess.path, interface: "org.freedesktop.DBus.Properties",
                                  member: "Set", arguments: [.string(AgentProcess.interface), .string("AwayMinutes"), .variant(.uint32(5))])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.idleWatches().intervals == [300_000] }, "the watch moves with AwayMinutes: \(world.idleWatches())")
        XCTAssertEqual(try world.client.agentProperty("CanUndo"), .string("Set away detection to 5 idle minutes"), "the setting is the step to undo")

        let fired = unixNow()
        try world.fake("FireIdle")
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() > 0 })
        XCTAssertTrue(((fired - 300)...(unixNow() - 300)).contains(world.awaySince()), "input stopped 5 minutes before the watch fired")
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.idleWatches().active == 1 }, "a user-active watch waits for the return")
        XCTAssertEqual(world.pending().map(\.reason), ["idle"], "over a minute: pending while it lasts")
        XCTAssertEqual(world.pending().first?.end, 0)

        try world.fake("FireActive")
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() == 0 })
        let span = try XCTUnwrap(world.pending().first)
        XCTAssertEqual(span.project, "Writing")
        XCTAssertGreaterThanOrEqual(span.end - span.start, 300)
        XCTAssertEqual(try world.segments(), [[world.sessionStart, 0]], "unanswered time stays counted")

        try world.call("ResolveAway", [.uint64(0), .string("discard")])
        XCTAssertEqual(try world.segments(), [[world.sessionStart, span.start], [span.end, 0]])
        XCTAssertTrue(world.pending().isEmpty)
    }

    /// Mutter restarting loses its watches: they are added again; logind going away releases
    /// the inhibitor, and its return brings a new one and the session again.
    func testSourcesVanishingAndComingBack() throws {
        let world = try AwayWorld()
        defer { world.stop() }
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.idleWatches().intervals == [600_000] && world.inhibitors().held == 1 })
        try world.fake("Vanish", [.string("mutter")])
        XCTAssertTrue(world.idleWatches().intervals.isEmpty)
        try world.fake("Return", [.string("mutter")])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.idleWatches().intervals == [600_000] }, "watch added again: \(world.idleWatches())")

        try world.fake("Vanish", [.string("logind")])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.inhibitors().held == 0 }, "nothing held for a logind that is gone")
        try world.fake("Return", [.string("logind")])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.inhibitors() == (1, 2) }, "a new inhibitor: \(world.inhibitors())")
        try world.fake("SetLocked", [.bool(true)])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() > 0 }, "the session is followed again")
    }

    /// A span still lasting when the agent restarts stays as it was until a source says the
    /// person is back: the unlock, or input seen by a user-active watch added again at start.
    func testALastingSpanOutlivesARestartUntilTheSourceSaysBack() throws {
        let world = try AwayWorld()
        defer { world.stop() }
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.inhibitors().held == 1 })
        try world.fake("SetLocked", [.bool(true)])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() > 0 })
        let locked = world.awaySince()
        try world.restartAgent()
        XCTAssertEqual(world.awaySince(), locked, "still locked: still away")
        try world.fake("SetLocked", [.bool(false)])
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() == 0 }, "the unlock after the restart ends it")

        try world.call("MarkAway", [.string("idle"), .uint32(900)])
        let idle = world.awaySince()
        try world.restartAgent()
        XCTAssertEqual(world.awaySince(), idle)
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.idleWatches().active == 1 }, "a user-active watch waits for input again")
        try world.fake("FireActive")
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.awaySince() == 0 })
        XCTAssertEqual(world.pending().map(\.reason), ["idle"])
    }

    /// No logind or Mutter when the agent starts: skipped quietly, picked up when they appear.
    func testSourcesThatAppearLaterArePickedUp() throws {
        let world = try AwayWorld(helperFirst: false)
        defer { world.stop() }
        XCTAssertEqual(try world.call("GetStatus").first?.variantDictionary?["state"]?.stringValue, "running")
        try world.startHelper()
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.inhibitors().held == 1 }, "inhibitor taken once logind appears")
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.idleWatches().intervals == [600_000] }, "idle watch added once Mutter appears")
    }

    /// MarkAway / MarkBack as swayidle and xss-lock call them; stop ends the session at the span's start.
    func testMarkAwayMarkBackAndStop() throws {
        let world = try AwayWorld(helperFirst: false)
        defer { world.stop() }
        try world.call("MarkBack") // nobody away: no error
        let before = unixNow()
        try world.call("MarkAway", [.string("lock"), .uint32(1200)])
        let since = world.awaySince()
        XCTAssertTrue(((before - 1200)...(unixNow() - 1200)).contains(since), "seconds_ago before the call")
        try world.call("MarkBack")
        XCTAssertEqual(world.pending().map(\.reason), ["lock"])
        assertBusError(ContractError.invalidArgument) { try world.call("ResolveAway", [.uint64(0), .string("maybe")]) }
        assertBusError(ContractError.prefix + "NoSuchAway") { try world.call("ResolveAway", [.uint64(99), .string("keep")]) }
        try world.call("ResolveAway", [.uint64(0), .string("stop")])
        XCTAssertEqual(try world.sessionEnd(), since)
        XCTAssertEqual(try world.segments(), [[world.sessionStart, since]])
        assertBusError(ContractError.prefix + "NoSuchAway") { try world.call("ResolveAway", [.uint64(0), .string("keep")]) }
        try world.call("MarkAway", [.string(""), .uint32(0)]) // idle now: nothing recorded, no error
        XCTAssertEqual(world.awaySince(), 0)
    }

    /// With logind, Mutter and the kernel's clock watch all connected, an agent whose timer
    /// runs makes no wake-ups while nothing happens.
    func testNoWakeUpsWhileNothingHappens() throws {
        let world = try AwayWorld()
        defer { world.stop() }
        XCTAssertTrue(TestSupport.wait(seconds: 10) { world.idleWatches().intervals == [600_000] && world.inhibitors().held == 1 })
        usleep(500_000)
        let before = voluntaryContextSwitches(of: world.agent.pid)
        sleep(5)
        let after = voluntaryContextSwitches(of: world.agent.pid)
        XCTAssertEqual(after.total, before.total, "woke up: before \(before.threads), after \(after.threads)")
    }
}
