import XCTest
@testable import TimeCore

/// Schema v17: a change that writes an undo step writes its snapshot mark in the step's row, one
/// WAL frame fewer than a table of its own; a change without a step (an undo, a redo) and a mark
/// set apart from a change (a restore) write `snapshot_mark`. The store's mark is always the one
/// the newest kept snapshot names (the keeper's own record, the oracle here).
final class StepMarkTests: KeeperTestCase {
    private func newestStepMark() throws -> SnapshotMark? {
        try tracker.store.database.queryFirst("SELECT mark_state, mark_sequence FROM undo_steps ORDER BY id DESC LIMIT 1") {
            SnapshotMark(state: $0.optionalString(0), sequence: $0.optionalInt(1).map { Int($0) })
        }
    }

    private func tableMark() throws -> SnapshotMark? {
        try tracker.store.database.queryFirst("SELECT state, sequence FROM snapshot_mark WHERE id = 1") {
            SnapshotMark(state: $0.optionalString(0), sequence: $0.optionalInt(1).map { Int($0) })
        }
    }

    private func aPausedSession() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        clock.time += 60
        try tracker.startProject("Writing")
        clock.time += 60
        try tracker.pause()
    }

    private var keptMark: SnapshotMark {
        SnapshotMark(state: keeper.entries.last?.stateHash, sequence: keeper.entries.last?.sequence)
    }

    private var walBytes: Int { Int(Files.size(folder.path + "/time.sqlite-wal") ?? 0) }

    func testAPauseWritesItsMarkInItsStepAndTwoPages() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        clock.time += 60
        try tracker.startProject("Writing")
        let before = try tableMark()
        for round in 0..<5 {
            clock.time += 60
            let wal = walBytes
            try tracker.pause()
            XCTAssertEqual(try newestStepMark(), keptMark, "round \(round): the Pause's step holds its mark")
            XCTAssertEqual(try tracker.store.snapshotMark(), keptMark, "round \(round)")
            XCTAssertEqual(try tableMark(), before, "round \(round): snapshot_mark is not written")
            // A frame is a 24-byte header and a page: the segment's page and the step's page.
            XCTAssertEqual(walBytes - wal, 2 * (24 + 4096), "round \(round): a Pause's commit wrote two pages")
            clock.time += 60
            try tracker.resume()
            XCTAssertEqual(try tracker.store.snapshotMark(), keptMark, "round \(round), resumed")
        }
    }

    func testAnUndoAndARedoWriteTheTableAndTheirMarkCounts() throws {
        try aPausedSession()
        let paused = keptMark
        _ = try tracker.undo()
        XCTAssertEqual(try tableMark(), keptMark, "the undo's mark is in snapshot_mark")
        XCTAssertNotEqual(keptMark, paused)
        XCTAssertEqual(try tracker.store.snapshotMark(), keptMark, "and counts over the steps' older ones")
        _ = try tracker.redo()
        XCTAssertEqual(try tracker.store.snapshotMark(), keptMark)
        clock.time += 60
        try tracker.addNote("after the redo")
        XCTAssertEqual(try newestStepMark(), keptMark)
        XCTAssertEqual(try tracker.store.snapshotMark(), keptMark)

        // A start reads the same mark and attaches: the next change goes on from the kept state.
        let mark = keptMark
        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(try tracker.store.snapshotMark(), mark)
        XCTAssertEqual(tracker.currentSession?.note, "after the redo")
        XCTAssertEqual(try tracker.history(count: 10).count, 4, "no roll-forward: the history is kept")
    }

    func testAMarkSetBelowTheStepsTakesTheirMarksOut() throws {
        try aPausedSession()
        let older = SnapshotMark(state: "an older state", sequence: 1)
        try tracker.store.setSnapshotMark(older)
        XCTAssertEqual(try tracker.store.snapshotMark(), older)
        XCTAssertEqual(try tracker.store.database.queryFirst("SELECT count(*) FROM undo_steps WHERE mark_sequence IS NOT NULL") { $0.int(0) }, 0)
    }
}
