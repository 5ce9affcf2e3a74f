import XCTest
@testable import TimeCore

/// The snapshot keeper keeps the sessions of the last day before today whose chunk it wrote, each
/// serialised (SnapshotKeeper+KeptDay.swift), and brings them up to date from each change's marks.
/// After every kind of change to that day's sessions the newest snapshot must hold the store's
/// state record by record, and the day's chunk must be the one the store's own query of the day
/// gives; a write the keeper did not see must have the day read whole again.
final class KeptDayTests: KeeperTestCase {
    private var day: String { CivilDate.utcDayKey(dayStart) }
    /// Noon, two years back.
    private var dayStart: Int64 { (clock.time - 730 * 86400) / 86400 * 86400 + 43200 }

    override func setUpWithError() throws {
        try super.setUpWithError()
        _ = try tracker.createProject(name: "Writing", color: "", category: "")
        _ = try tracker.createProject(name: "Reading", color: "", category: "")
    }

    /// The oracle: the snapshot read back against the store, and the day's chunk in the tree
    /// against the chunk of the store's query of the day.
    private func check(_ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let kept = try XCTUnwrap(keeper.entries.last, file: file, line: line)
        XCTAssertEqual(try keeper.state(of: kept).differences(from: DataState(store: tracker.store)), [], what, file: file, line: line)
        let sessions = try tracker.store.completedSessions(inPeriod: day)
        let expected = sessions.isEmpty ? nil : SHA256.hex(SnapshotFormat.chunk(period: day, sessions: sessions))
        XCTAssertEqual(keeper.tree.reference(at: day)?.sha256, expected, what, file: file, line: line)
        XCTAssertEqual(keeper.tree.reference(at: day)?.sessions ?? 0, sessions.count, what, file: file, line: line)
    }

    private func add(_ offset: Int64, _ duration: String = "20m", project: ProjectID = 1) throws -> SessionID {
        try tracker.addSession(project: project, start: dayStart + offset, duration: duration, note: "")
    }

    /// Two sessions on the day, an hour apart, the one at `index` edited so that the day is kept.
    private func twoSessionsKept(editing index: Int) throws -> (SessionID, SessionID) {
        let ids = [try add(0), try add(3600)]
        try tracker.editSession(id: ids[index], changes: SessionChanges(duration: "30m"))
        try check("kept")
        return (ids[0], ids[1])
    }

    func testTheKeptDayFollowsEveryChangeToItsSessions() throws {
        let first = try add(0)
        let second = try add(3600)
        let third = try add(7200, "1h")
        try check("three sessions on a day two years back")
        let whole = keeper.keptDayReads.whole, reads = tracker.store.finishedSessionReads
        for (index, duration) in ["25m", "26m", "25m"].enumerated() {
            try tracker.editSession(id: second, changes: SessionChanges(duration: duration))
            try check("the duration edited, \(index + 1)")
        }
        XCTAssertEqual(keeper.keptDayReads.whole, whole, "an edit of the kept day read it whole")
        XCTAssertEqual(tracker.store.finishedSessionReads, reads, "the edited session was read back for its day's chunk")
        try tracker.editSession(id: first, changes: SessionChanges(projectID: 2, note: "moved to Reading"))
        try check("a session's project and note")
        try tracker.editSession(id: third, changes: SessionChanges(start: dayStart - 600))
        try check("a session's start moved within the day")
        try tracker.editSession(id: third, changes: SessionChanges(start: dayStart + 86400))
        try check("a session moved to the next day")
        let other = try tracker.addSession(project: 1, start: dayStart - 86400, duration: "5m", note: "")
        try tracker.editSession(id: other, changes: SessionChanges(start: dayStart + 9000))
        try check("a session of the day before moved into the day")
        let added = try add(10_000, "1m")
        try check("a session added")
        try tracker.deleteSession(id: first)
        try check("a session deleted")
        _ = try tracker.undo()
        try check("the delete undone")
        _ = try tracker.redo()
        try check("and redone")
        try tracker.deleteSession(id: added)
        try tracker.deleteSession(id: second)
        try tracker.deleteSession(id: other)
        try check("the day emptied")
        _ = try add(500)
        try check("a session on the emptied day")
        XCTAssertGreaterThan(keeper.keptDayReads.kept, 10)
    }

