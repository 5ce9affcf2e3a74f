import XCTest
@testable import TimeCore

/// A time correction moves the focus phase as the timer's own pause, resume and stop do: the
/// phase counts only the time the session ran. Expected ends are written out from the minutes
/// typed (25-minute phases), never read from the code.
final class FocusCorrectionTests: TrackerTestCase {
    let minute: Int64 = 60

    override func setUpWithError() throws {
        try super.setUpWithError()
        try tracker.createProject(name: "Writing", color: "", category: "")
    }

    func testPauseAtAndResumeAtMoveThePhaseEnd() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.time = t0 + 10 * minute
        try tracker.pause(at: t0 + 5 * minute)          // 5 focus minutes done, 20 left
        XCTAssertEqual(tracker.focusState.pausedLeft, 20 * minute)
        clock.time = t0 + 30 * minute
        try tracker.resume(at: t0 + 20 * minute)
        XCTAssertEqual(tracker.focusState.phase, .focus)
        XCTAssertEqual(tracker.focusState.ends, t0 + 40 * minute, "20 minutes left from the resume at +20")
    }

    func testMovingAPauseEarlierLeavesMoreOfThePhase() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.time = t0 + 10 * minute
        try tracker.pause()                              // 10 done, 15 left
        clock.time = t0 + 12 * minute
        try tracker.pause(at: t0 + 6 * minute)           // really stopped at +6: 19 left
        XCTAssertEqual(tracker.focusState.pausedLeft, 19 * minute)
        clock.time = t0 + 20 * minute
        try tracker.resume()
        XCTAssertEqual(tracker.focusState.ends, t0 + 39 * minute)
    }

    func testMovingTheResumeOfARunningSessionMovesTheEnd() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.time = t0 + 5 * minute
        try tracker.pause()
        clock.time = t0 + 10 * minute
        try tracker.resume()                             // 20 left from +10: ends +30
        XCTAssertEqual(tracker.focusState.ends, t0 + 30 * minute)
        clock.time = t0 + 15 * minute
        try tracker.resume(at: t0 + 8 * minute)          // really back at +8: ends +28
        XCTAssertEqual(tracker.focusState.ends, t0 + 28 * minute)
    }

    func testAPauseBeforeThePhaseBeganCountsFromItsStart() throws {
        let t0 = clock.time
        try tracker.startProject("Writing")
        clock.time = t0 + 10 * minute
        try tracker.startFocus("")                       // the phase begins at +10, ends +35
        clock.time = t0 + 12 * minute
        try tracker.pause(at: t0 + 5 * minute)           // the pause predates the phase: all 25 left
        XCTAssertEqual(tracker.focusState.pausedLeft, 25 * minute)
    }

    func testStopAtEndsTheCycleAndUndoBringsItBack() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.time = t0 + 10 * minute
        try tracker.stop(at: t0 + 8 * minute)
        XCTAssertEqual(tracker.focusState.phase, .off)
        _ = try tracker.undo()
        XCTAssertEqual(tracker.focusState.phase, .focus)
        XCTAssertEqual(tracker.focusState.ends, t0 + 25 * minute)
    }
}
