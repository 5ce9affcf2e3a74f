import XCTest
@testable import TimeCore

/// The undo step and the snapshot mark are written while the slot's bytes go to the disk
/// (SnapshotSlots.write's `whileWritten`): after the slot is written, before its flush. A step
/// that fails there refuses the change as any failure does: the store is as it was, the slot
/// written is voided, and a start after it (as after a power cut at that moment, with the slot's
/// bytes on the disk) does not bring the refused change back.
final class StepBesideTheFlushTests: KeeperTestCase {
    func testAStepThatCannotBeWrittenRefusesTheChangeAndAStartDoesNotBringItBack() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        clock.time += 60
        try tracker.startProject("Writing")
        clock.time += 60
        let before = try DataState(store: tracker.store)
        let stepsBefore = try tracker.history(count: 100)
        try tracker.store.database.execute("""
            CREATE TEMP TRIGGER no_step BEFORE INSERT ON undo_steps
            BEGIN SELECT RAISE(ABORT, 'no room for the step'); END
            """)
        XCTAssertThrowsError(try tracker.pause()) { error in
            XCTAssertEqual((error as? TrackerError)?.name, "StorageFailure")
            XCTAssertTrue((error as? TrackerError)?.message.contains("no room for the step") == true, "\(error)")
        }
        XCTAssertEqual(try DataState(store: tracker.store), before, "the store is as it was")
        XCTAssertEqual(try tracker.status().state, .running)
        XCTAssertEqual(try tracker.history(count: 100), stepsBefore)

        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
        XCTAssertEqual(try DataState(store: tracker.store), before, "the refused Pause came back at the start")
        XCTAssertEqual(try tracker.status().state, .running)

        clock.time += 60
        try tracker.pause()
        XCTAssertEqual(try tracker.status().state, .paused)
        XCTAssertEqual(try tracker.history(count: 1).first?.description.hasPrefix("Paused Writing"), true)
        let newest = try XCTUnwrap(keeper.entries.last)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [])
    }
}

/// A change years back changes the keeper's chunk tree in place (its day, month, year and root);
/// refused after that (its step cannot be written), it puts back every reference it replaced: the
/// next changes write the same chunks and the same tree as if it had never been tried.
final class RefusedTreeChangeTests: KeeperTestCase {
    func testARefusedChangeYearsBackPutsTheTreeBack() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        let year: Int64 = 365 * 86400
        for back in [Int64(3), 2, 1] {
            try tracker.addSession(project: 1, start: clock.time - back * year, duration: "1h", note: "")
            try tracker.addSession(project: 1, start: clock.time - back * year - 40 * 86400, duration: "2h", note: "")
        }
        let old = try XCTUnwrap(tracker.store.allSessions().first)
        let treeBefore = keeper.tree
        let stateBefore = try DataState(store: tracker.store)
        try tracker.store.database.execute("""
            CREATE TEMP TRIGGER no_step BEFORE INSERT ON undo_steps
            BEGIN SELECT RAISE(ABORT, 'no room for the step'); END
            """)
        XCTAssertThrowsError(try tracker.setNote(session: old.id, note: "refused"))
        XCTAssertEqual(keeper.tree, treeBefore, "every reference the refused change replaced is back")
        XCTAssertEqual(try DataState(store: tracker.store), stateBefore)
        try tracker.store.database.execute("DROP TRIGGER no_step")

        // A change of another year, then the same change again: their snapshots name whole chunk
        // files of the store's sessions (none the refused change wrote and took away again), and
        // a start reads the same state from them.
        try tracker.addSession(project: 1, start: clock.time - year + 86400, duration: "30m", note: "")
        XCTAssertEqual(try keeper.state(of: XCTUnwrap(keeper.entries.last)).differences(from: DataState(store: tracker.store)), [])
        try tracker.setNote(session: old.id, note: "kept")
        tracker.tidyUp()
        let newest = try XCTUnwrap(keeper.entries.last)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [])
        let expected = try DataState(store: tracker.store)
        let treeAfter = keeper.tree
        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
        XCTAssertEqual(try DataState(store: tracker.store), expected)
        clock.time += 60
        try tracker.setNote(session: old.id, note: "after a start")
        XCTAssertEqual(keeper.tree.root == treeAfter.root, false, "the note changed the root")
        XCTAssertEqual(try keeper.state(of: XCTUnwrap(keeper.entries.last)).differences(from: DataState(store: tracker.store)), [])
    }
}