    /// Today's changes between two edits of the day (the bench's round: a start, a Pause, a
    /// Resume, a note, a switch, a Stop) keep it in step, so that the second edit finds it kept.
    func testChangesToTodayKeepTheDayInStep() throws {
        let first = try add(0)
        try tracker.editSession(id: first, changes: SessionChanges(duration: "30m"))
        let whole = keeper.keptDayReads.whole, reads = tracker.store.finishedSessionReads
        for round in 0..<3 {
            clock.time += 60
            _ = try tracker.startProject("Writing")
            clock.time += 60
            try tracker.pause()
            clock.time += 60
            try tracker.resume()
            try tracker.addNote("round \(round)")
            clock.time += 60
            _ = try tracker.startProject("Reading")
            clock.time += 60
            _ = try tracker.stop()
            try tracker.editSession(id: first, changes: SessionChanges(duration: round % 2 == 0 ? "25m" : "26m"))
            try check("round \(round)")
        }
        XCTAssertEqual(keeper.keptDayReads.whole, whole, "an edit after today's changes read the day whole")
        XCTAssertEqual(tracker.store.finishedSessionReads, reads, "a session was read back to keep the day in step")
    }

    /// A change of more sessions than the kept day follows (an import-sized batch, here of
    /// another day) reads none of them one by one to keep it; the next edit of the day reads it
    /// whole and records it right.
    func testAChangeOfManySessionsHasTheDayReadWhole() throws {
        let first = try add(0)
        try tracker.editSession(id: first, changes: SessionChanges(duration: "30m"))
        let reads = tracker.store.finishedSessionReads
        try tracker.change {
            for index in 0...KeptDay.marksFollowed {
                _ = try tracker.store.insertSession(WorkSession(
                    id: 0, projectID: 1, start: dayStart - 86400 + Int64(index) * 60, end: dayStart - 86400 + Int64(index) * 60 + 30,
                    unrecordedSeconds: 0, note: "", segments: [Segment(start: dayStart - 86400 + Int64(index) * 60, end: dayStart - 86400 + Int64(index) * 60 + 30)]))
            }
        }
        XCTAssertEqual(tracker.store.finishedSessionReads, reads, "the day was followed through every session of the batch")
        let whole = keeper.keptDayReads.whole
        try tracker.editSession(id: first, changes: SessionChanges(duration: "31m"))
        XCTAssertEqual(keeper.keptDayReads.whole, whole + 1)
        try check("the day after a batch of another day's sessions")
    }

    /// A session or a segment written in a transaction the keeper never recorded (SQL outside the
    /// change gate, marking nothing) must not leave the kept parts behind.
    func testAWriteOutsideARecordedChangeMakesTheDayBeReadWhole() throws {
        let (first, second) = try twoSessionsKept(editing: 1)
        try tracker.store.database.run("UPDATE segments SET end = end - 60 WHERE session_id = ?", .integer(first))
        try tracker.store.database.run("UPDATE sessions SET end = end - 60 WHERE id = ?", .integer(first))
        let whole = keeper.keptDayReads.whole
        try tracker.editSession(id: second, changes: SessionChanges(duration: "31m"))
        XCTAssertEqual(keeper.keptDayReads.whole, whole + 1, "the day was not read again")
        try check("the session written outside the keeper's view is in the chunk as the store holds it")
    }

    /// A change refused after its chunks were made (its slot cannot be written) leaves the kept
    /// day as it was before it: the next change reads the day whole and records the store's state.
    func testARefusedChangeLeavesNothingKeptOfIt() throws {
        let (first, second) = try twoSessionsKept(editing: 0)
        Files.injectedWriteFailure = ENOSPC
        XCTAssertThrowsError(try tracker.editSession(id: first, changes: SessionChanges(duration: "40m")))
        Files.injectedWriteFailure = nil
        // Another session of the day: the refused change's session is not marked again.
        try tracker.editSession(id: second, changes: SessionChanges(note: "after the refusal"))
        try check("a change after the refused one")
        XCTAssertEqual(try tracker.store.session(id: first)?.end.map { $0 - dayStart }, 1800, "the refused change was kept")
    }
}
