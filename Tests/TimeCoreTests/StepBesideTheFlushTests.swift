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
