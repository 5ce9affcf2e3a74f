import Glibc
import XCTest
@testable import TimeCore

/// The contract's "Fixing what was forgotten" at its edges: every time a person gives goes
/// through one validator (the future with 5 s of grace, 24 hours back, the segment or pause it
/// must not cross, an overlap with a completed session, `adjust`). Expected times are written as
/// UTC wall-clock times (`utc`), never computed by the code under test.
final class CorrectionTests: TrackerTestCase {
    private var savedTZ: String?

    override func setUpWithError() throws {
        savedTZ = getenv("TZ").map { String(cString: $0) }
        setenv("TZ", "UTC", 1)
        tzset()
        try super.setUpWithError()
        _ = try tracker.createProject(name: "Writing", color: "", category: "")
        _ = try tracker.createProject(name: "Email", color: "", category: "")
    }

    override func tearDownWithError() throws {
        try super.tearDownWithError()
        if let savedTZ { setenv("TZ", savedTZ, 1) } else { unsetenv("TZ") }
        tzset()
    }

    /// 2026-06-01 at `hour:minute:second` UTC (the test clock starts at 08:00 that day).
    private func at(_ hour: Int, _ minute: Int, _ second: Int = 0) -> Int64 { utc(2026, 6, 1, hour, minute, second) }
    private var open: WorkSession? { try? tracker.status().session }
    private func newestStep() throws -> String { try tracker.history(count: 1).first?.description ?? "" }

    // MARK: The future and the past

    func testExactlyNowAndFiveSecondsAheadAreNowButSixSecondsAheadIsTheFuture() throws {
        try tracker.startProject("Writing", at: clock.time)
        XCTAssertEqual(open?.start, at(8, 0))
        _ = try tracker.stop()
        clock.advance(60)
        try tracker.startProject("Writing", at: clock.time + 5)
        XCTAssertEqual(open?.start, at(8, 1), "inside the grace the time is now, never ahead of it")
        XCTAssertEqual(open?.segments, [Segment(start: at(8, 1), end: nil)])
        let before = try allSessions()
        let message = assertTrackerError("InvalidArgument", try tracker.pause(at: clock.time + 6))
        XCTAssertTrue(message.contains("in the future"), message)
        XCTAssertEqual(try allSessions(), before, "nothing changed")
        assertTrackerError("InvalidArgument", try tracker.stop(at: clock.time + 6))
        assertTrackerError("InvalidArgument", try tracker.startProject("Email", at: clock.time + 6))
        XCTAssertEqual(try allSessions(), before)
    }

    func testExactly24HoursBackIsAcceptedAndOneSecondMoreNamesAddSessionAndEditSession() throws {
        let message = assertTrackerError("InvalidArgument", try tracker.startProject("Writing", at: clock.time - 86_401))
        XCTAssertTrue(message.contains("AddSession") && message.contains("EditSession") && message.contains("24 hours"), message)
        XCTAssertEqual(try allSessions(), [])
        try tracker.startProject("Writing", at: clock.time - 86_400)
        XCTAssertEqual(open?.start, utc(2026, 5, 31, 8))
    }

    // MARK: Overlaps

    func testAStartEqualToThePreviousEndIsNoOverlapAndOneSecondBeforeIs() throws {
        try tracker.addSession(project: 2, start: at(7, 0), duration: "30m", note: "")
        let message = assertTrackerError("Overlap", try tracker.startProject("Writing", at: at(7, 29, 59)))
        XCTAssertTrue(message.contains("Email 2026-06-01 07:00–07:30 (session 1)"), message)
        XCTAssertTrue(message.contains("adjust"), message)
        XCTAssertEqual(try allSessions().count, 1, "refused: nothing changed")
        try tracker.startProject("Writing", at: at(7, 30))
        XCTAssertEqual(open?.start, at(7, 30))
        XCTAssertEqual(try tracker.session(id: 1).end, at(7, 30), "the earlier session untouched")
    }

    func testAdjustShortensTheOverlappedSessionKeepingItsTimeBefore() throws {
        try tracker.addSession(project: 2, start: at(7, 0), duration: "30m", note: "")
        try tracker.startProject("Writing", at: at(7, 20), adjust: true)
        let email = try tracker.session(id: 1)
        XCTAssertEqual(email.end, at(7, 20))
        XCTAssertEqual(email.segments, [Segment(start: at(7, 0), end: at(7, 20))])
        XCTAssertEqual(open?.start, at(7, 20))
        XCTAssertEqual(try newestStep(), "Started Writing at 07:20; Email ended 07:20 instead of 07:30")
        try tracker.undo()
        XCTAssertEqual(try tracker.session(id: 1).segments, [Segment(start: at(7, 0), end: at(7, 30))])
        XCTAssertNil(open)
        XCTAssertEqual(try allSessions().count, 1)
    }

