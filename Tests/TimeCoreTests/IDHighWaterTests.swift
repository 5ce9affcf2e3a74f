import XCTest
@testable import TimeCore

/// Session and segment ids are never given twice. The store reads the highest id given once and
/// then keeps it (Store+IDHighWater.swift, `highWaterMark`): rows inserted by any other path of the
/// same connection must still push it up, and a refused change must not. After a restart the
/// highest id is read again: the table's, or the counter the delete triggers wrote when the
/// newest row went (schema v18), by whatever path it went.
final class IDHighWaterTests: KeeperTestCase {
    /// The oracle: the highest ids in the tables and in `meta`, read whole.
    private func highest(_ table: String, _ counter: String) throws -> Int64 {
        let inTable = try tracker.store.database.queryFirst("SELECT coalesce(max(id), 0) FROM \(table)") { $0.int(0) } ?? 0
        let counted = try tracker.store.meta(counter).flatMap { Int64($0) } ?? 0
        return max(inTable, counted)
    }

    /// A project, and one session of it started and stopped: its id.
    private func sessionStartedAndStopped() throws -> SessionID {
        try tracker.createProject(name: "Writing", color: "", category: "")
        clock.time += 60
        let id = try tracker.startProject("Writing")
        clock.time += 60
        try tracker.stop()
        return id
    }

    func testRowsInsertedByAnotherPathPushTheIDsUp() throws {
        let first = try sessionStartedAndStopped()
        // As sync or an import would: rows with ids of their own, past the counters.
        try tracker.change {
            try tracker.store.database.run(
                "INSERT INTO sessions(id, project_id, start, end, unrecorded_seconds, note, gid) VALUES(?, 1, ?, ?, 0, '', 'elsewhere')",
                .integer(first + 40), .integer(clock.time - 3600), .integer(clock.time - 1800))
            try tracker.store.database.run("INSERT INTO segments(id, session_id, start, end) VALUES(?, ?, ?, ?)",
                                           .integer(70), .integer(first + 40), .integer(clock.time - 3600), .integer(clock.time - 1800))
        }
        clock.time += 60
        let next = try tracker.startProject("Writing")
        XCTAssertEqual(next, first + 41)
        XCTAssertEqual(try tracker.store.session(id: next)?.segments.count, 1)
        let segmentID = try tracker.store.database.queryFirst("SELECT id FROM segments WHERE session_id = ?", .integer(next)) { $0.int(0) }
        XCTAssertEqual(segmentID, 71)
        clock.time += 60
        try tracker.pause()
        clock.time += 60
        try tracker.resume()
        XCTAssertEqual(try highest("segments", "last_segment_id"), 72)
    }

    /// Another connection's insert is not seen by the update hook: once a change has shown the
    /// keeper that connection's commit, the marks are read again.
    func testAnotherConnectionsRowsPushTheIDsUpAfterTheNextChange() throws {
        let first = try sessionStartedAndStopped()
        let other = try SQLiteDatabase(path: folder.path + "/time.sqlite", mode: .readWrite)
        try other.run("INSERT INTO sessions(id, project_id, start, end, unrecorded_seconds, note, gid) VALUES(?, 1, ?, ?, 0, '', 'other')",
                      .integer(first + 20), .integer(clock.time - 3600), .integer(clock.time - 1800))
        try tracker.addCategory("Work")
        clock.time += 60
        XCTAssertEqual(try tracker.startProject("Writing"), first + 21)
    }

    func testARefusedChangeGivesNoIDAway() throws {
        let first = try sessionStartedAndStopped()
        let sessionsBefore = try highest("sessions", "last_session_id"), segmentsBefore = try highest("segments", "last_segment_id")
        Files.injectedWriteFailure = EIO
        defer { Files.injectedWriteFailure = nil }
        clock.time += 60
        XCTAssertThrowsError(try tracker.startProject("Writing"))
        Files.injectedWriteFailure = nil
        XCTAssertEqual(try highest("sessions", "last_session_id"), sessionsBefore)
        clock.time += 60
        XCTAssertEqual(try tracker.startProject("Writing"), first + 1, "the id the refused start would have had")
        XCTAssertEqual(try highest("segments", "last_segment_id"), segmentsBefore + 1)
    }

