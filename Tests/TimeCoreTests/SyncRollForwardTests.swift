import Glibc
import XCTest
@testable import TimeCore

/// A power cut took the store's last commits with sync on, and the store is rolled forward from
/// the newest snapshot as a whole (its own state is no longer kept): sync goes on as the same
/// device, and what the roll-forward wrote back is not published again (it is in the log).
final class SyncRollForwardTests: SyncTestCase {
    private func records(_ device: String) -> [SyncRecord] {
        var reader = SyncLogReader(layout: SyncLayout(folder: folder))
        return reader.readNew(device: device).records
    }

    func testAWholeRollForwardKeepsSyncOnAsTheSameDeviceAndPublishesNothingAgain() throws {
        let data = directory + "/laptop"
        let settings: SyncSettings
        do {
            let laptop = try home("laptop")
            settings = try laptop.tracker.enableSync(folder: folder, name: "laptop")
            let engine = try SyncEngine(tracker: laptop.tracker, folder: folder, device: settings.device, deviceName: "laptop", wallMilliseconds: wall)
            try laptop.tracker.createProject(name: "Client A", color: "", category: "")
            _ = try laptop.tracker.addSession(project: 1, start: utc(2026, 5, 30, 9), duration: "1h", note: "kept")
            try engine.stop()
        }
        let before = try Files.read(data + "/time.sqlite")
        do {
            let laptop = try home("laptop")
            let engine = try SyncEngine(tracker: laptop.tracker, folder: folder, device: settings.device, deviceName: "laptop", wallMilliseconds: wall)
            clock.advance(60)
            _ = try laptop.tracker.addSession(project: 1, start: utc(2026, 5, 31, 9), duration: "1h", note: "lost by the store")
            try engine.flushLog()
        }
        let published = records(settings.device)
        // The power cut: the store as before its last commit, and its own state no longer kept.
        try Files.writeDurably(before, to: data + "/time.sqlite")
        for suffix in ["-wal", "-shm"] { Files.remove(data + "/time.sqlite" + suffix) }
        do {
            let database = try SQLiteDatabase(path: data + "/time.sqlite", mode: .readWrite)
            try database.execute(storeMarkInItsTable + "UPDATE snapshot_mark SET state = 'gone'; PRAGMA wal_checkpoint(TRUNCATE);")
        }

        let laptop = try home("laptop")
        XCTAssertTrue(laptop.warnings.contains { $0.contains("it was rolled forward from snapshot") }, "\(laptop.warnings)")
        XCTAssertEqual(try laptop.tracker.store.allSessions().map(\.note), ["kept", "lost by the store"])
        XCTAssertEqual(try laptop.tracker.syncSettings(), settings, "sync is still on, as the same device")
        XCTAssertEqual(try laptop.tracker.store.database.query("SELECT count(*) FROM sync_dirty") { $0.int(0) }, [0])
        let engine = try SyncEngine(tracker: laptop.tracker, folder: folder, device: settings.device, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(records(settings.device).map(\.line), published.map(\.line), "nothing published again")
        let desktop = try SyncEngine(tracker: try home("desktop").tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop",
                                     wallMilliseconds: wall)
        XCTAssertEqual(Set(desktop.replica.live(.session).compactMap { $0["note"]?.stringValue }), ["kept", "lost by the store"])
        try desktop.stop()
        try engine.stop()
    }
}