    func testASessionThatBeganAtOrAfterTheNewStartIsNeverShortenedEvenWithAdjust() throws {
        try tracker.addSession(project: 2, start: at(7, 0), duration: "30m", note: "")
        for start in [at(7, 0), at(6, 50)] {
            let message = assertTrackerError("Overlap", try tracker.startProject("Writing", at: start, adjust: true))
            XCTAssertTrue(message.contains("never shortened or removed"), message)
        }
        XCTAssertEqual(try allSessions().map(\.segments), [[Segment(start: at(7, 0), end: at(7, 30))]])
    }

    func testSwitchingAtATimeCompletesTheOpenSessionThereAndSaysBothSides() throws {
        try tracker.startProject("Writing", at: at(7, 0))
        try tracker.startProject("Email", at: at(7, 40))
        let writing = try tracker.session(id: 1)
        XCTAssertEqual(writing.end, at(7, 40))
        XCTAssertEqual(writing.segments, [Segment(start: at(7, 0), end: at(7, 40))])
        XCTAssertEqual(open?.segments, [Segment(start: at(7, 40), end: nil)])
        XCTAssertEqual(try newestStep(), "Started Email at 07:40; Writing ended 07:40")
        XCTAssertEqual(try tracker.undo(), "Started Email at 07:40; Writing ended 07:40")
        XCTAssertEqual(open?.id, 1)
        XCTAssertEqual(open?.segments, [Segment(start: at(7, 0), end: nil)], "undo reopens the exact segment")
    }

    func testSwitchingKeepsAPauseThatBeganBeforeTheStart() throws {
        try tracker.startProject("Writing", at: at(7, 0))
        try tracker.pause(at: at(7, 20))
        try tracker.startProject("Email", at: at(7, 40))
        XCTAssertEqual(try tracker.session(id: 1).segments, [Segment(start: at(7, 0), end: at(7, 20))])
        XCTAssertEqual(try tracker.session(id: 1).end, at(7, 40))
    }

    func testSwitchingBeforeTheOpenSessionBeganIsAnOverlap() throws {
        try tracker.startProject("Writing", at: at(7, 30))
        let message = assertTrackerError("Overlap", try tracker.startProject("Email", at: at(7, 10), adjust: true))
        XCTAssertTrue(message.contains("Writing") && message.contains("07:30"), message)
        XCTAssertEqual(open?.segments, [Segment(start: at(7, 30), end: nil)])
    }

    func testTheSameProjectEarlierMovesTheStartBackAndLaterResumesAPausedOne() throws {
        try tracker.startProject("Writing", at: at(7, 30))
        try tracker.startProject("Writing", at: at(7, 0))
        XCTAssertEqual(open?.segments, [Segment(start: at(7, 0), end: nil)])
        XCTAssertEqual(try newestStep(), "Writing started at 07:00 instead of 07:30")
        try tracker.pause(at: at(7, 45))
        try tracker.startProject("Writing", at: at(7, 50))
        XCTAssertEqual(open?.segments, [Segment(start: at(7, 0), end: at(7, 45)), Segment(start: at(7, 50), end: nil)])
        try tracker.startProject("Writing", at: at(7, 55))
        XCTAssertEqual(open?.segments.count, 2, "running: a later time changes nothing")
    }

    // MARK: Pause, resume, stop: segments exact

    func testPausingAtNoonAt1240Removes40MinutesAndResumingAt13At1320Adds20() throws {
        clock.time = at(11, 0)
        try tracker.startProject("Writing")
        clock.time = at(12, 40)
        XCTAssertEqual(open?.activeSeconds(at: clock.time), 100 * 60)
        try tracker.pause(at: at(12, 0))
        XCTAssertEqual(open?.segments, [Segment(start: at(11, 0), end: at(12, 0))])
        XCTAssertEqual(open?.activeSeconds(at: clock.time), 60 * 60, "40 active minutes removed")
        XCTAssertEqual(try newestStep(), "Paused Writing at 12:00")
        clock.time = at(13, 20)
        try tracker.resume(at: at(13, 0))
        XCTAssertEqual(open?.segments, [Segment(start: at(11, 0), end: at(12, 0)), Segment(start: at(13, 0), end: nil)])
        XCTAssertEqual(open?.activeSeconds(at: clock.time), 80 * 60, "20 minutes added")
        XCTAssertEqual(try tracker.status().runningSince, at(13, 0))
        try tracker.undo()
        XCTAssertEqual(open?.segments, [Segment(start: at(11, 0), end: at(12, 0))])
        try tracker.undo()
        XCTAssertEqual(open?.segments, [Segment(start: at(11, 0), end: nil)], "undo restores the exact segment")
    }

