import XCTest
@testable import TimeCore

/// Corrections at the edges a review found: a switch at exactly the open session's start, and
/// completed focus phases inside the time a correction cut. Times are written out, never read
/// from the code.
final class CorrectionReviewTests: TrackerTestCase {
    let minute: Int64 = 60

    override func setUpWithError() throws {
        try super.setUpWithError()
        _ = try tracker.createProject(name: "Writing", color: "", category: "")
        _ = try tracker.createProject(name: "Email", color: "", category: "")
    }

    func testSwitchingAtExactlyTheOpenSessionsStartIsAnOverlapNotAnEmptySession() throws {
        let t0 = clock.time
        try tracker.startProject("Writing", at: t0 - 30 * minute)
        let message = assertTrackerError("Overlap", try tracker.startProject("Email", at: t0 - 30 * minute))
        XCTAssertTrue(message.contains("Writing"), message)
        XCTAssertEqual(try tracker.status().session?.segments, [Segment(start: t0 - 30 * minute, end: nil)])
        XCTAssertEqual(try tracker.sessions(project: 0, from: 0, to: Tracker.latestTime).count, 1, "no 0-second session is left behind")
    }

    func testStopAtDropsAFocusPhaseThatEndedInTheCutTime() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.time = t0 + 25 * minute
        XCTAssertEqual(try tracker.advanceFocus(personAway: false), [.focus])   // 09:00-09:25 done
        XCTAssertEqual(try tracker.focusCount(), 1)
        clock.time = t0 + 40 * minute
        try tracker.stop(at: t0 + 20 * minute)                                  // really stopped at +20
        let session = try XCTUnwrap(try tracker.sessions(project: 0, from: 0, to: Tracker.latestTime).first)
        XCTAssertEqual(session.focus, [], "the phase ended at +25, after the session did")
        XCTAssertEqual(try tracker.focusCount(), 0)
    }

    func testAdjustDropsTheShortenedSessionsPhasesAfterTheNewEnd() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.time = t0 + 25 * minute
        _ = try tracker.advanceFocus(personAway: false)
        clock.time = t0 + 30 * minute
        try tracker.stop()
        clock.time = t0 + 40 * minute
        try tracker.startProject("Email", at: t0 + 10 * minute, adjust: true)  // Writing ends at +10
        let writing = try XCTUnwrap(try tracker.sessions(project: 0, from: 0, to: Tracker.latestTime).first { $0.projectID == 1 })
        XCTAssertEqual(writing.end, t0 + 10 * minute)
        XCTAssertEqual(writing.focus, [])
    }

    func testSkippingIntoTheLongBreakEndsTheRound() throws {
        try tracker.setFocusAutoStart(true)
        let t0 = clock.time
        try tracker.startFocus("Writing")
        for _ in 0..<3 {                       // three focus phases completed, each with its short break
            clock.time = tracker.focusState.ends
            XCTAssertEqual(try tracker.advanceFocus(personAway: false), [.focus])
            XCTAssertEqual(tracker.focusState.phase, .shortBreak)
            clock.time = tracker.focusState.ends
            _ = try tracker.advanceFocus(personAway: false)
        }
        try tracker.skipPhase()                // the fourth focus phase skipped: the long break
        XCTAssertEqual(tracker.focusState.phase, .longBreak)
        clock.time = tracker.focusState.ends
        _ = try tracker.advanceFocus(personAway: false)
        clock.time = tracker.focusState.ends
        XCTAssertEqual(try tracker.advanceFocus(personAway: false), [.focus])
        XCTAssertEqual(tracker.focusState.phase, .shortBreak, "a new round begins with a short break, not a second long one")
        XCTAssertGreaterThan(clock.time, t0)
    }
}
