import Glibc
import XCTest
@testable import TimeCore

/// What was deleted while sync was off is published as deleted when sync is on again: sessions,
/// and categories too, but not a category that lives on under another device's id (same name).
final class SyncOfflineDeleteTests: SyncTestCase {
    func testACategoryDeletedWhileSyncWasOffIsDeletedOnTheOtherDeviceToo() throws {
        let laptop = try home("laptop")
        let desktop = try home("desktop")
        try laptop.tracker.addCategory("Travel")
        try laptop.tracker.addCategory("Writing")
        try desktop.tracker.addCategory("writing")
        try laptop.tracker.createProject(name: "Trip", color: "", category: "Travel")
        try laptop.tracker.createProject(name: "Blog", color: "", category: "Writing")
        try desktop.tracker.createProject(name: "Notes", color: "", category: "writing")  // the same category, by name
        let laptopID = SyncRecord.newID()
        var a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop", wallMilliseconds: wall)
        try a.merge(wallMilliseconds: wall)
        try b.merge(wallMilliseconds: wall)
        XCTAssertEqual(Set(desktop.tracker.categories().map { $0.name.lowercased() }), ["travel", "writing"])

        // Off on the laptop: Travel is deleted there.
        try a.stop()
        try laptop.tracker.disableSync()
        clock.advance(60)
        try laptop.tracker.deleteCategory("Travel")
        clock.advance(60)
        _ = try laptop.tracker.enableSync(folder: folder, name: "laptop")
        a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        try b.merge(wallMilliseconds: wall)
        try a.merge(wallMilliseconds: wall)

        XCTAssertEqual(desktop.tracker.categories().map { $0.name.lowercased() }, ["writing"], "Travel is gone on the desktop")
        XCTAssertEqual(laptop.tracker.categories().map { $0.name.lowercased() }, ["writing"])
        XCTAssertEqual(desktop.tracker.projects().first { $0.name == "Trip" }?.categoryID, nil, "its project stays, uncategorized")
        try a.stop()
        try b.stop()
    }

    /// Enabling sync again compares the store with what it already merged of the others, not
    /// with this device's own records alone: another device's edit made meanwhile is not undone
    /// by this device publishing its older copy as new.
    func testEnablingAgainDoesNotPublishAnotherDevicesOlderValuesAsNew() throws {
        let laptop = try home("laptop")
        let desktop = try home("desktop")
        try desktop.tracker.createProject(name: "Client A", color: "", category: "")
        let id = try desktop.tracker.addSession(project: 1, start: utc(2026, 5, 29, 9), duration: "1h", note: "as first written")
        let laptopID = SyncRecord.newID()
        var a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop", wallMilliseconds: wall)
        try a.merge(wallMilliseconds: wall)
        XCTAssertEqual(try laptop.tracker.store.allSessions().map(\.note), ["as first written"])

        try a.stop()
        try laptop.tracker.disableSync()
        clock.advance(60)
        try desktop.tracker.setNote(session: id, note: "edited on the desktop")
        try b.flushLog()
        clock.advance(60)
        _ = try laptop.tracker.enableSync(folder: folder, name: "laptop")
        a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        try b.merge(wallMilliseconds: wall)
        try a.merge(wallMilliseconds: wall)
        XCTAssertEqual(try laptop.tracker.store.allSessions().map(\.note), ["edited on the desktop"])
        XCTAssertEqual(try desktop.tracker.store.allSessions().map(\.note), ["edited on the desktop"])
        try a.stop()
        try b.stop()
    }
}