    func testAPauseBeforeItsSegmentBeganAndAResumeBeforeThePauseAreRefused() throws {
        try tracker.startProject("Writing", at: at(7, 0))
        try tracker.pause(at: at(7, 20))
        try tracker.resume(at: at(7, 30))
        var message = assertTrackerError("InvalidArgument", try tracker.pause(at: at(7, 29, 59)))
        XCTAssertTrue(message.contains("07:30"), message)
        try tracker.pause(at: at(7, 30))
        XCTAssertEqual(open?.segments, [Segment(start: at(7, 0), end: at(7, 20)), Segment(start: at(7, 30), end: at(7, 30))],
                       "a pause exactly where the stretch began leaves it 0 seconds, never negative")
        message = assertTrackerError("InvalidArgument", try tracker.resume(at: at(7, 29)))
        XCTAssertTrue(message.contains("paused at 07:30"), message)
    }

    func testPausedAlreadyMovesThePauseAndRunningAlreadyMovesTheResume() throws {
        try tracker.startProject("Writing", at: at(7, 0))
        try tracker.pause(at: at(7, 40))
        try tracker.pause(at: at(7, 30))
        XCTAssertEqual(open?.segments, [Segment(start: at(7, 0), end: at(7, 30))])
        XCTAssertEqual(try newestStep(), "Paused Writing since 07:30 instead of 07:40")
        try tracker.resume(at: at(7, 50))
        try tracker.resume(at: at(7, 45))
        XCTAssertEqual(open?.segments, [Segment(start: at(7, 0), end: at(7, 30)), Segment(start: at(7, 45), end: nil)])
        XCTAssertEqual(try newestStep(), "Resumed Writing at 07:45 instead of 07:50")
        _ = try tracker.stop()
        try tracker.startProject("Email", at: at(8, 0))
        let message = assertTrackerError("InvalidArgument", try tracker.resume(at: at(8, 0)))
        XCTAssertTrue(message.contains("without a pause"), message)
    }

    func testStopAtCutsLaterSegmentsAndIsRefusedBeforeTheSessionBegan() throws {
        try tracker.startProject("Writing", at: at(7, 0))
        try tracker.pause(at: at(7, 20))
        try tracker.resume(at: at(7, 30))
        let message = assertTrackerError("InvalidArgument", try tracker.stop(at: at(6, 59, 59)))
        XCTAssertTrue(message.contains("began at 07:00"), message)
        XCTAssertEqual(try tracker.stop(at: at(7, 25)), 1)
        let writing = try tracker.session(id: 1)
        XCTAssertEqual(writing.segments, [Segment(start: at(7, 0), end: at(7, 20))])
        XCTAssertEqual(writing.end, at(7, 25))
        XCTAssertEqual(try newestStep(), "Stopped Writing at 07:25 after 0:20")
        try tracker.undo()
        XCTAssertEqual(open?.segments, [Segment(start: at(7, 0), end: at(7, 20)), Segment(start: at(7, 30), end: nil)])
        XCTAssertEqual(try tracker.stop(at: at(7, 0)), 1)
        XCTAssertEqual(try tracker.session(id: 1).segments, [Segment(start: at(7, 0), end: at(7, 0))], "0 seconds, kept")
    }

    // MARK: Away spans follow

    func testAnAwaySpanInsideRemovedTimeDisappearsAndOneAcrossItShrinks() throws {
        clock.time = at(11, 0)
        try tracker.startProject("Writing")
        clock.time = at(12, 10)
        try tracker.markAway(reason: .lock, at: at(12, 10))
        clock.time = at(12, 40)
        try tracker.pause(at: at(12, 0))
        XCTAssertEqual(try tracker.store.awaySpans(), [], "the span was inside the removed time")
        try tracker.undo()
        XCTAssertEqual(try tracker.store.awaySpans().map(\.start), [at(12, 10)])
        try tracker.markBack(at: at(12, 40))
        try tracker.stop(at: at(12, 30))
        let spans = try tracker.store.awaySpans()
        XCTAssertEqual(spans.map(\.start), [at(12, 10)])
        XCTAssertEqual(spans.map(\.end), [at(12, 30)], "the span ends where the session now ends")
    }

    // MARK: Editing the open session

