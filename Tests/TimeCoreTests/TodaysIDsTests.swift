import XCTest
@testable import TimeCore

/// The snapshot keeper keeps today's finished sessions' ids between changes and updates them
/// from each change's marks, the changes that do not need them too (SnapshotKeeper+TodaysIDs.swift). After every kind of change to
/// today's sessions (finishing, deleting, moving one out of the day and one into it, undoing a
/// stop, crossing the inline blocks), the kept ids must be what the store holds, and the newest
/// snapshot must hold the store's state record by record.
final class TodaysIDsTests: KeeperTestCase {
    private var today: String { CivilDate.utcDayKey(clock.time) }

    override func setUpWithError() throws {
        try super.setUpWithError()
        _ = try tracker.createProject(name: "Writing", color: "", category: "")
        _ = try tracker.createProject(name: "Reading", color: "", category: "")
    }

    /// The oracle: the store's own query of the day, and the snapshot read back against the store.
    private func check(_ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let expected = try tracker.store.completedSessionIDs(inPeriod: today)
        XCTAssertEqual(keeper.todaysIDs?.ids, expected, what, file: file, line: line)
        let kept = try XCTUnwrap(keeper.entries.last, file: file, line: line)
        XCTAssertEqual(try keeper.state(of: kept).differences(from: DataState(store: tracker.store)), [], what, file: file, line: line)
    }

    /// Finishes `count` sessions today, one a minute, switching between the two projects.
    private func switchProjects(_ count: Int) throws -> [SessionID] {
        var finished: [SessionID] = []
        for index in 0..<count {
            clock.time += 60
            let before = try tracker.store.openSession()?.id
            _ = try tracker.startProject(index % 2 == 0 ? "Reading" : "Writing")
            if let before { finished.append(before) }
        }
        return finished
    }

    func testTheKeptIDsFollowEveryChangeToTodaysSessions() throws {
        _ = try tracker.startProject("Writing")
        var finished = try switchProjects(5)
        try check("five sessions finished by switching")
        finished += try switchProjects(35)
        try check("past the first inline block")
        try tracker.deleteSession(id: finished[3])
        try check("a session of today's chunk deleted")
        let yesterday = clock.time - 86400
        try tracker.editSession(id: finished[4], changes: SessionChanges(start: yesterday))
        try check("a session of today's chunk moved to yesterday")
        let added = try tracker.addSession(project: 1, start: yesterday - 7200, duration: "10m", note: "")
        try check("a session added yesterday")
        try tracker.editSession(id: added, changes: SessionChanges(start: clock.time - 3 * 3600))
        try check("yesterday's session moved into today")
        clock.time += 60
        _ = try tracker.stop()
        try check("stopped")
        _ = try tracker.undo()
        try check("the stop undone: the session is open again")
        _ = try tracker.redo()
        try check("and redone")
        _ = try tracker.startProject("Writing")
        _ = try switchProjects(30)
        try check("past the second inline block")
        clock.time += 60
        try tracker.pause()
        try check("paused (no session finished)")
    }

    /// Changes that do not need today's ids (a note on the open session, a pause, an edit of
    /// another day's session) keep them in step, so that the next switch or Stop finds them kept
    /// and reads only the session it finished.
    func testChangesThatDoNotNeedTheIDsKeepThemInStep() throws {
        let yesterday = try tracker.addSession(project: 1, start: clock.time - 86400, duration: "10m", note: "")
        _ = try tracker.startProject("Writing")
        _ = try switchProjects(3)
        try check("three sessions today")
        try tracker.addNote("a line")
        clock.time += 60
        try tracker.pause()
        clock.time += 60
        try tracker.resume()
        try tracker.setNote(session: yesterday, note: "another day's session")
        try check("a note, a pause, a resume, another day's session edited")
        clock.time += 60
        let open = try XCTUnwrap(tracker.store.openSession())
        _ = try tracker.startProject(open.projectID == 1 ? "Reading" : "Writing")
        XCTAssertTrue(keeper.todaysIDsWereKept, "the switch read the day whole")
        try check("switched")
        clock.time += 60
        _ = try tracker.stop()
        XCTAssertTrue(keeper.todaysIDsWereKept, "the stop read the day whole")
        try check("stopped")
    }

    /// A session written in a transaction the keeper never recorded (here: SQL outside the change
    /// gate, marking nothing) must not leave the kept ids behind: the next change that finishes a
    /// session reads the day again.
    func testASessionWrittenOutsideARecordedChangeMakesTheDayBeReadAgain() throws {
        _ = try tracker.startProject("Writing")
        let finished = try switchProjects(6)
        try check("six sessions finished")
        try tracker.store.database.run("DELETE FROM sessions WHERE id = ?", .integer(finished[2]))
        _ = try switchProjects(1)
        XCTAssertEqual(keeper.todaysIDs?.ids, try tracker.store.completedSessionIDs(inPeriod: today),
                       "the kept ids still name a session deleted outside the keeper's view")
    }

    /// Today's inline sessions are read by their range of ids while few sessions were made since
    /// the first of them, and by the day's index once many were (here added to another day).
    func testInlineSessionsAfterManySessionsOfAnotherDay() throws {
        _ = try tracker.startProject("Writing")
        _ = try switchProjects(3)
        try check("three sessions today, read by their ids")
        let yesterday = clock.time - 86400
        for index in 0..<(4 * SnapshotKeeper.inlineBlock) {
            _ = try tracker.addSession(project: 1, start: yesterday + Int64(index) * 60, duration: "1m", note: "")
        }
        try check("many sessions added yesterday since")
        _ = try switchProjects(2)
        try check("two more today, read by the day's index")
    }

    /// A new day starts from the store's own query.
    func testANewDayIsReadWhole() throws {
        _ = try tracker.startProject("Writing")
        _ = try switchProjects(4)
        try check("four sessions today")
        clock.time += 86400
        _ = try switchProjects(2)
        try check("two sessions the next day")
    }
}
