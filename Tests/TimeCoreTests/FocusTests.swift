import XCTest
@testable import TimeCore

/// The focus timer with an injected clock: whole cycles with the segments exact, auto-start on and
/// off, pauses moving a phase's end, the absence that counts as a break, undo, and a restart.
/// Expected times are written out from the settings (minutes × 60), never read from the code.
final class FocusTests: TrackerTestCase {
    let minute: Int64 = 60

    override func setUpWithError() throws {
        try super.setUpWithError()
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Reading", color: "", category: "")
    }

    /// Moves the clock to the end of the running phase and lets the timer fire there.
    @discardableResult
    func runPhaseToItsEnd(personAway: Bool = false) throws -> [FocusPhase] {
        clock.time = tracker.focusState.ends
        return try tracker.advanceFocus(personAway: personAway)
    }

    func open() throws -> WorkSession { try XCTUnwrap(tracker.currentSession) }

    // MARK: A whole cycle

    func testAWholeCycleWithAutoStartAndPauseInBreaks() throws {
        try tracker.setFocusAutoStart(true)
        let t0 = clock.time
        let id = try tracker.startFocus("Writing")
        XCTAssertEqual(tracker.focusState.phase, .focus)
        XCTAssertEqual(tracker.focusState.publishedEnd, t0 + 25 * minute)
        var expectedPhases: [FocusPhase] = []
        for round in 0..<4 {
            XCTAssertEqual(try runPhaseToItsEnd(), [.focus], "focus \(round + 1)")
            expectedPhases.append(round == 3 ? .longBreak : .shortBreak)
            XCTAssertEqual(tracker.focusState.phase, expectedPhases.last)
            XCTAssertEqual(try open().state, .paused, "the break pauses the session")
            XCTAssertEqual(try runPhaseToItsEnd(), [expectedPhases.last!])
            XCTAssertEqual(tracker.focusState.phase, .focus)
            XCTAssertEqual(try open().state, .running, "the next focus resumes it")
        }
        // 4 × (25 focus) with breaks of 5, 5, 5 and a long one of 15 between and after.
        let session = try open()
        XCTAssertEqual(session.id, id)
        XCTAssertEqual(session.segments, [
            Segment(start: t0, end: t0 + 25 * minute),
            Segment(start: t0 + 30 * minute, end: t0 + 55 * minute),
            Segment(start: t0 + 60 * minute, end: t0 + 85 * minute),
            Segment(start: t0 + 90 * minute, end: t0 + 115 * minute),
            Segment(start: t0 + 130 * minute, end: nil),
        ])
        XCTAssertEqual(session.focus, [
            FocusSpan(start: t0, end: t0 + 25 * minute), FocusSpan(start: t0 + 30 * minute, end: t0 + 55 * minute),
            FocusSpan(start: t0 + 60 * minute, end: t0 + 85 * minute), FocusSpan(start: t0 + 90 * minute, end: t0 + 115 * minute),
        ])
        XCTAssertEqual(try tracker.focusCount(), 4)
        XCTAssertEqual(tracker.focusState.ends, t0 + 155 * minute, "the fifth focus phase")
    }

    func testAWholeCycleWithoutPauseInBreaksKeepsOneSegment() throws {
        try tracker.setFocusAutoStart(true)
        try tracker.setPauseInBreaks(false)
        let t0 = clock.time
        try tracker.startFocus("Writing")
        var ended: [FocusPhase] = []
        for _ in 0..<8 { ended += try runPhaseToItsEnd() }
        XCTAssertEqual(ended, [.focus, .shortBreak, .focus, .shortBreak, .focus, .shortBreak, .focus, .longBreak])
        XCTAssertEqual(try open().segments, [Segment(start: t0, end: nil)], "the breaks did not touch the session")
        XCTAssertEqual(try open().focus.map(\.end), [25, 55, 85, 115].map { t0 + $0 * minute })
    }

