import XCTest
@testable import TimeCore

/// Every row of the contract's timer table, with exact times, segments and errors.
final class TimerTests: TrackerTestCase {
    @discardableResult
    func project(_ name: String, category: String = "") throws -> ProjectID {
        try tracker.createProject(name: name, color: "", category: category)
    }

    // MARK: StartProject

    func testStartOnIdleOpensARunningSession() throws {
        let writing = try project("Writing")
        let t0 = clock.time
        let id = try tracker.startProject("Writing")
        let status = try tracker.status()
        XCTAssertEqual(status.state, .running)
        XCTAssertEqual(status.session?.id, id)
        XCTAssertEqual(status.project?.id, writing)
        XCTAssertEqual(status.project?.name, "Writing")
        XCTAssertEqual(status.session?.start, t0)
        XCTAssertNil(status.session?.end)
        XCTAssertEqual(status.session?.segments, [Segment(start: t0, end: nil)])
        XCTAssertEqual(status.runningSince, t0)
        XCTAssertEqual(status.settledSeconds, 0)
        XCTAssertEqual(status.lastProjectName, "Writing")
        clock.advance(125)
        XCTAssertEqual(try tracker.status().session?.activeSeconds(at: clock.time), 125)
        XCTAssertEqual(try allSessions().count, 1)
    }

    func testStartSameProjectWhileRunningChangesNothing() throws {
        try project("Writing")
        let t0 = clock.time
        let id = try tracker.startProject("Writing")
        clock.advance(300)
        XCTAssertEqual(try tracker.startProject("  wRiTiNg "), id)
        let status = try tracker.status()
        XCTAssertEqual(status.state, .running)
        XCTAssertEqual(status.session?.segments, [Segment(start: t0, end: nil)])
        XCTAssertEqual(try allSessions().count, 1)
        XCTAssertEqual(try segmentRowCount(), 1)
    }

    func testStartSameProjectWhilePausedResumes() throws {
        try project("Writing")
        let t0 = clock.time
        let id = try tracker.startProject("Writing")
        clock.advance(60)
        try tracker.pause()
        clock.advance(30)
        XCTAssertEqual(try tracker.startProject("writing"), id)
        let status = try tracker.status()
        XCTAssertEqual(status.state, .running)
        XCTAssertEqual(status.session?.segments, [Segment(start: t0, end: t0 + 60), Segment(start: t0 + 90, end: nil)])
        XCTAssertEqual(status.settledSeconds, 60)
        XCTAssertEqual(status.runningSince, t0 + 90)
        XCTAssertEqual(try allSessions().count, 1)
    }

    func testStartAnotherProjectCompletesThePreviousOne() throws {
        let a = try project("A")
        let b = try project("B")
        let t0 = clock.time
        let first = try tracker.startProject("A")
        clock.advance(100)
        try tracker.pause()
        clock.advance(50)
        try tracker.resume()
        clock.advance(25)
        let second = try tracker.startProject("B")
        XCTAssertNotEqual(first, second)

        let done = try tracker.session(id: first)
        XCTAssertEqual(done.state, .completed)
        XCTAssertEqual(done.projectID, a)
        XCTAssertEqual(done.start, t0)
        XCTAssertEqual(done.end, t0 + 175)
        XCTAssertEqual(done.activeSeconds(at: .max), 125)
        XCTAssertEqual(done.segments, [Segment(start: t0, end: t0 + 100), Segment(start: t0 + 150, end: t0 + 175)])

        let status = try tracker.status()
        XCTAssertEqual(status.state, .running)
        XCTAssertEqual(status.session?.id, second)
        XCTAssertEqual(status.session?.projectID, b)
        XCTAssertEqual(status.session?.start, t0 + 175)
        XCTAssertEqual(status.session?.segments, [Segment(start: t0 + 175, end: nil)])
    }

    func testStartAnotherProjectWhilePausedCompletesAtNowWithoutCountingThePause() throws {
        try project("A")
        try project("B")
        let t0 = clock.time
        let first = try tracker.startProject("A")
        clock.advance(40)
        try tracker.pause()
        clock.advance(1000)
        try tracker.startProject("B")
        let done = try tracker.session(id: first)
        XCTAssertEqual(done.end, t0 + 1040)
        XCTAssertEqual(done.activeSeconds(at: .max), 40)
        XCTAssertEqual(done.segments, [Segment(start: t0, end: t0 + 40)])
    }

