import CSQLite
import Glibc
import XCTest
@testable import TimeCore

/// A change commits while its slot's bytes go to the disk, before the wait for them
/// (SnapshotKeeper.record, Tracker+TakeBack.swift). What fails after that commit (the flush, the
/// read-back, the slot no longer at its path) is made to happen here for real: a trigger on the
/// undo step, which is written in that window, moves the slot file away from its path, so the
/// check after the flush finds another file there (as when the data folder is replaced mid-change).
final class CommitBesideTheFlushTests: KeeperTestCase {
    /// Every row of every table, as text: the store's whole content, read without the tracker.
    private func everyRow() throws -> [String] {
        let tables = try tracker.store.database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.string(0) }
        return try tables.flatMap { try rows(of: $0) }
    }

    private func rows(of table: String) throws -> [String] {
        let database = tracker.store.database
        let columns = try database.query("SELECT name FROM pragma_table_info(?)", .text(table)) { $0.string(0) }
        let quoted = columns.map { "quote(\"\($0)\")" }.joined(separator: " || ',' || ")
        return try database.query("SELECT '\(table): ' || \(quoted) FROM \"\(table)\" ORDER BY 1") { $0.string(0) }
    }

    /// A running session with a few changes behind it (the first change after a start does not
    /// commit early: the keeper learns the store's mark from it).
    /// `writeAfterAnswer`: as the agent runs the keeper (kept files written after the answer).
    private func aRunningSession(writeAfterAnswer: Bool = false) throws {
        keeper.writeAfterAnswer = writeAfterAnswer
        try tracker.createProject(name: "Writing", color: "", category: "")
        tracker.tidyUp()
        clock.time += 60
        try tracker.startProject("Writing")
        tracker.tidyUp()
        clock.time += 60
        try tracker.addNote("draft")
        tracker.tidyUp()
        clock.time += 60
    }

    /// The next change's slot is moved away from its path while that change writes its step.
    private func moveTheNextSlotDuringTheStep() throws {
        let durable = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last).sequence
        slotToMove = SnapshotSlots.path(keeper.directory, (durable + 1) % SnapshotSlots.count)
        let database = tracker.store.database
        XCTAssertEqual(sqlite3_create_function_v2(database.handle, "move_slot", 0, SQLITE_UTF8, nil, moveSlot, nil, nil, nil), SQLITE_OK)
        try database.execute("CREATE TEMP TRIGGER move_slot AFTER INSERT ON undo_steps BEGIN SELECT move_slot(); END")
    }

    override func tearDown() {
        slotToMove = nil
        movedSlotBytes = nil
        super.tearDown()
    }

    func testAChangeWhoseSlotFailsAfterItsCommitIsTakenBackExactly() throws {
        try aRunningSession()
        let rowsBefore = try everyRow()
        let stateBefore = try DataState(store: tracker.store)
        let stepsBefore = try tracker.history(count: 100)
        try moveTheNextSlotDuringTheStep()

        XCTAssertThrowsError(try tracker.pause()) { error in
            XCTAssertEqual((error as? TrackerError)?.name, "StorageFailure")
            XCTAssertTrue((error as? TrackerError)?.message.contains("nothing was changed") == true, "\(error)")
        }
        XCTAssertNil(tracker.readOnlyReason)
        try tracker.store.database.execute("DROP TRIGGER move_slot")
        XCTAssertEqual(try everyRow(), rowsBefore, "every row of the store is as it was, the snapshot mark and the history's too")
        XCTAssertEqual(try tracker.status().state, .running)
        XCTAssertEqual(try tracker.history(count: 100), stepsBefore)

        // A start (as after a power cut then) brings back the state before, not the refused Pause.
        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
        XCTAssertEqual(try DataState(store: tracker.store), stateBefore)
        XCTAssertEqual(try tracker.status().state, .running)

        clock.time += 60
        try tracker.pause()
        clock.time += 60
        try tracker.resume()
        XCTAssertEqual(try tracker.history(count: 2).map { String($0.description.prefix(7)) }, ["Resumed", "Paused "])
        let newest = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [])
    }

    func testAChangeThatCannotBeTakenBackLocksEditingAndAStartMakesItDurable() throws {
        try aChangeThatCannotBeTakenBack(writeAfterAnswer: false)
    }

    /// As a power cut would leave it before the refused change's kept file was removed: a kept
    /// snapshot names the store's state, and still no slot holds it.
    func testAStoreAheadOfTheSlotsIsRecordedAnewEvenWithAKeptFileOfItsState() throws {
        try aChangeThatCannotBeTakenBack(writeAfterAnswer: false, keptFileLeft: true)
    }

    /// The same as the agent runs it: no kept file of the change was written (it waits for the answer).
    func testAChangeThatCannotBeTakenBackInTheAgentsWay() throws {
        try aChangeThatCannotBeTakenBack(writeAfterAnswer: true)
    }

    private func aChangeThatCannotBeTakenBack(writeAfterAnswer: Bool, keptFileLeft: Bool = false) throws {
        try aRunningSession(writeAfterAnswer: writeAfterAnswer)
        let durableBefore = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last)
        try moveTheNextSlotDuringTheStep()
        try tracker.store.database.execute("""
            CREATE TEMP TRIGGER keep_steps BEFORE DELETE ON undo_steps
            BEGIN SELECT RAISE(ABORT, 'the step stays'); END
            """)

        XCTAssertThrowsError(try tracker.pause()) { error in
            XCTAssertEqual((error as? TrackerError)?.name, "StorageFailure")
            let message = (error as? TrackerError)?.message ?? ""
            XCTAssertTrue(message.contains("the step stays") && message.contains("Editing is locked")
                          && message.contains("systemctl --user restart time-agent"), message)
        }
        XCTAssertNotNil(tracker.readOnlyReason)
        XCTAssertThrowsError(try tracker.resume()) { XCTAssertEqual(($0 as? TrackerError)?.name, "ReadOnly") }
        XCTAssertEqual(try tracker.status().state, .paused, "the store holds the Pause, and the tracker shows what the store holds")
        let held = try DataState(store: tracker.store)
        if keptFileLeft {
            // (The slot file itself was voided when the change failed: its bytes as written.)
            let slot = try SnapshotSlots.body(of: XCTUnwrap(movedSlotBytes))
            let mark = try tracker.store.snapshotMark()
            XCTAssertEqual(mark.sequence, slot.sequence)
            try Files.writeDurably(slot.bytes, to: keeper.directory + "/" + SnapshotKeeper.fileName(
                sequence: slot.sequence, stateHash: try XCTUnwrap(mark.state)))
        }

        // The start finds the store ahead of every slot that verifies: it keeps what the store
        // holds, records it into the other slot than the newest durable one, and editing is open.
        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
        XCTAssertNil(tracker.readOnlyReason)
        XCTAssertEqual(try DataState(store: tracker.store), held)
        let slots = SnapshotSlots.entries(keeper.directory)
        let newest = try XCTUnwrap(slots.last)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: held), [], "a slot holds the store's state")
        XCTAssertEqual(newest.stateHash, try tracker.store.snapshotMark().state)
        XCTAssertTrue(slots.contains(durableBefore), "the start wrote over the newest durable slot: \(slots)")

        clock.time += 60
        try tracker.resume()
        XCTAssertEqual(try tracker.status().state, .running)
        let after = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last)
        XCTAssertEqual(try keeper.state(of: after).differences(from: DataState(store: tracker.store)), [])
    }

    /// A store whose mark names a sequence past every snapshot kept (its change committed; the
    /// power cut took the slot and the kept file): no later state may take that sequence. (Under
    /// it, a later power cut taking a change's commit would leave the store naming the sequence of
    /// that change's own snapshot: a start would find nothing newer to roll forward to, and the
    /// acknowledged change would be lost.)
    func testNoStateTakesASequenceTheStoreNamed() throws {
        try aRunningSession(writeAfterAnswer: true)
        let durable = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last).sequence
        let named = durable + 7
        try tracker.store.database.execute("UPDATE snapshot_mark SET sequence = \(named)")

        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        keeper.writeAfterAnswer = true
        clock.time += 60
        try tracker.pause()
        tracker.tidyUp()
        let newest = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last)
        XCTAssertGreaterThan(newest.sequence, named, "\(SnapshotSlots.entries(keeper.directory))")
        XCTAssertEqual(try tracker.store.snapshotMark().sequence, newest.sequence)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [])
    }
}

/// The slot file `move_slot()` moves away from its path (an empty file takes its place), and
/// its bytes when it was moved.
nonisolated(unsafe) private var slotToMove: String?
nonisolated(unsafe) private var movedSlotBytes: [UInt8]?

private let moveSlot: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, _ in
    if let path = slotToMove {
        movedSlotBytes = try? Files.read(path)
        rename(path, path + ".moved")
        close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600))
    }
    sqlite3_result_null(context)
}
