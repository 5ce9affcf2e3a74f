import XCTest
@testable import TimeCore

/// The store keeps the open session and the lasting away span it read until a table they come
/// from is written, so that a timer change and its snapshot read them once (Store+KeptReads.swift).
/// What is kept must always be what the store holds: after every kind of change, a refused one,
/// and another connection's commit.
final class KeptReadsTests: KeeperTestCase {
    /// The oracles: every session and every away span read whole, without what the store keeps.
    private func openReadWhole() throws -> WorkSession? { try tracker.store.allSessions().first { $0.end == nil } }
    private func lastingAwayReadWhole() throws -> AwaySpan? { try tracker.store.awaySpans().last { $0.end == nil } }

    /// A minute later, a Pause (or a Resume), then the check.
    private func aMinuteLater(pausing: Bool, _ what: String) throws {
        clock.time += 60
        if pausing { try tracker.pause() } else { try tracker.resume() }
        try check(what)
    }

    private func check(_ what: String) throws {
        XCTAssertEqual(try tracker.store.openSession(), try openReadWhole(), what)
        XCTAssertEqual(try tracker.store.currentAwaySpan(), try lastingAwayReadWhole(), what)
        let newest = try XCTUnwrap(keeper.entries.last)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [], what)
    }

    func testEveryTimerChangeKeepsTheOpenSessionTheStoreHolds() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Reading", color: "", category: "")
        clock.time += 60
        try tracker.startProject("Writing")
        try check("started")
        for round in 0..<3 {
            try aMinuteLater(pausing: true, "paused, round \(round)")
            try aMinuteLater(pausing: false, "resumed, round \(round)")
        }
        try tracker.addNote("a line")
        try check("a note added")
        _ = try tracker.undo()
        try check("the note undone (a changeset applied)")
        _ = try tracker.redo()
        try check("and redone")
        clock.time += 60
        try tracker.startProject("Reading")
        try check("switched")
        clock.time += 60
        try tracker.stop()
        try check("stopped")
        XCTAssertNil(try tracker.store.openSession())
        _ = try tracker.undo()
        try check("the stop undone")
        XCTAssertNotNil(try tracker.store.openSession())
    }

    /// A Pause and a Resume move the kept open session with their own write rather than reading
    /// it back; what they keep is still what the store holds, a zero-length stretch and a second
    /// pause or resume in the same second included. A change the store cannot follow (a pause
    /// moved to an earlier time, a focus phase written with the session) reads it again.
    func testPauseAndResumeFollowTheirOwnWrite() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        clock.time += 60
        try tracker.startProject("Writing")
        try check("started")
        let readsAfterStart = tracker.store.openSessionReads
        for round in 0..<3 {
            try aMinuteLater(pausing: true, "paused, round \(round)")
            if round != 1 { clock.time += 60 }  // round 1: resumed in the second it paused
            try tracker.resume()
            try check("resumed, round \(round)")
        }
        try tracker.pause()  // the same second: a stretch of no length
        try check("paused at once")
        try tracker.resume()
        try check("resumed at once after a stretch of no length")
        XCTAssertEqual(tracker.store.openSessionReads, readsAfterStart, "a Pause or Resume read the open session back")
        let t0 = clock.time - 360  // the clock as the test began
        XCTAssertEqual(try openReadWhole()?.segments, [
            Segment(start: t0 + 60, end: t0 + 120), Segment(start: t0 + 180, end: t0 + 240),
            Segment(start: t0 + 240, end: t0 + 300), Segment(start: t0 + 360, end: t0 + 360),
            Segment(start: t0 + 360, end: nil)])

        clock.time += 120
        try tracker.pause(at: clock.time - 60)
        try check("paused a minute ago")
        try aMinuteLater(pausing: false, "resumed after a pause moved")
        try tracker.startFocus("")
        try aMinuteLater(pausing: true, "paused in a focus phase")
        try aMinuteLater(pausing: false, "resumed in a focus phase")

        // A write beside the segment's (here a trigger's, as a later schema might add) is not
        // followed: the session is read again.
        try tracker.store.database.execute("""
            CREATE TEMP TRIGGER noted AFTER UPDATE OF end ON segments
            BEGIN UPDATE sessions SET note = 'paused' WHERE id = NEW.session_id; END
            """)
        try aMinuteLater(pausing: true, "paused with a trigger writing the session")
        XCTAssertEqual(try tracker.store.openSession()?.note, "paused")
    }

    /// A start, a switch and a Stop keep the open session as they wrote it (a start the session it
    /// inserted, a Stop none) rather than reading it back; what they keep is what the store holds.
    func testStartsSwitchesAndStopsFollowTheirOwnWrites() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Reading", color: "", category: "")
        try check("two projects")
        let readsBefore = tracker.store.openSessionReads
        let finishedReadsBefore = tracker.store.finishedSessionReads
        for round in 0..<3 {
            clock.time += 60
            try tracker.startProject("Writing")
            try check("started, round \(round)")
            clock.time += 60
            try tracker.startProject("Reading")
            try check("switched, round \(round)")
            if round == 1 { try tracker.pause() }
            clock.time += round == 2 ? 0 : 60  // round 2: stopped in the second it began
            try tracker.stop()
            try check("stopped, round \(round)")
            XCTAssertNil(try tracker.store.openSession())
        }
        XCTAssertEqual(tracker.store.openSessionReads, readsBefore, "a start, a switch or a Stop read the open session back")
        XCTAssertEqual(tracker.store.finishedSessionReads, finishedReadsBefore,
                       "the snapshot read the session a switch or a Stop finished")
    }

    /// A store holding two open sessions (written by other means than the tracker): ending the
    /// first does not leave the store's open session as none; one inserted with a row written
    /// beside it (a trigger's, as a later schema might add) is read again.
    func testStartsAndStopsTheStoreCannotFollowReadAgain() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Reading", color: "", category: "")
        clock.time += 60
        let first = try tracker.startProject("Writing")
        try tracker.store.database.execute("""
            INSERT INTO sessions(project_id, start, gid) VALUES(1, \(clock.time + 30), 'another-open-session');
            INSERT INTO segments(session_id, start) VALUES(last_insert_rowid(), \(clock.time + 30));
            """)
        XCTAssertEqual(try tracker.store.openSession()?.id, first)
        clock.time += 60
        try tracker.stop()
        XCTAssertEqual(try tracker.store.openSession(), try openReadWhole())
        XCTAssertEqual(try tracker.store.openSession()?.note, "", "the other open session")
        try tracker.store.database.execute("DELETE FROM sessions WHERE gid = 'another-open-session'")
        XCTAssertNil(try tracker.store.openSession())

        try tracker.store.database.execute("""
            CREATE TEMP TRIGGER noted AFTER INSERT ON sessions
            BEGIN UPDATE sessions SET note = 'begun' WHERE id = NEW.id; END
            """)
        clock.time += 60
        try tracker.startProject("Writing")
        try check("started with a trigger writing the session")
        XCTAssertEqual(try tracker.store.openSession()?.note, "begun")

        // A row written beside a switch's (here the session it ended): the snapshot reads that one.
        try tracker.store.database.execute("""
            DROP TRIGGER noted;
            CREATE TEMP TRIGGER ended AFTER INSERT ON sessions
            BEGIN UPDATE sessions SET note = 'ended' WHERE end IS NOT NULL AND id = NEW.id - 1; END
            """)
        clock.time += 60
        let ended = try XCTUnwrap(tracker.store.openSession()?.id)
        try tracker.startProject("Reading")
        try check("switched with a trigger writing the session it ended")
        XCTAssertEqual(try tracker.session(id: ended).note, "ended")
    }

    /// An edit of the open session's row (a note added or set, its project moved) moves the kept
    /// open session with its write too; one that rewrites its segments (a start moved) reads it again.
    func testAnEditOfTheOpenSessionsRowFollowsItsOwnWrite() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Reading", color: "", category: "")
        clock.time += 600
        let id = try tracker.startProject("Writing")
        try check("started")
        let readsAfterStart = tracker.store.openSessionReads
        try tracker.addNote("a line")
        try check("a note added")
        try tracker.addNote("ünïcode\tand a tab")
        try check("another line")
        try tracker.setNote(session: id, note: "set whole")
        try check("the note set")
        try tracker.editSession(id: id, changes: SessionChanges(projectID: 2, note: "moved"))
        try check("moved to another project")
        XCTAssertEqual(tracker.store.openSessionReads, readsAfterStart, "an edit of the open session's row read it back")
        try tracker.editSession(id: id, changes: SessionChanges(start: clock.time - 300))
        try check("its start moved (its segments rewritten)")
        XCTAssertEqual(tracker.store.openSessionReads, readsAfterStart + 1, "a start moved (its segments rewritten) reads it again")
    }

    /// A change refused after the open session was read back: its rows are rolled back, and
    /// neither the store nor the tracker may go on with the session as the refused change left it.
    func testARefusedChangeKeepsNothingOfIt() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.startProject("Writing")
        clock.time += 60
        try tracker.pause()
        clock.time += 60
        Files.injectedWriteFailure = EIO
        defer { Files.injectedWriteFailure = nil }
        XCTAssertThrowsError(try tracker.resume())
        Files.injectedWriteFailure = nil
        XCTAssertEqual(try tracker.store.openSession(), try openReadWhole())
        XCTAssertEqual(try tracker.status().state, .paused)
        clock.time += 60
        try tracker.resume()
        try check("resumed after the refused change")
    }

    /// Another connection's commit is not seen by the update hook: the next change's snapshot
    /// holds what it wrote, even a change that writes neither sessions nor segments.
    func testAnotherConnectionsCommitReachesTheNextSnapshot() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.startProject("Writing")
        clock.time += 60
        try tracker.pause()
        let other = try SQLiteDatabase(path: folder.path + "/time.sqlite", mode: .readWrite)
        try other.execute("UPDATE sessions SET note = 'written elsewhere' WHERE end IS NULL")
        try tracker.addCategory("Work")
        try check("a category added after another connection's commit")
        XCTAssertEqual(try tracker.store.openSession()?.note, "written elsewhere")
    }

    func testTheLastingAwaySpanIsKeptAsTheStoreHoldsIt() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.startProject("Writing")
        for round in 0..<3 {
            clock.time += 600
            try tracker.markAway(reason: .manual, at: clock.time - 300)
            try check("away, round \(round)")
            XCTAssertNotNil(try tracker.store.currentAwaySpan())
            clock.time += 60
            try tracker.pause()
            try check("paused while away, round \(round)")
            XCTAssertNil(try tracker.store.currentAwaySpan(), "the pause ended the span")
            clock.time += 60
            try tracker.resume()
            try check("resumed, round \(round)")
        }
        clock.time += 600
        try tracker.markAway(reason: .manual, at: clock.time - 300)
        _ = try tracker.undo()
        try check("the away mark undone")
        XCTAssertNil(try tracker.store.currentAwaySpan())
        // Another connection's span: the next change's snapshot and the store see it.
        let other = try SQLiteDatabase(path: folder.path + "/time.sqlite", mode: .readWrite)
        try other.run("INSERT INTO away_spans(id, session_id, start, end, reason) VALUES(900, 1, ?, NULL, 'manual')", .integer(clock.time - 120))
        try tracker.addCategory("Work")
        try check("a category added after another connection's span")
        XCTAssertEqual(try tracker.store.currentAwaySpan()?.id, 900)
    }
}