    func testStartUnknownProject() throws {
        try project("Writing")
        assertTrackerError("NoSuchProject", try tracker.startProject("Reading"))
        assertTrackerError("NoSuchProject", try tracker.startProject(""))
        assertTrackerError("NoSuchProject", try tracker.startProject("#999"))
        XCTAssertEqual(try tracker.status().state, .idle)
        XCTAssertEqual(try allSessions().count, 0)
    }

    // MARK: Pause and Resume

    func testPauseIsIdempotent() throws {
        try project("Writing")
        let t0 = clock.time
        try tracker.startProject("Writing")
        clock.advance(10)
        try tracker.pause()
        clock.advance(10)
        try tracker.pause()
        let status = try tracker.status()
        XCTAssertEqual(status.state, .paused)
        XCTAssertEqual(status.session?.segments, [Segment(start: t0, end: t0 + 10)])
        XCTAssertEqual(status.runningSince, 0)
        XCTAssertEqual(status.settledSeconds, 10)
        XCTAssertEqual(status.session?.activeSeconds(at: clock.time), 10)
    }

    func testResumeIsIdempotent() throws {
        try project("Writing")
        let t0 = clock.time
        try tracker.startProject("Writing")
        clock.advance(10)
        try tracker.resume()
        clock.advance(5)
        try tracker.pause()
        clock.advance(7)
        try tracker.resume()
        clock.advance(3)
        try tracker.resume()
        let status = try tracker.status()
        XCTAssertEqual(status.state, .running)
        XCTAssertEqual(status.session?.segments, [Segment(start: t0, end: t0 + 15), Segment(start: t0 + 22, end: nil)])
        XCTAssertEqual(status.runningSince, t0 + 22)
        XCTAssertEqual(status.settledSeconds, 15)
        XCTAssertEqual(status.session?.activeSeconds(at: clock.time), 18)
    }

    func testPauseResumeStopWhenIdle() throws {
        try project("Writing")
        assertTrackerError("NoCurrentSession", try tracker.pause())
        assertTrackerError("NoCurrentSession", try tracker.resume())
        assertTrackerError("NoCurrentSession", try tracker.stop())
        assertTrackerError("NoCurrentSession", try tracker.addNote("hello"))
        try tracker.startProject("Writing")
        try tracker.stop()
        assertTrackerError("NoCurrentSession", try tracker.pause())
        assertTrackerError("NoCurrentSession", try tracker.resume())
        assertTrackerError("NoCurrentSession", try tracker.stop())
        assertTrackerError("NoCurrentSession", try tracker.addNote("hello"))
        XCTAssertEqual(try allSessions().count, 1)
    }

    func testExactActiveSecondsWithManyPauses() throws {
        try project("Writing")
        let t0 = clock.time
        let id = try tracker.startProject("Writing")
        var expected: [Segment] = []
        var start = t0
        var active: Int64 = 0
        for i in 1...20 {
            let run = Int64(i * 7), rest = Int64(i * 13 % 50)
            clock.advance(run)
            try tracker.pause()
            expected.append(Segment(start: start, end: start + run))
            active += run
            clock.advance(rest)
            try tracker.resume()
            start = start + run + rest
        }
        clock.advance(11)
        XCTAssertEqual(try tracker.status().session?.activeSeconds(at: clock.time), active + 11)
        XCTAssertEqual(try tracker.status().settledSeconds, active)
        XCTAssertEqual(try tracker.stop(), id)
        expected.append(Segment(start: start, end: start + 11))
        let done = try tracker.session(id: id)
        XCTAssertEqual(done.segments, expected)
        XCTAssertEqual(done.activeSeconds(at: .max), active + 11)
        XCTAssertEqual(done.end, clock.time)
        try reopen()
        XCTAssertEqual(try tracker.session(id: id), done)
    }

    // MARK: Toggle

