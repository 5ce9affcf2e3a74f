import XCTest
@testable import TimeCore

/// The WAL is folded into the store after the answer (Tracker.tidyUp), never inside a change
/// (Store+Checkpoint.swift): the store's own file is not touched by a change however long the
/// WAL grows, until tidying up folds it in; a caller that never tidies up has it folded in before
/// a change at four times as many frames.
final class CheckpointTests: KeeperTestCase {
    private var storeFile: String { folder.path + "/time.sqlite" }
    private func storeBytes() throws -> String { SHA256.hex(try Files.read(storeFile)) }

    func testNoChangeFoldsTheWALInTidyingUpDoes() throws {
        let id = try aSessionToChange()
        tracker.tidyUp()
        try tracker.store.database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        let folded = try storeBytes()
        var changes = 0
        while tracker.store.walFrames < Store.checkpointFrames + 200 {
            changes += 1
            try tracker.setNote(session: id, note: "note \(changes)")
            if try storeBytes() != folded { return XCTFail("change \(changes) folded the WAL in") }
            if changes > 2000 { return XCTFail("the WAL did not grow: \(tracker.store.walFrames) frames") }
        }
        tracker.tidyUp()
        XCTAssertNotEqual(try storeBytes(), folded, "tidying up folded the WAL in")
        try tracker.setNote(session: id, note: "after the fold")
        XCTAssertLessThan(tracker.store.walFrames, 50, "the next change wrote the WAL from its start")
        XCTAssertEqual(try tracker.session(id: id).note, "after the fold")
    }

    func testWithoutTidyingUpTheWALIsFoldedInAtFourTimesAsMany() throws {
        let id = try aSessionToChange()
        var most: Int32 = 0
        for n in 1...1500 {
            try tracker.setNote(session: id, note: "note \(n)")
            most = max(most, tracker.store.walFrames)
            XCTAssertLessThan(tracker.store.walFrames, 4 * Store.checkpointFrames + 50, "after change \(n)")
        }
        XCTAssertGreaterThan(most, 2 * Store.checkpointFrames, "the WAL grew past SQLite's own threshold")
        XCTAssertEqual(try tracker.session(id: id).note, "note 1500")
    }
}