    func testAnUndoneStartsIDIsNotGivenAgain() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        clock.time += 60
        let first = try tracker.startProject("Writing")
        _ = try tracker.undo()
        clock.time += 60
        XCTAssertEqual(try tracker.startProject("Writing"), first + 1)
    }

    private func restart() throws {
        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
    }

    private func counter(_ key: String) throws -> String? { try tracker.store.meta(key) }

    private func segmentIDs(of session: SessionID) throws -> [Int64] {
        try tracker.store.database.query("SELECT id FROM segments WHERE session_id = ? ORDER BY id", .integer(session)) { $0.int(0) }
    }

    /// A start, a Pause, a Resume and a switch write their rows and nothing in `meta`: the
    /// counters were one page more, one WAL frame, in each of them.
    func testStartsAndResumesWriteNoCounter() throws {
        let first = try sessionStartedAndStopped()
        clock.time += 60
        XCTAssertEqual(try tracker.startProject("Writing"), first + 1)
        clock.time += 60
        try tracker.pause()
        clock.time += 60
        try tracker.resume()
        try tracker.createProject(name: "Reading", color: "", category: "")
        clock.time += 60
        XCTAssertEqual(try tracker.startProject("Reading"), first + 2)
        XCTAssertNil(try counter("last_session_id"))
        XCTAssertNil(try counter("last_segment_id"))
        XCTAssertEqual(try segmentIDs(of: first + 2), [4], "one segment each before, two for the paused session")
    }

    /// The newest session deleted (its segments go with it), an undone start (the undo applies a
    /// changeset), another connection's delete and a delete of several rows at once: after a
    /// restart, none of their ids is given again.
    func testTheNewestRowsIDsAreNotGivenAgainAfterARestart() throws {
        let first = try sessionStartedAndStopped()
        clock.time += 60
        let second = try tracker.addSession(project: 1, start: clock.time - 1800, duration: "10m", note: "")
        let secondSegment = try XCTUnwrap(try segmentIDs(of: second).last)
        try tracker.deleteSession(id: second)
        XCTAssertEqual(try counter("last_session_id"), String(second))
        XCTAssertEqual(try counter("last_segment_id"), String(secondSegment))
        try restart()
        clock.time += 60
        let third = try tracker.startProject("Writing")
        XCTAssertEqual(third, second + 1, "a deleted session's id given again after a restart")
        XCTAssertEqual(try segmentIDs(of: third), [secondSegment + 1])

        _ = try tracker.undo()
        XCTAssertEqual(try counter("last_session_id"), String(third), "the undo's changeset deleted the row: the trigger wrote its id")
        try restart()
        clock.time += 60
        let fourth = try tracker.startProject("Writing")
        XCTAssertEqual(fourth, third + 1, "an undone start's id given again after a restart")
        clock.time += 60
        try tracker.stop()

        let other = try SQLiteDatabase(path: folder.path + "/time.sqlite", mode: .readWrite)
        try other.execute("PRAGMA foreign_keys = ON")   // as the store's own connections: segments go with their session
        try other.run("DELETE FROM sessions WHERE id = ?", .integer(fourth))
        XCTAssertEqual(try other.queryFirst("SELECT value FROM meta WHERE key = 'last_session_id'") { $0.string(0) }, String(fourth))

        clock.time += 60
        let fifth = try tracker.addSession(project: 1, start: clock.time - 1800, duration: "10m", note: "")
        clock.time += 60
        let sixth = try tracker.addSession(project: 1, start: clock.time - 1200, duration: "10m", note: "")
        XCTAssertEqual([fifth, sixth], [fourth + 1, fourth + 2])
        let sixthSegment = try XCTUnwrap(try segmentIDs(of: sixth).last)
        // Rows deleted lowest first: the last one deleted writes the highest id.
        try other.run("DELETE FROM sessions WHERE id >= ?", .integer(first))
        XCTAssertEqual(try other.queryFirst("SELECT value FROM meta WHERE key = 'last_session_id'") { $0.string(0) }, String(sixth))
        XCTAssertEqual(try other.queryFirst("SELECT value FROM meta WHERE key = 'last_segment_id'") { $0.string(0) }, String(sixthSegment))
        try restart()
        clock.time += 60
        XCTAssertEqual(try tracker.startProject("Writing"), sixth + 1)
        XCTAssertEqual(try segmentIDs(of: sixth + 1), [sixthSegment + 1])
    }

    /// A v17 store wrote its counters at every insert: migrated, they still count, and its
    /// deletes write them from then on.
    func testAVersion17StoresCountersCarryOn() throws {
        let first = try sessionStartedAndStopped()
        clock.time += 60
        let second = try tracker.addSession(project: 1, start: clock.time - 1800, duration: "10m", note: "")
        try tracker.deleteSession(id: second)
        home = nil
        let database = try SQLiteDatabase(path: folder.path + "/time.sqlite", mode: .readWrite)
        try database.execute("""
            DROP TRIGGER sessions_high_water;
            DROP TRIGGER segments_high_water;
            UPDATE meta SET value = '\(second + 5)' WHERE key = 'last_session_id';
            PRAGMA user_version = 17;
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
        try restart()
        XCTAssertEqual(try tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
        let triggers = try tracker.store.database.query("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE '%high_water' ORDER BY name") { $0.string(0) }
        XCTAssertEqual(triggers, ["segments_high_water", "sessions_high_water"])
        clock.time += 60
        let next = try tracker.startProject("Writing")
        XCTAssertEqual(next, second + 6, "the v17 counter was not honoured")
        clock.time += 60
        try tracker.stop()
        try tracker.deleteSession(id: next)
        try restart()
        clock.time += 60
        XCTAssertEqual(try tracker.startProject("Writing"), next + 1)
        XCTAssertGreaterThan(next, first)
    }
}