    func testToggleRunningPausedRunning() throws {
        try project("Writing")
        let t0 = clock.time
        try tracker.startProject("Writing")
        clock.advance(20)
        XCTAssertEqual(try tracker.toggle(), .paused)
        clock.advance(20)
        XCTAssertEqual(try tracker.toggle(), .running)
        clock.advance(20)
        XCTAssertEqual(try tracker.status().session?.segments,
                       [Segment(start: t0, end: t0 + 20), Segment(start: t0 + 40, end: nil)])
        XCTAssertEqual(try tracker.status().session?.activeSeconds(at: clock.time), 40)
    }

    func testToggleFromIdleWithoutAnyProjectOrSession() throws {
        assertTrackerError("NoSuchProject", try tracker.toggle())
        try project("Writing")
        // A project exists but was never used: there is still no "most recently used" project.
        assertTrackerError("NoSuchProject", try tracker.toggle())
        XCTAssertEqual(try tracker.status().state, .idle)
        XCTAssertEqual(try tracker.status().lastProjectName, "")
    }

    func testToggleFromIdleStartsTheMostRecentlyUsedProject() throws {
        try project("A")
        let b = try project("B")
        try tracker.startProject("A")
        clock.advance(60)
        let previous = try tracker.startProject("B")
        clock.advance(60)
        try tracker.stop()
        XCTAssertEqual(try tracker.status().lastProjectName, "B")
        clock.advance(600)
        XCTAssertEqual(try tracker.toggle(), .running)
        let status = try tracker.status()
        XCTAssertEqual(status.session?.projectID, b)
        XCTAssertNotEqual(status.session?.id, previous)
        XCTAssertEqual(status.session?.segments, [Segment(start: clock.time, end: nil)])
        XCTAssertEqual(try allSessions().count, 3)
    }

    // MARK: Stop

    func testStopReturnsTheCompletedSession() throws {
        try project("Writing")
        let t0 = clock.time
        let id = try tracker.startProject("Writing")
        clock.advance(90)
        try tracker.pause()
        clock.advance(10)
        XCTAssertEqual(try tracker.stop(), id)
        let status = try tracker.status()
        XCTAssertEqual(status.state, .idle)
        XCTAssertNil(status.session)
        XCTAssertNil(status.project)
        XCTAssertEqual(status.categoryName, "")
        XCTAssertEqual(status.runningSince, 0)
        XCTAssertEqual(status.settledSeconds, 0)
        let done = try tracker.session(id: id)
        XCTAssertEqual(done.state, .completed)
        XCTAssertEqual(done.end, t0 + 100)
        XCTAssertEqual(done.activeSeconds(at: .max), 90)
    }

    func testZeroSecondSessionIsKept() throws {
        try project("Writing")
        let t0 = clock.time
        let id = try tracker.startProject("Writing")
        XCTAssertEqual(try tracker.stop(), id)
        try reopen()
        let done = try tracker.session(id: id)
        XCTAssertEqual(done.start, t0)
        XCTAssertEqual(done.end, t0)
        XCTAssertEqual(done.activeSeconds(at: .max), 0)
        XCTAssertEqual(done.segments, [Segment(start: t0, end: t0)])
        XCTAssertEqual(try tracker.sessions(project: 0, from: t0 - 10, to: t0 + 10).map(\.id), [id])
        XCTAssertEqual(try tracker.sessions(project: 0, from: t0, to: t0 + 1).map(\.id), [id])
        // Two zero-second sessions in a row stay two sessions.
        let second = try tracker.startProject("Writing")
        try tracker.stop()
        XCTAssertNotEqual(second, id)
        XCTAssertEqual(try allSessions().count, 2)
    }

    func testPauseAndResumeInTheSameSecondRecordEveryStep() throws {
        try project("Writing")
        let t0 = clock.time
        try tracker.startProject("Writing")
        try tracker.pause()
        try tracker.resume()
        clock.advance(5)
        try tracker.pause()
        XCTAssertEqual(try tracker.status().session?.segments,
                       [Segment(start: t0, end: t0), Segment(start: t0, end: t0 + 5)])
        XCTAssertEqual(try tracker.status().settledSeconds, 5)
    }

    // MARK: Notes on the timer

