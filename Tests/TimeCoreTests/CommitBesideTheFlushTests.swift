import CSQLite
import Glibc
import XCTest
@testable import TimeCore

/// A change commits while its slot's bytes go to the disk, before the wait for them
/// (SnapshotKeeper.record, Tracker+TakeBack.swift). What fails after that commit is made to
/// happen here for real: a trigger on the undo step, which is written in that window, moves the
/// slot file away from its path, so the check after the flush finds another file there (as when
/// the data folder is replaced mid-change). SQLite's commit hook counts the commits: a change that
/// committed early and was taken back makes two, one refused before its commit none.
final class CommitBesideTheFlushTests: KeeperTestCase {
    /// Every row of every table, as text: the store's whole content, read without the tracker.
    private func everyRow(leavingOutMeta: Bool = false) throws -> [String] {
        let tables = try tracker.store.database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") { $0.string(0) }
        return try tables.filter { !leavingOutMeta || $0 != "meta" }.flatMap { try rows(of: $0) }
    }

    private func rows(of table: String) throws -> [String] {
        let database = tracker.store.database
        let columns = try database.query("SELECT name FROM pragma_table_info(?)", .text(table)) { $0.string(0) }
        let quoted = columns.map { "quote(\"\($0)\")" }.joined(separator: " || ',' || ")
        return try database.query("SELECT '\(table): ' || \(quoted) FROM \"\(table)\" ORDER BY 1") { $0.string(0) }
    }

    // (aRunningSession, KeeperTestCase: the first change after a start does not commit early,
    // as the keeper has not yet seen the store alone since a change of its own.)

    /// The next change's slot is moved away from its path while that change writes its step.
    private func moveTheNextSlotDuringTheStep() throws {
        let durable = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last).sequence
        slotToMove = SnapshotSlots.path(keeper.directory, (durable + 1) % SnapshotSlots.count)
        let database = tracker.store.database
        XCTAssertEqual(sqlite3_create_function_v2(database.handle, "move_slot", 0, SQLITE_UTF8, nil, moveSlot, nil, nil, nil), SQLITE_OK)
        try database.execute("CREATE TEMP TRIGGER move_slot AFTER INSERT ON undo_steps BEGIN SELECT move_slot(); END")
    }

    /// Counts the commits of the tracker's connection from here on.
    private func countCommits() {
        commits = 0
        sqlite3_commit_hook(tracker.store.database.handle, { _ in
            commits += 1
            return 0
        }, nil)
    }

    override func tearDown() {
        if home != nil { sqlite3_commit_hook(tracker.store.database.handle, nil, nil) }
        slotToMove = nil
        movedSlotBytes = nil
        super.tearDown()
    }

    func testAChangeThatSucceedsCommitsOnce() throws {
        try aRunningSession(otherProjects: ["Reviews"])
        countCommits()
        clock.time += 60
        try tracker.pause()
        XCTAssertEqual(commits, 1)
        XCTAssertEqual(try tracker.status().state, .paused)
        let newest = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [])
    }

    func testAPauseWhoseSlotFailsAfterItsCommitIsTakenBackExactly() throws {
        try aRunningSession(otherProjects: ["Reviews"])
        let rowsBefore = try everyRow()
        let stateBefore = try DataState(store: tracker.store)
        let stepsBefore = try tracker.history(count: 100)
        try moveTheNextSlotDuringTheStep()
        countCommits()

        XCTAssertThrowsError(try tracker.pause()) { error in
            XCTAssertEqual((error as? TrackerError)?.name, "StorageFailure")
            XCTAssertTrue((error as? TrackerError)?.message.contains("nothing was changed") == true, "\(error)")
        }
        XCTAssertEqual(commits, 2, "the Pause committed before its flush, and was taken back in a commit of its own")
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

    /// A switch inserts a session and a segment: taken back, they go, and their ids are never
    /// given again (the id counters of store v18 are all it leaves).
    func testASwitchTakenBackLeavesOnlyItsIDsUsed() throws {
        try aRunningSession(otherProjects: ["Reviews"])
        let rowsBefore = try everyRow(leavingOutMeta: true)
        let highest = try XCTUnwrap(tracker.store.database.queryFirst("SELECT max(id) FROM sessions") { $0.int(0) })
        try moveTheNextSlotDuringTheStep()
        countCommits()

        XCTAssertThrowsError(try tracker.startProject("Reviews")) { XCTAssertEqual(($0 as? TrackerError)?.name, "StorageFailure") }
        XCTAssertEqual(commits, 2)
        try tracker.store.database.execute("DROP TRIGGER move_slot")
        XCTAssertEqual(try everyRow(leavingOutMeta: true), rowsBefore)
        XCTAssertEqual(try tracker.status().project?.name, "Writing")

        // (A start opens the slot that was moved away anew.)
        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        clock.time += 60
        let id = try tracker.startProject("Reviews")
        XCTAssertEqual(id, highest + 2, "the refused switch's session id was given again")
        let newest = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [])
    }

    /// With sync on, sync's triggers note rows that no undo step records: no early commit, and a
    /// failing slot rolls the change back as before.
    func testNoEarlyCommitWhileSyncNotesWhatAChangeWrites() throws {
        try aRunningSession(otherProjects: ["Reviews"])
        try tracker.store.database.execute("BEGIN IMMEDIATE")
        try SyncTriggers.make(in: tracker.store)
        try tracker.store.database.execute("COMMIT")
        clock.time += 60
        try tracker.addNote("first")
        tracker.tidyUp()
        let rowsBefore = try everyRow()
        try moveTheNextSlotDuringTheStep()
        countCommits()

        XCTAssertThrowsError(try tracker.pause()) { XCTAssertEqual(($0 as? TrackerError)?.name, "StorageFailure") }
        XCTAssertEqual(commits, 0, "a change that sync's triggers wrote beside committed before its flush")
        try tracker.store.database.execute("DROP TRIGGER move_slot")
        XCTAssertEqual(try everyRow(), rowsBefore)
    }

    func testAChangeThatCannotBeTakenBackLocksEditingAndAStartMakesItDurable() throws {
        try aChangeThatCannotBeTakenBack(writeAfterAnswer: false)
    }

    /// The same as the agent runs it: no kept file of the change was written (it waits for the answer).
    func testAChangeThatCannotBeTakenBackInTheAgentsWay() throws {
        try aChangeThatCannotBeTakenBack(writeAfterAnswer: true)
    }

    private func aChangeThatCannotBeTakenBack(writeAfterAnswer: Bool) throws {
        try aRunningSession(otherProjects: ["Reviews"], writeAfterAnswer: writeAfterAnswer)
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

        // The start finds the store ahead of every slot that verifies: it keeps what the store
        // holds, records it into another slot than the newest durable one, and editing is open.
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
}

/// Commits of the tracker's connection since `countCommits`.
nonisolated(unsafe) private var commits = 0
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
