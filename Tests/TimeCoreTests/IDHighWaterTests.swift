import XCTest
@testable import TimeCore

/// Session and segment ids are never given twice. The store reads the highest id given once and
/// then keeps it (Store+Sessions.swift, `highWaterMark`): rows inserted by any other path of the
/// same connection must still push it up, and a refused change must not.
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
}
