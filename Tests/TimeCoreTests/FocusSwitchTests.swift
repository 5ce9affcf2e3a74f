import XCTest
@testable import TimeCore

/// Switching projects during a focus phase: the phase belongs to the person's time, not to one
/// session. A phase paused with its session goes on when another project starts (the person is
/// tracking again), and is recorded with the session open at its end. Expected times are written
/// out from the minutes (25-minute phases), never read from the code.
final class FocusSwitchTests: TrackerTestCase {
    let minute: Int64 = 60

    override func setUpWithError() throws {
        try super.setUpWithError()
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Reading", color: "", category: "")
    }

    func testARunningPhaseGoesOnWithTheNextProjectAndCountsThere() throws {
        let t0 = clock.time
        let writing = try tracker.startFocus("Writing")
        clock.time = t0 + 10 * minute
        let reading = try tracker.startProject("Reading")
        XCTAssertEqual(tracker.focusState.phase, .focus)
        XCTAssertEqual(tracker.focusState.publishedEnd, t0 + 25 * minute, "the end does not move")
        clock.time = t0 + 25 * minute
        XCTAssertEqual(try tracker.advanceFocus(), [.focus])
        XCTAssertEqual(try tracker.session(id: reading).focus, [FocusSpan(start: t0, end: t0 + 25 * minute)])
        XCTAssertEqual(try tracker.session(id: writing).focus, [])
    }

    func testAPhasePausedWithItsSessionGoesOnWhenAnotherProjectStarts() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.time = t0 + 10 * minute
        try tracker.pause()                                  // 15 minutes left
        clock.time = t0 + 12 * minute
        let reading = try tracker.startProject("Reading")    // tracking again: the phase goes on
        XCTAssertEqual(tracker.focusState.phase, .focus)
        XCTAssertNil(tracker.focusState.pausedLeft, "the phase is not left paused while a session runs")
        XCTAssertTrue(tracker.focusState.isTiming)
        XCTAssertEqual(tracker.focusState.publishedEnd, t0 + 27 * minute, "15 minutes left from +12")
        clock.time = t0 + 27 * minute
        XCTAssertEqual(try tracker.advanceFocus(), [.focus])
        XCTAssertEqual(try tracker.session(id: reading).focus.map(\.end), [t0 + 27 * minute])
        XCTAssertEqual(try tracker.focusCount(), 1)
    }

    func testStartProjectAtAfterThePauseGoesOnFromThere() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.time = t0 + 10 * minute
        try tracker.pause()                                  // 15 minutes left
        clock.time = t0 + 20 * minute
        try tracker.startProject("Reading", at: t0 + 14 * minute)
        XCTAssertNil(tracker.focusState.pausedLeft)
        XCTAssertEqual(tracker.focusState.publishedEnd, t0 + 29 * minute, "15 minutes left from +14")
    }

    func testStartProjectAtBeforeThePauseTakesThePauseBack() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.time = t0 + 10 * minute
        try tracker.pause()                                  // 15 minutes left
        clock.time = t0 + 20 * minute
        // Reading really began at +6, while Writing still ran: Writing ends there, so its pause at
        // +10 never was; the phase ran on without a break and ends when it first would have.
        try tracker.startProject("Reading", at: t0 + 6 * minute)
        XCTAssertNil(tracker.focusState.pausedLeft)
        XCTAssertEqual(tracker.focusState.publishedEnd, t0 + 25 * minute)
    }

    func testUndoOfTheSwitchLeavesThePhasePausedAgain() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.time = t0 + 10 * minute
        try tracker.pause()
        clock.time = t0 + 12 * minute
        try tracker.startProject("Reading")
        _ = try tracker.undo()
        XCTAssertEqual(tracker.focusState.pausedLeft, 15 * minute, "the phase paused as before the switch")
        XCTAssertEqual(tracker.currentSession?.state, .paused)
    }
}
