import XCTest
@testable import TimeCore

/// Sync's triggers are in the store only while sync is on (SyncTriggers.swift): gone at the open
/// of a store with sync off, made (as a new store's migrations make them) by the change that
/// turns sync on, before anything else is written, dropped when it is turned off, and made again
/// at the open of a store with sync on that lacks any.
final class SyncTriggersTests: SyncTestCase {
    private func triggers(_ home: DataHome) throws -> [String] {
        try home.tracker.store.database.query(
            "SELECT name FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sync_notes_%' ORDER BY name") { $0.string(0) }
    }

    private func notes(_ home: DataHome) throws -> [String] {
        try home.tracker.store.database.query("SELECT kind || ' ' || field FROM sync_dirty ORDER BY 1") { $0.string(0) }
    }

    /// The oracle: sync's triggers a store made by every migration holds, read from a store of its
    /// own (the id counters' triggers of v18 are there whatever sync does).
    private func freshStoreTriggers() throws -> [String: String] {
        let database = try SQLiteDatabase(path: ":memory:", mode: .readWriteCreate)
        for migration in Schema.migrations { try database.execute(migration.sql) }
        let rows = try database.query("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sync_notes_%'") {
            ($0.string(0), $0.string(1))
        }
        return Dictionary(uniqueKeysWithValues: rows)
    }

    func testTheTriggersAreThereExactlyWhileSyncIsOn() throws {
        let expected = try freshStoreTriggers()
        XCTAssertEqual(expected.count, 16, "v10's twelve, v13's of a session's focus and v14's three of the shared settings")
        XCTAssertEqual(try SyncTriggers.definitions().count, expected.count)
        XCTAssertEqual(SyncTriggers.count, expected.count, "the count a start with sync on compares with")
        var laptop: DataHome? = try home("laptop")
        XCTAssertEqual(try triggers(laptop!), [], "sync off: none")
        try laptop!.tracker.createProject(name: "Writing", color: "", category: "")

        _ = try laptop!.tracker.enableSync(folder: folder, name: "laptop")
        XCTAssertEqual(try triggers(laptop!), expected.keys.sorted())
        let made = try laptop!.tracker.store.database.query(
            "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sync_notes_%'") { ($0.string(0), $0.string(1)) }
        for (name, sql) in made { XCTAssertEqual(sql, expected[name], name) }
        try laptop!.tracker.updateProject(id: 1, changes: ProjectChanges(color: "#112233"))
        XCTAssertEqual(try notes(laptop!), ["project color"], "the first change with sync on is noted")

        laptop = nil
        laptop = try home("laptop")
        XCTAssertEqual(try triggers(laptop!), expected.keys.sorted(), "kept at an open with sync on")
        try laptop!.tracker.disableSync()
        XCTAssertEqual(try triggers(laptop!), [], "dropped with sync turned off")
        try laptop!.tracker.store.database.execute("DELETE FROM sync_dirty")
        try laptop!.tracker.updateProject(id: 1, changes: ProjectChanges(color: "#445566"))
        XCTAssertEqual(try notes(laptop!), [], "nothing noted with sync off")

        // A store with sync on that lacks some (made by hand here) has them again at its open.
        _ = try laptop!.tracker.enableSync(folder: folder, name: "laptop")
        try laptop!.tracker.store.database.execute("DROP TRIGGER sync_notes_segments_update; DROP TRIGGER sync_notes_settings_insert")
        laptop = nil
        laptop = try home("laptop")
        XCTAssertEqual(try triggers(laptop!), expected.keys.sorted())
    }

    /// A sync engine that starts on a store whose folder is not set yet sets it, triggers first.
    func testAnEngineStartingSyncMakesTheTriggersFirst() throws {
        let laptop = try home("laptop")
        try laptop.tracker.createProject(name: "Writing", color: "", category: "")
        XCTAssertEqual(try triggers(laptop), [])
        let device = try laptop.tracker.syncDeviceID()
        _ = try SyncEngine(tracker: laptop.tracker, folder: folder, device: device, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(try triggers(laptop).count, 16)
        try laptop.tracker.updateProject(id: 1, changes: ProjectChanges(color: "#112233"))
        XCTAssertEqual(try notes(laptop), ["project color"])
    }
}