    func testEditingTheOpenSessionsStartProjectAndNoteInOneStep() throws {
        clock.time = at(9, 12)
        try tracker.startProject("Writing")
        try tracker.editSession(id: 1, changes: SessionChanges(start: at(9, 0)))
        XCTAssertEqual(open?.start, at(9, 0))
        XCTAssertEqual(open?.segments, [Segment(start: at(9, 0), end: nil)])
        XCTAssertEqual(try newestStep(), "Writing started at 09:00 instead of 09:12")
        try tracker.editSession(id: 1, changes: SessionChanges(projectID: 2, note: "inbox"))
        XCTAssertEqual(open?.projectID, 2)
        XCTAssertEqual(open?.note, "inbox")
        let message = assertTrackerError("InvalidArgument", try tracker.editSession(id: 1, changes: SessionChanges(duration: "1h")))
        XCTAssertTrue(message.contains("StopAt"), message)
        assertTrackerError("InvalidArgument", try tracker.editSession(id: 1, changes: SessionChanges(start: at(9, 12, 6))))
        try tracker.pause(at: at(9, 5))
        let past = assertTrackerError("InvalidArgument", try tracker.editSession(id: 1, changes: SessionChanges(start: at(9, 6))))
        XCTAssertTrue(past.contains("09:05"), past)
        try tracker.undo()
        try tracker.undo()
        XCTAssertEqual(open?.projectID, 1)
        try tracker.undo()
        XCTAssertEqual(open?.segments, [Segment(start: at(9, 12), end: nil)])
    }

    func testEditingTheOpenStartOverACompletedSessionIsAnOverlapUnlessAdjusted() throws {
        try tracker.addSession(project: 2, start: at(6, 0), duration: "1h", note: "")
        try tracker.startProject("Writing", at: at(7, 30))
        assertTrackerError("Overlap", try tracker.editSession(id: 2, changes: SessionChanges(start: at(6, 30))))
        try tracker.editSession(id: 2, changes: SessionChanges(start: at(6, 30), adjust: true))
        XCTAssertEqual(try tracker.session(id: 1).segments, [Segment(start: at(6, 0), end: at(6, 30))])
        XCTAssertEqual(try newestStep(), "Writing started at 06:30 instead of 07:30; Email ended 06:30 instead of 07:00")
    }

    // MARK: Daylight saving time

    /// "at 02:30" on the night the clocks go forward in Europe/Berlin: TimeClient's date parser
    /// resolves the skipped time forward by the gap (mktime), to 03:30 CEST = 01:30 UTC.
    func testASkippedLocalTimeResolvedForwardGivesNoNegativeSegment() throws {
        try withTimeZone("Europe/Berlin") {
            clock.time = utc(2026, 3, 29, 5)  // 07:00 CEST
            try tracker.startProject("Writing", at: utc(2026, 3, 29, 1, 30))
            try tracker.pause(at: utc(2026, 3, 29, 1, 30))
            XCTAssertEqual(open?.segments, [Segment(start: utc(2026, 3, 29, 1, 30), end: utc(2026, 3, 29, 1, 30))])
            assertTrackerError("InvalidArgument", try tracker.stop(at: utc(2026, 3, 29, 1, 29)))
            try tracker.resume(at: utc(2026, 3, 29, 2))
            XCTAssertEqual(try tracker.stop(at: utc(2026, 3, 29, 4)), 1)
            let session = try tracker.session(id: 1)
            XCTAssertTrue(session.segments.allSatisfy { ($0.end ?? 0) >= $0.start })
            XCTAssertEqual(session.activeSeconds(at: clock.time), 2 * 3600)
            XCTAssertEqual(try newestStep(), "Stopped Writing at 06:00 after 2:00")
        }
    }

    // MARK: Overlaps said, never refused, for time typed by hand

    func testOverlapsOfSessionsAddedByHandAreListedAndCounted() throws {
        try tracker.addSession(project: 1, start: utc(2026, 5, 31, 9), duration: "1h", note: "")
        try tracker.addSession(project: 2, start: utc(2026, 5, 31, 9, 30), duration: "1h", note: "")
        try tracker.addSession(project: 2, start: utc(2026, 5, 31, 10, 30), duration: "1h", note: "")
        let sessions = try tracker.sessions(project: 0, from: utc(2026, 5, 31), to: utc(2026, 6, 1))
        XCTAssertEqual(try tracker.overlaps(of: sessions), [1: [2], 2: [1]], "touching at 10:30 is no overlap")
        let report = try JSON.parse(try tracker.report(range: "2026-05-31", options: ReportOptions(format: "json", group: nil, columns: nil, project: nil, tag: nil,
                                                                                                        round: nil, roundMode: nil, decimal: nil)))
        XCTAssertEqual(report["overlapping"]?.intValue, 2)
        let text = try tracker.report(range: "2026-05-31", options: ReportOptions())
        XCTAssertTrue(text.contains("2 sessions overlap another"), text)
        let clean = try tracker.report(range: "2026-05-30", options: ReportOptions())
        XCTAssertFalse(clean.contains("overlap"), clean)
    }
}
