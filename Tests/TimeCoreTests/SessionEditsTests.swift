import XCTest
@testable import TimeCore

/// An edit of a finished session writes only what changed (Store+SessionEdits.swift): the
/// columns of its row named in the UPDATE are the ones that changed, and its segments keep their
/// rows (and ids) where the old and the new line up. What a person sees is the same as when the
/// whole session was written again: the session read back, its snapshot, and its undo.
final class SessionEditsTests: KeeperTestCase {
    private func segmentIDs(of id: SessionID) throws -> [Int64] {
        try tracker.store.database.query("SELECT id FROM segments WHERE session_id = ? ORDER BY start, id", .integer(id)) { $0.int(0) }
    }

    /// Which columns of `sessions` each UPDATE named, as SQLite's `UPDATE OF` triggers see them.
    private func recordColumnsNamed() throws {
        var sql = "CREATE TEMP TABLE named(col TEXT);"
        for column in ["project_id", "start", "end", "unrecorded_seconds", "note"] {
            sql += "CREATE TEMP TRIGGER named_\(column) AFTER UPDATE OF \(column) ON sessions BEGIN INSERT INTO named VALUES('\(column)'); END;"
        }
        try tracker.store.database.execute(sql)
    }

    private func columnsNamed() throws -> [String] {
        defer { try? tracker.store.database.execute("DELETE FROM named") }
        return try tracker.store.database.query("SELECT col FROM named ORDER BY rowid") { $0.string(0) }
    }

    private func checkSnapshot(_ what: String) throws {
        let newest = try XCTUnwrap(keeper.entries.last)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [], what)
    }

    func testADurationEditWritesTheEndAloneAndKeepsTheSegmentsRow() throws {
        let id = try aSessionToChange()
        let before = try tracker.session(id: id)
        let ids = try segmentIDs(of: id)
        try recordColumnsNamed()
        try tracker.editSession(id: id, changes: SessionChanges(duration: "25m"))
        XCTAssertEqual(try columnsNamed(), ["end"])
        XCTAssertEqual(try segmentIDs(of: id), ids, "the segment's row was changed in place")
        let after = try tracker.session(id: id)
        XCTAssertEqual(after.end, before.start + 25 * 60)
        XCTAssertEqual(after.segments, [Segment(start: before.start, end: before.start + 25 * 60)])
        try checkSnapshot("a duration edited")
        try tracker.undo()
        XCTAssertEqual(try tracker.session(id: id), before)
        try checkSnapshot("the edit undone")
    }

    func testAStartShiftMovesEverySegmentInPlaceInTheirOrder() throws {
        // A session with three stretches, one of no length at the same second as the next.
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Reading", color: "", category: "")
        let t = clock.time - 7200
        clock.time = t
        let id = try tracker.startProject("Writing")
        clock.time += 600; try tracker.pause()
        clock.time += 60; try tracker.resume()
        try tracker.pause()
        try tracker.resume()
        clock.time += 600; try tracker.stop()
        clock.time = t + 7200
        let before = try tracker.session(id: id)
        XCTAssertEqual(before.segments.count, 3)
        let ids = try segmentIDs(of: id)
        try recordColumnsNamed()
        try tracker.editSession(id: id, changes: SessionChanges(projectID: 2, start: t - 900, note: "moved"))
        XCTAssertEqual(try columnsNamed(), ["project_id", "start", "end", "note"])
        XCTAssertEqual(try segmentIDs(of: id), ids)
        var expected = before
        expected.projectID = 2
        expected.start = t - 900
        expected.end = before.end! - 900
        expected.note = "moved"
        expected.segments = before.segments.map { Segment(start: $0.start - 900, end: $0.end.map { $0 - 900 }) }
        XCTAssertEqual(try tracker.session(id: id), expected)
        try checkSnapshot("its start moved")
        // A new duration makes one segment of three: the first row kept, the others gone.
        try tracker.editSession(id: id, changes: SessionChanges(duration: "30m"))
        XCTAssertEqual(try segmentIDs(of: id), [ids[0]])
        XCTAssertEqual(try tracker.session(id: id).segments, [Segment(start: t - 900, end: t + 900)])
        try checkSnapshot("one segment of three")
        try tracker.undo()
        try tracker.undo()
        XCTAssertEqual(try tracker.session(id: id), before)
        XCTAssertEqual(try segmentIDs(of: id), ids)
        try checkSnapshot("both edits undone")
    }

    /// New segments that would read back in another order if changed in place (two at one
    /// second, over rows whose ids run against their starts) are all written again.
    func testSegmentsThatWouldReadBackInAnotherOrderAreWrittenAgain() throws {
        let id = try aSessionToChange()
        let stored = try tracker.session(id: id)
        let s = stored.start
        try tracker.store.database.execute("""
            DELETE FROM segments WHERE session_id = \(id);
            INSERT INTO segments(id, session_id, start, end) VALUES(90, \(id), \(s + 1200), \(s + 3600)), (91, \(id), \(s), \(s + 600));
            """)
        let previous = try tracker.store.session(id: id)!
        XCTAssertEqual(previous.segments, [Segment(start: s, end: s + 600), Segment(start: s + 1200, end: s + 3600)])
        var edited = previous
        edited.segments = [Segment(start: s + 300, end: s + 400), Segment(start: s + 300, end: s + 3600)]
        try tracker.store.begin()
        try tracker.store.editFinishedSession(edited, previous: previous)
        try tracker.store.commit()
        XCTAssertEqual(try tracker.store.session(id: id), edited)
    }

    /// Segments that are not what the edit was given as the old ones are all written again.
    func testSegmentsThatAreNotTheOnesGivenAreWrittenAgain() throws {
        let id = try aSessionToChange()
        let stored = try tracker.session(id: id)
        var stale = stored
        stale.segments = [Segment(start: stored.start, end: stored.start + 60), Segment(start: stored.start + 120, end: stored.end)]
        var edited = stored
        edited.end = stored.start + 1800
        edited.segments = [Segment(start: stored.start, end: stored.start + 1800)]
        try tracker.store.begin()
        try tracker.store.editFinishedSession(edited, previous: stale)
        try tracker.store.commit()
        XCTAssertEqual(try tracker.store.session(id: id), edited)
    }
}
