import Glibc
import XCTest
@testable import TimeCore

/// The rebuild of the merged state (a kept state that cannot be taken) goes in batches, like
/// enabling and joining (issue 30, part 4): a batch at a time, nothing written into the store and
/// nothing published meanwhile, and a start stopped in the middle (nothing stopped or saved, as
/// after a kill) goes on from where it had got to, ending with the merged state a fresh read of
/// the folder gives.
final class SyncRebuildTests: SyncTestCase {
    private func rebuilt() -> [String] {
        var reader = SyncLogReader(layout: SyncLayout(folder: folder))
        var replica = SyncReplica()
        replica.apply(reader.readNew(except: nil).records)
        return replica.view()
    }

    private func lines(of device: String) -> Int {
        ((try? Files.read(SyncLayout(folder: folder).deviceFolder(device) + "/" + SyncLayout.changeFileName(1))) ?? []).reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
    }

    func testARebuildGoesInBatchesAndResumesAfterAStopInTheMiddle() throws {
        let desktopID = SyncRecord.newID(), laptopID = SyncRecord.newID()
        do {
            let desktop = try home("desktop")
            try desktop.tracker.createProject(name: "Client A", color: "", category: "")
            for day in 1...40 { _ = try desktop.tracker.addSession(project: 1, start: utc(2026, 4, day % 28 + 1, day % 12 + 6), duration: "20m", note: "desktop \(day)") }
            let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: desktopID, deviceName: "desktop", wallMilliseconds: wall)
            try b.stop()
        }
        do {
            let laptop = try home("laptop")
            try laptop.tracker.createProject(name: "Writing", color: "", category: "")
            for day in 1...30 { _ = try laptop.tracker.addSession(project: 1, start: utc(2026, 3, day % 28 + 1, 9), duration: "1h", note: "laptop \(day)") }
            let a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
            XCTAssertEqual(try laptop.tracker.store.allSessions().count, 70)
            try a.stop()
        }
        let ownLines = lines(of: laptopID)
        // The kept state lost (as if restored from elsewhere): the next start must rebuild it.
        for suffix in ["", "-wal", "-shm"] { Files.remove(directory + "/laptop/time-sync.sqlite" + suffix) }
        let before: [String]
        do {
            let laptop = try home("laptop")
            before = try laptop.tracker.store.allSessions().map(\.globalID).sorted()
            let snapshots = try XCTUnwrap(laptop.keeper).entries.count
            let a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall,
                                   deferringWork: true, batchLimit: 8)
            XCTAssertTrue(a.rebuilt)
            for _ in 0..<5 { try a.step(wallMilliseconds: wall) }
            XCTAssertNotNil(a.rebuilding, "stopped in the middle")
            XCTAssertLessThanOrEqual(a.largestBatch, 8)
            XCTAssertEqual(try XCTUnwrap(laptop.keeper).entries.count, snapshots, "nothing written into the store")
            // A person's change meanwhile waits in the notes: nothing is published before the rebuild ends.
            try laptop.tracker.setNote(session: 1, note: "edited during the rebuild")
            XCTAssertEqual(lines(of: laptopID), ownLines)
            // Stopped here without a word (a kill): nothing is saved beyond the batches.
        }
        let laptop = try home("laptop")
        let a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall,
                               batchLimit: 8)
        XCTAssertTrue(a.rebuilt)
        XCTAssertNil(a.rebuilding)
        XCTAssertLessThan(a.readAtStart, ownLines + lines(of: desktopID) - 30, "went on from where it had got to (5 batches of 8 were kept)")
        XCTAssertLessThanOrEqual(a.largestBatch, 8)
        XCTAssertEqual(try laptop.tracker.store.allSessions().map(\.globalID).sorted(), before)
        XCTAssertEqual(lines(of: laptopID), ownLines + 1, "the note edit, and nothing else, published")
        XCTAssertEqual(a.replica.view(), rebuilt())
        try a.stop()
    }
}