    func testAddNoteAppendsLines() throws {
        try project("Writing")
        let id = try tracker.startProject("Writing")
        try tracker.addNote("first")
        try tracker.addNote("  second  ")
        try tracker.pause()
        try tracker.addNote("third")
        XCTAssertEqual(try tracker.status().session?.note, "first\nsecond\nthird")
        try tracker.stop()
        XCTAssertEqual(try tracker.session(id: id).note, "first\nsecond\nthird")
        try reopen()
        XCTAssertEqual(try tracker.session(id: id).note, "first\nsecond\nthird")
    }

    func testAddNoteWithNothingInItIsRefusedAndChangesNothing() throws {
        try project("Writing")
        try tracker.startProject("Writing")
        try tracker.addNote("kept")
        assertTrackerError("InvalidArgument", try tracker.addNote("  \n\t "))
        XCTAssertEqual(try tracker.status().session?.note, "kept")
    }

    func testAddNoteOverTheLimitIsRefused() throws {
        try project("Writing")
        try tracker.startProject("Writing")
        try tracker.addNote(String(repeating: "a", count: 40_000))
        assertTrackerError("InvalidArgument", try tracker.addNote(String(repeating: "b", count: 40_000)))
        XCTAssertEqual(try tracker.status().session?.note.utf8.count, 40_000)
    }

    func testSetNoteOnOpenCompletedAndPastSessions() throws {
        let writing = try project("Writing")
        let past = try tracker.addSession(project: writing, start: base - 86_400, duration: "1h", note: "typed")
        let completed = try tracker.startProject("Writing")
        clock.advance(60)
        try tracker.stop()
        clock.advance(60)
        let open = try tracker.startProject("Writing")
        try tracker.addNote("line")

        try tracker.setNote(session: open, note: "replaced")
        XCTAssertEqual(try tracker.status().session?.note, "replaced")
        try tracker.setNote(session: completed, note: "done")
        try tracker.setNote(session: past, note: "  past\r\nnote ")
        XCTAssertEqual(try tracker.session(id: completed).note, "done")
        XCTAssertEqual(try tracker.session(id: past).note, "past\nnote")

        try tracker.setNote(session: past, note: "")
        XCTAssertEqual(try tracker.session(id: past).note, "")
        try tracker.setNote(session: open, note: "")
        XCTAssertEqual(try tracker.status().session?.note, "")
        try tracker.addNote("after clearing")
        XCTAssertEqual(try tracker.status().session?.note, "after clearing")

        assertTrackerError("NoSuchSession", try tracker.setNote(session: 12345, note: "x"))
        try reopen()
        XCTAssertEqual(try tracker.session(id: completed).note, "done")
        XCTAssertEqual(try tracker.session(id: past).note, "")
        XCTAssertEqual(try tracker.status().session?.note, "after clearing")
    }

    // MARK: Restart

    func testRunningAndPausedTimersSurviveARestart() throws {
        try project("Writing", category: "")
        let t0 = clock.time
        let id = try tracker.startProject("Writing")
        clock.advance(100)
        try reopen()
        XCTAssertEqual(try tracker.status().state, .running)
        XCTAssertEqual(try tracker.status().session?.id, id)
        XCTAssertEqual(try tracker.status().runningSince, t0)
        try tracker.pause()
        clock.advance(100)
        try reopen()
        XCTAssertEqual(try tracker.status().state, .paused)
        XCTAssertEqual(try tracker.status().settledSeconds, 100)
        try tracker.resume()
        clock.advance(1)
        XCTAssertEqual(try tracker.stop(), id)
        XCTAssertEqual(try tracker.session(id: id).segments,
                       [Segment(start: t0, end: t0 + 100), Segment(start: t0 + 200, end: t0 + 201)])
    }

    func testStatusCategoryAndReminderMinutes() throws {
        try tracker.addCategory("Work")
        try project("Writing", category: "work")
        try tracker.startProject("Writing")
        XCTAssertEqual(try tracker.status().categoryName, "Work")
        XCTAssertEqual(tracker.reminderMinutes, 60)
        try tracker.setReminderMinutes(0)
        XCTAssertEqual(tracker.reminderMinutes, 0)
        try tracker.setReminderMinutes(25)
        assertTrackerError("InvalidArgument", try tracker.setReminderMinutes(7 * 24 * 60 + 1))
        try reopen()
        XCTAssertEqual(tracker.reminderMinutes, 25)
    }
}
