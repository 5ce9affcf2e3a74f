import Glibc
import XCTest
@testable import TimeCore

/// A power cut that takes SQLite's last commits (they are not flushed) but not their snapshots
/// (flushed into a slot first): the next start rolls the store forward, compared record by
/// record, and the undo history is cleared. The crash-state explorer (AgentTests) covers the
/// same path on every sampled crash state; these name the outcomes one by one.
final class RollForwardTests: XCTestCase {
    private var folder: Folder!
    private let clock = SafetyClock()

    override func setUp() { folder = Folder() }
    override func tearDown() { folder.remove() }

    private func open() throws -> DataHome { try DataHome(directory: folder.path, clock: clock) }

    /// The store as it was before the last change, as a power cut can leave it.
    private func loseTheLastChange(_ change: (Tracker) throws -> Void) throws -> DataState {
        do {
            let home = try open()
            try home.tracker.addCategory("Work")
            try home.tracker.createProject(name: "Writing", color: "", category: "Work")
            try home.tracker.addSession(project: 1, start: clock.time - 400 * 86400, duration: "1h", note: "old")
        }
        let before = try Files.read(folder.store)
        XCTAssertFalse(Files.exists(folder.store + "-wal"), "a clean close leaves the store whole")
        let expected: DataState
        do {
            let home = try open()
            clock.time += 60
            try change(home.tracker)
            expected = try DataState(store: home.tracker.store)
        }
        try Files.writeDurably(before, to: folder.store)
        for suffix in ["-wal", "-shm"] { Files.remove(folder.store + suffix) }
        return expected
    }

    func testAStoreThatLostItsLastCommitIsRolledForwardAndItsUndoHistoryCleared() throws {
        let expected = try loseTheLastChange { try $0.startProject("Writing") }
        let after: DataState
        do {
            let home = try open()
            XCTAssertEqual(home.status.state, .ok)
            XCTAssertTrue(home.warnings.contains { $0.contains("rolled forward") }, "\(home.warnings)")
            XCTAssertEqual(try DataState(store: home.tracker.store).differences(from: expected), [])
            XCTAssertEqual(try home.tracker.history(count: 10), [], "the steps of the lost commits are gone, so are the older ones")
            // It goes on as usual: the next change is recorded and a restart finds nothing to roll forward.
            try home.tracker.pause()
            after = try DataState(store: home.tracker.store)
        }
        let again = try open()
        XCTAssertFalse(again.warnings.contains { $0.contains("rolled forward") }, "\(again.warnings)")
        XCTAssertEqual(try DataState(store: again.tracker.store), after)
    }

    func testAnEditYearsBackThatWasLostIsRolledForwardToo() throws {
        let expected = try loseTheLastChange { try $0.setNote(session: 1, note: "edited a year later") }
        let home = try open()
        XCTAssertEqual(try home.tracker.session(id: 1).note, "edited a year later")
        XCTAssertEqual(try DataState(store: home.tracker.store), expected)
    }

    func testATornNewestSlotLeavesTheStateBeforeIt() throws {
        _ = try loseTheLastChange { try $0.startProject("Writing") }
        // The slot of the newest change torn as well (and its kept file lost): the change was
        // never acknowledged, so the state before it is the right one.
        let slots = (0..<2).map { folder.snapshots + "/slot-\($0).snapshot" }
        let newest = try slots.max { try SnapshotSlots.body(of: Files.read($0)).sequence < SnapshotSlots.body(of: Files.read($1)).sequence }!
        var bytes = try Files.read(newest)
        bytes[bytes.count - 10] ^= 0x01
        try Files.writeDurably(bytes, to: newest)
        let sequence = SnapshotKeeper.scan(folder.snapshots).last!.sequence
        for entry in SnapshotKeeper.scan(folder.snapshots) where entry.sequence == sequence { Files.remove(entry.path) }
        let home = try open()
        XCTAssertEqual(home.status.state, .ok)
        XCTAssertNil(home.tracker.openSession, "the timer was never started as far as anyone was told")
    }
}
