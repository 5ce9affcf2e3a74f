import XCTest
@testable import Presence

/// The kernel's three clocks, moved by hand: nothing sleeps, nothing suspends.
final class HandClock: PresenceClock {
    var real: Int64 = 1_795_000_000 * 1_000_000_000
    var mono: Int64 = 5_000 * 1_000_000_000
    var boot: Int64 = 5_100 * 1_000_000_000
    func realtime() -> Int64 { real }
    func monotonic() -> Int64 { mono }
    func boottime() -> Int64 { boot }

    /// Time passes while the machine is awake: every clock moves.
    func run(_ seconds: Int64) { real += seconds * 1_000_000_000; mono += seconds * 1_000_000_000; boot += seconds * 1_000_000_000 }
    /// The machine sleeps: MONOTONIC stands still, BOOTTIME and the wall clock move.
    func suspend(_ seconds: Int64) { real += seconds * 1_000_000_000; boot += seconds * 1_000_000_000 }
    var seconds: Int64 { real / 1_000_000_000 }
}

/// The kernel fallback's decision: how long the machine slept, measured on BOOTTIME.
final class SuspendMeterTests: XCTestCase {
    func testASuspendIsTheGrowthOfBoottimeOverMonotonic() {
        let clock = HandClock()
        var meter = SuspendMeter(clock: clock)
        clock.run(600)
        let before = clock.seconds
        clock.suspend(3 * 3600)
        let found = meter.check(clock: clock)
        XCTAssertEqual(found?.left, before)
        XCTAssertEqual(found?.back, before + 3 * 3600)
        XCTAssertNil(meter.check(clock: clock), "the same suspend is reported once")
    }

    /// NTP corrects the wall clock right after resume: the time away still comes from BOOTTIME.
    func testAWallClockJumpAfterResumeDoesNotChangeTheTimeAway() {
        let clock = HandClock()
        var meter = SuspendMeter(clock: clock)
        clock.suspend(1800)
        clock.real += 7200 * 1_000_000_000 // the clock is set two hours forward
        let found = meter.check(clock: clock)
        XCTAssertEqual(found.map { $0.back - $0.left }, 1800)
        XCTAssertEqual(found?.back, clock.seconds)
    }

    /// A clock change without any sleep (the timer wakes on both) is not a suspend.
    func testAClockChangeAloneIsNoSuspend() {
        let clock = HandClock()
        var meter = SuspendMeter(clock: clock)
        clock.run(100)
        clock.real -= 3600 * 1_000_000_000
        XCTAssertNil(meter.check(clock: clock))
        clock.suspend(1) // below the threshold: clock noise
        XCTAssertNil(meter.check(clock: clock))
    }
}

/// Several sources at once: left when the first says so, back when the last one clears.
final class PresenceConditionsTests: XCTestCase {
    func testTheFirstSourceStartsAndTheLastOneEnds() {
        var conditions = PresenceConditions()
        XCTAssertEqual(conditions.set("lock", away: true, reason: .lock, at: 100), .left(reason: .lock, at: 100))
        XCTAssertNil(conditions.set("sleep", away: true, reason: .suspend, at: 200))
        XCTAssertNil(conditions.set("sleep", away: false, reason: .suspend, at: 300), "resumed but still locked")
        XCTAssertEqual(conditions.set("lock", away: false, reason: .lock, at: 400), .back(at: 400))
        XCTAssertNil(conditions.set("lock", away: false, reason: .lock, at: 500), "back twice is nothing")
    }

    func testARepeatedAwayKeepsTheFirstMoment() {
        var conditions = PresenceConditions()
        XCTAssertEqual(conditions.set("idle", away: true, reason: .idle, at: 40), .left(reason: .idle, at: 40))
        XCTAssertNil(conditions.set("idle", away: true, reason: .idle, at: 90))
        XCTAssertEqual(conditions.set("idle", away: false, reason: .idle, at: 100), .back(at: 100))
    }
}