    func testWithoutAutoStartEachPhaseWaitsForThePerson() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        XCTAssertEqual(try runPhaseToItsEnd(), [.focus])
        var state = tracker.focusState
        XCTAssertEqual(state.phase, .waiting)
        XCTAssertEqual(state.next, .shortBreak)
        XCTAssertEqual(state.publishedEnd, 0, "FocusEnds is 0 while waiting")
        XCTAssertEqual(try open().state, .running, "nothing pauses before the break is started")
        clock.advance(2 * minute)
        XCTAssertEqual(try tracker.advanceFocus(), [], "a waiting cycle has no end to reach")
        try tracker.skipPhase() // Start break
        state = tracker.focusState
        XCTAssertEqual(state.phase, .shortBreak)
        XCTAssertEqual(state.ends, t0 + 32 * minute)
        XCTAssertEqual(try open().segments, [Segment(start: t0, end: t0 + 27 * minute)])
        XCTAssertEqual(try runPhaseToItsEnd(), [.shortBreak])
        XCTAssertEqual(tracker.focusState.phase, .waiting)
        XCTAssertEqual(tracker.focusState.next, .focus)
        XCTAssertEqual(try open().state, .paused, "the session waits with the person")
        clock.advance(3 * minute)
        try tracker.skipPhase() // Start focus
        XCTAssertEqual(tracker.focusState.phase, .focus)
        XCTAssertEqual(tracker.focusState.ends, t0 + 35 * minute + 25 * minute)
        XCTAssertEqual(try open().segments, [Segment(start: t0, end: t0 + 27 * minute), Segment(start: t0 + 35 * minute, end: nil)])
    }

    // MARK: Pauses, extensions, skips, stop

    func testPausingTheSessionPausesTheFocusPhase() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.advance(10 * minute)
        try tracker.pause()
        XCTAssertEqual(tracker.focusState.pausedLeft, 15 * minute)
        clock.advance(7 * minute)
        XCTAssertEqual(try tracker.advanceFocus(), [], "a paused phase does not end")
        try tracker.resume()
        XCTAssertEqual(tracker.focusState.ends, t0 + 32 * minute, "its end moved on by the pause's 7 minutes")
        XCTAssertNil(tracker.focusState.pausedLeft)
        clock.time = t0 + 32 * minute - 1
        XCTAssertEqual(try tracker.advanceFocus(), [])
        clock.advance(1)
        XCTAssertEqual(try tracker.advanceFocus(), [.focus])
        XCTAssertEqual(try open().focus, [FocusSpan(start: t0, end: t0 + 32 * minute)])
    }

    func testExtendSkipAndStop() throws {
        assertTrackerError("InvalidArgument", try tracker.skipPhase())
        assertTrackerError("InvalidArgument", try tracker.extendPhase(minutes: 5))
        assertTrackerError("NoSuchProject", try tracker.startFocus(""))
        try tracker.startProject("Writing")
        try tracker.stop()
        let t0 = clock.time
        try tracker.startFocus("")
        XCTAssertEqual(try open().projectID, 1, "\"\" with nothing open: the last project")
        assertTrackerError("InvalidArgument", try tracker.extendPhase(minutes: 0))
        assertTrackerError("InvalidArgument", try tracker.extendPhase(minutes: 61))
        try tracker.extendPhase(minutes: 5)
        XCTAssertEqual(tracker.focusState.ends, t0 + 30 * minute)
        clock.advance(minute)
        try tracker.skipPhase()
        XCTAssertEqual(tracker.focusState.phase, .shortBreak)
        XCTAssertEqual(try open().focus, [], "a focus phase cut short is not counted")
        XCTAssertEqual(tracker.focusState.ends, t0 + 6 * minute)
        try tracker.skipPhase()
        XCTAssertEqual(tracker.focusState.phase, .focus)
        XCTAssertEqual(try open().state, .running)
        try tracker.stopFocus()
        XCTAssertEqual(tracker.focusState, FocusState())
        XCTAssertEqual(try open().state, .running, "StopFocus leaves the session alone")
        let steps = try tracker.history(count: 100).count
        try tracker.stopFocus()
        XCTAssertEqual(try tracker.history(count: 100).count, steps, "no cycle: nothing changes")
    }

    func testStopOfTheSessionEndsTheCycle() throws {
        try tracker.startFocus("Writing")
        clock.advance(5 * minute)
        try tracker.stop()
        XCTAssertEqual(tracker.focusState.phase, .off)
    }

    func testSwitchingProjectKeepsThePhaseAndCountsItWithTheSessionOpenAtItsEnd() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.advance(10 * minute)
        let reading = try tracker.startProject("Reading")
        XCTAssertEqual(tracker.focusState.ends, t0 + 25 * minute)
        try runPhaseToItsEnd()
        XCTAssertEqual(try tracker.store.session(id: reading)?.focus, [FocusSpan(start: t0, end: t0 + 25 * minute)])
    }

    func testNotificationsPlusFiveReopensTheEndedFocusPhase() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        try runPhaseToItsEnd()
        clock.advance(minute)
        try tracker.moreOfEndedPhase(minutes: 5)
        XCTAssertEqual(tracker.focusState.phase, .focus)
        XCTAssertEqual(tracker.focusState.ends, t0 + 31 * minute)
        XCTAssertEqual(try open().focus, [], "counted again when it ends")
        try runPhaseToItsEnd()
        XCTAssertEqual(try open().focus, [FocusSpan(start: t0, end: t0 + 31 * minute)])
        XCTAssertEqual(tracker.focusState.completed, 1)
    }

    // MARK: Away and asleep

    func testAnAbsenceLongerThanTheBreakCountsAsTheBreak() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        // Asleep from minute 20 to 45: no timer fired; the person is back.
        clock.time = t0 + 45 * minute
        XCTAssertEqual(try tracker.focusPersonBack(awayFrom: t0 + 20 * minute), [.focus, .shortBreak])
        XCTAssertEqual(tracker.focusState.phase, .waiting)
        XCTAssertEqual(tracker.focusState.next, .focus, "the break was taken")
        XCTAssertEqual(try open().focus, [FocusSpan(start: t0, end: t0 + 25 * minute)])
        XCTAssertEqual(try open().segments, [Segment(start: t0, end: nil)], "the absence is the away prompt's to settle")
    }

    func testAShortAbsenceLeavesTheBreakWaiting() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        try runPhaseToItsEnd()
        clock.time = t0 + 29 * minute
        XCTAssertEqual(try tracker.focusPersonBack(awayFrom: t0 + 26 * minute), [])
        XCTAssertEqual(tracker.focusState.next, .shortBreak)
    }

    func testWithAutoStartFocusWaitsForThePersonWhoIsAway() throws {
        try tracker.setFocusAutoStart(true)
        let t0 = clock.time
        try tracker.startFocus("Writing")
        try runPhaseToItsEnd() // the break starts by itself, the session pauses at minute 25
        try runPhaseToItsEnd(personAway: true)
        XCTAssertEqual(tracker.focusState.phase, .waiting, "no focus starts for a person who is away")
        clock.time = t0 + 40 * minute
        try tracker.focusPersonBack(awayFrom: t0 + 27 * minute)
        XCTAssertEqual(tracker.focusState.phase, .focus)
        XCTAssertEqual(tracker.focusState.ends, t0 + 65 * minute)
        XCTAssertEqual(try open().segments, [Segment(start: t0, end: t0 + 25 * minute), Segment(start: t0 + 40 * minute, end: nil)])
    }

    // MARK: Undo, settings, restart

    func testUndoOfStartFocusAndOfASetting() throws {
        try tracker.setFocusMinutes(50)
        XCTAssertEqual(try tracker.canUndo(), "Set focus phases to 50 minutes")
        XCTAssertEqual(try tracker.undo(), "Set focus phases to 50 minutes")
        XCTAssertEqual(tracker.focusSettings.focusMinutes, 25)
        try tracker.startFocus("Writing")
        XCTAssertTrue(try tracker.canUndo().hasPrefix("Started focus on Writing"))
        try tracker.undo()
        XCTAssertEqual(tracker.focusState, FocusState())
        XCTAssertNil(tracker.currentSession, "the session StartFocus opened is gone with it")
        try tracker.redo()
        XCTAssertEqual(tracker.focusState.phase, .focus)
        XCTAssertNotNil(tracker.currentSession)
    }

    /// The end of a phase is made by time, not by the person: no step of its own (an Undo of it
    /// would bring back a phase the timer ends again at once); Undo still names the person's last
    /// step, and refuses it, saying why, when the cycle moved on since.
    func testAPhaseEndIsNoUndoStep() throws {
        try tracker.setFocusAutoStart(true)
        try tracker.startFocus("Writing")
        let steps = try tracker.history(count: 100).count
        try runPhaseToItsEnd()
        XCTAssertEqual(try tracker.history(count: 100).count, steps)
        XCTAssertTrue(try tracker.canUndo().hasPrefix("Started focus on Writing"))
        XCTAssertTrue(assertTrackerError("NothingToUndo", try tracker.undo()).contains("cannot be undone"))
        XCTAssertEqual(tracker.focusState.phase, .shortBreak, "nothing was changed")
        try tracker.skipPhase()
        XCTAssertEqual(try tracker.undo(), "Skipped to focus phase", "the person's own steps undo as ever")
        XCTAssertEqual(tracker.focusState.phase, .shortBreak)
    }

    func testSettingsAreCheckedAndPersisted() throws {
        assertTrackerError("InvalidArgument", try tracker.setFocusMinutes(0))
        assertTrackerError("InvalidArgument", try tracker.setBreakMinutes(241))
        assertTrackerError("InvalidArgument", try tracker.setLongBreakEvery(13))
        try tracker.setFocusMinutes(50)
        try tracker.setBreakMinutes(10)
        try tracker.setLongBreakMinutes(20)
        try tracker.setLongBreakEvery(0)
        try tracker.setFocusAutoStart(true)
        try tracker.setPauseInBreaks(false)
        var expected = FocusSettings()
        (expected.focusMinutes, expected.breakMinutes, expected.longBreakMinutes, expected.longBreakEvery) = (50, 10, 20, 0)
        (expected.autoStart, expected.pauseInBreaks) = (true, false)
        XCTAssertEqual(try reopen().focusSettings, expected)
    }

    func testARestartMidPhaseCarriesOnWithTheSameEnd() throws {
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.advance(3 * minute)
        try reopen()
        XCTAssertEqual(tracker.focusState.phase, .focus)
        XCTAssertEqual(tracker.focusState.ends, t0 + 25 * minute)
        XCTAssertEqual(try runPhaseToItsEnd(), [.focus])
    }

    // MARK: Reports

    func testReportsCountCompletedFocusPhasesPerGroupAndInTotal() throws {
        try tracker.setFocusAutoStart(true)
        try tracker.startFocus("Writing")
        for _ in 0..<4 { try runPhaseToItsEnd() } // two focus phases
        try tracker.startProject("Reading")
        try runPhaseToItsEnd() // the third, with Reading
        try tracker.stop()
        let report = try tracker.rangeReport(range: "2026-06-01", options: try ReportOptions(
            format: "json", group: "project", columns: nil, project: nil, tag: nil, round: nil, roundMode: nil, decimal: nil))
        XCTAssertEqual(report.focus, 3)
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: report.groups.map { ($0.name, $0.focus) }), ["Writing": 2, "Reading": 1])
        let json = try JSON.parse(report.json.serialized(.compact))
        XCTAssertEqual(json["focus"]?.intValue, 3)
        XCTAssertEqual(json["groups"]?.arrayValue?.compactMap { $0["focus"]?.intValue }.sorted(), [1, 2])
        XCTAssertTrue(report.text.contains("Focus"), report.text)
        let nextDay = try tracker.rangeReport(range: "2026-06-02", options: try ReportOptions(
            format: "json", group: "project", columns: nil, project: nil, tag: nil, round: nil, roundMode: nil, decimal: nil))
        XCTAssertEqual(nextDay.focus, 0)
        let week = try tracker.weeklyReport(week: "")
        XCTAssertEqual(week.focusDays, [3, 0, 0, 0, 0, 0, 0], "Monday, 2026-06-01")
        let byDay = try JSON.parse(try tracker.report(range: "2026-06-01..2026-06-07", options: try ReportOptions(
            format: "json", group: "project", columns: "day", project: nil, tag: nil, round: nil, roundMode: nil, decimal: nil)))
        XCTAssertEqual(byDay["columns"]?.arrayValue?.map { $0["focus"]?.intValue }, [3, 0, 0, 0, 0, 0, 0],
                       "each column of Report json counts the phases that ended in it")
        XCTAssertTrue(week.text.contains("\nFocus "), week.text)
    }
}

/// The away answer `stop` ends the session where the person left: as Stop, it ends the cycle, and a
/// focus phase that ended while they were away is not kept.
final class FocusAwayTests: TrackerTestCase {
    func testStoppingAtTheAwayStartEndsTheCycleAndDropsThePhaseDoneWhileAway() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        let t0 = clock.time
        try tracker.startFocus("Writing")
        clock.advance(20 * 60)
        try tracker.markAway(reason: .lock, at: clock.time)
        clock.time = t0 + 25 * 60
        try tracker.advanceFocus(personAway: true)
        XCTAssertEqual(tracker.currentSession?.focus.count, 1)
        clock.time = t0 + 40 * 60
        try tracker.markBack(at: clock.time)
        let away = try XCTUnwrap(try tracker.pendingAway().first)
        XCTAssertEqual(away.start, t0 + 20 * 60)
        try tracker.resolveAway(id: away.id, choice: "stop")
        XCTAssertEqual(tracker.focusState.phase, .off)
        let session = try XCTUnwrap(try tracker.store.allSessions().first)
        XCTAssertEqual(session.end, t0 + 20 * 60)
        XCTAssertEqual(session.focus, [], "the phase ended while away")
    }
}
