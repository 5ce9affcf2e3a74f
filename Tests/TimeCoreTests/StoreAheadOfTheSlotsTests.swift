import Glibc
import XCTest
@testable import TimeCore

/// A store whose snapshot mark names a state or a sequence that no slot that verifies holds: the
/// slots were lost or damaged, or the snapshot folder emptied (SnapshotKeeper+Attach.swift).
final class StoreAheadOfTheSlotsTests: KeeperTestCase {
    /// Both slots gone, the kept files still there (one of them the store's state): the start
    /// records the store's state into a slot at once, not only with the next change.
    func testAStartWhoseSlotsAreLostRecordsTheStoreAnew() throws {
        try aRunningSession()
        let mark = try tracker.store.snapshotMark()
        XCTAssertTrue(keeper.entries.contains { $0.stateHash == mark.state }, "a kept file holds the store's state")
        home = nil
        for index in 0..<SnapshotSlots.count { unlink(SnapshotSlots.path(folder.path + "/snapshots", index)) }

        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
        let newest = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last, "no slot holds the store's state after the start")
        XCTAssertEqual(newest.stateHash, mark.state)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [])
    }

    /// The newest slot damaged (a bad sector) and its kept file gone: the store names a state no
    /// snapshot holds. The start records it into the damaged slot's place, under a sequence past
    /// the one the store named, and never over the slot before, the one snapshot that verifies.
    func testAStartAfterTheNewestSlotIsDamagedRecordsTheStoreBesideTheSlotThatVerifies() throws {
        try aRunningSession()
        let before = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last)
        clock.time += 60
        try tracker.pause()
        tracker.tidyUp()
        let mark = try tracker.store.snapshotMark()
        let damaged = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last)
        XCTAssertEqual(damaged.sequence, mark.sequence)
        home = nil
        let fd = open(damaged.path, O_WRONLY | O_CLOEXEC)
        XCTAssertEqual(pwrite(fd, [UInt8](repeating: 0, count: 512), 512, 0), 512)
        close(fd)
        for entry in SnapshotKeeper.scan(folder.path + "/snapshots") where entry.sequence == damaged.sequence { unlink(entry.path) }

        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
        XCTAssertEqual(try tracker.status().state, .paused)
        let slots = SnapshotSlots.entries(keeper.directory)
        XCTAssertTrue(slots.contains(before), "the start wrote over the slot that verified: \(slots)")
        let newest = try XCTUnwrap(slots.last)
        XCTAssertEqual(newest.stateHash, mark.state)
        XCTAssertGreaterThan(newest.sequence, try XCTUnwrap(mark.sequence))
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [])
    }

    /// A store whose mark names a sequence past every snapshot kept: no later state may take that
    /// sequence. (Under it, a change whose commit a power cut then took would leave the store
    /// naming that change's own sequence: a start would find nothing newer to roll forward to, and
    /// the acknowledged change would be lost.)
    func testNoStateTakesASequenceTheStoreNamed() throws {
        try aRunningSession()
        let durable = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last)
        let named = durable.sequence + 7
        try tracker.store.database.execute(storeMarkInItsTable + "UPDATE snapshot_mark SET sequence = \(named)")

        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
        XCTAssertTrue(SnapshotSlots.entries(keeper.directory).contains(durable))

        keeper.writeAfterAnswer = true
        clock.time += 60
        try tracker.pause()
        tracker.tidyUp()
        let newest = try XCTUnwrap(SnapshotSlots.entries(keeper.directory).last)
        XCTAssertGreaterThan(newest.sequence, named, "\(SnapshotSlots.entries(keeper.directory))")
        XCTAssertEqual(try tracker.store.snapshotMark().sequence, newest.sequence)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [])
        for entry in keeper.recoverable where entry.sequence == named {
            XCTFail("\(entry.path) holds a state under the sequence the store named")
        }
    }
}
