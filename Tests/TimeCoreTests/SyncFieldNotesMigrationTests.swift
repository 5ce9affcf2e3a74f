import Foundation
import XCTest
@testable import TimeCore

/// A real v9 store with sync on (made by the v9 agent and `timectl`: a project, two sessions,
/// sync enabled, then a color changed behind the agent's back, which v9's triggers noted as a
/// record to publish), dumped by the sqlite3 command line into Tests/Fixtures/sync-v9 with its
/// device's change file. Migration v10 makes the notes name fields: the record noted before is
/// still published whole, and from then on a record carries only the field a change set.
final class SyncFieldNotesMigrationTests: SyncTestCase {
    private let device = "12040adcc996cf28f0ec61454d2ced6e"

    private func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/sync-v9/\(name)").path
    }

    /// The store written by the sqlite3 command line, the sync folder's paths put in; the change file copied.
    private func writeFixture() throws -> String {
        let data = directory + "/laptop"
        try Files.makePrivateDirectory(data)
        let deviceFolder = SyncLayout(folder: folder).deviceFolder(device)
        try FileManager.default.createDirectory(atPath: deviceFolder, withIntermediateDirectories: true)
        for name in ["device.json", "changes-000001.jsonl"] {
            try FileManager.default.copyItem(atPath: fixture(name), toPath: deviceFolder + "/" + name)
        }
        let sql = try String(contentsOfFile: fixture("store.sql"), encoding: .utf8).replacingOccurrences(of: "@SYNC@", with: folder)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", data + "/time.sqlite"]
        let input = Pipe()
        sqlite.standardInput = input
        try sqlite.run()
        input.fileHandleForWriting.write(Data(sql.utf8))
        try input.fileHandleForWriting.close()
        sqlite.waitUntilExit()
        XCTAssertEqual(sqlite.terminationStatus, 0, "sqlite3 wrote the v9 store")
        let check = try SQLiteDatabase(path: data + "/time.sqlite", mode: .readOnly)
        XCTAssertEqual(try check.integerPragma("user_version"), 9)
        XCTAssertEqual(try check.query("SELECT kind FROM sync_dirty") { $0.string(0) }, ["project"], "v9 noted the record")
        return data
    }

    private func ownRecords() -> [SyncRecord] {
        var reader = SyncLogReader(layout: SyncLayout(folder: folder))
        return reader.readNew(device: device).records
    }

    func testAVersion9StoreWithSyncOnMovesForwardAndItsNotesNameFields() throws {
        clock.time = utc(2026, 12, 1, 21)  // after the fixture's sessions
        _ = try writeFixture()
        let before = ownRecords()
        XCTAssertEqual(before.count, 6, "device, category, project and three sessions, as v9 published them")
        let home = try home("laptop")
        XCTAssertEqual(home.status, .ok, home.status.message)
        let database = home.tracker.store.database
        XCTAssertEqual(try database.integerPragma("user_version"), Schema.currentVersion)
        XCTAssertEqual(try database.query("SELECT kind, field FROM sync_dirty") { $0.string(0) + " " + $0.string(1) }, ["project *"],
                       "the record v9 noted is kept, to be compared whole")
        let triggers = try database.query("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name") { $0.string(0) }
        XCTAssertFalse(triggers.contains { $0.hasPrefix("sync_dirty_") }, "v8's triggers are gone: \(triggers)")
        XCTAssertEqual(triggers.filter { $0.hasPrefix("sync_notes_") }.count, 13, "v10's twelve and v13's of a session's focus phases")

        let settings = try XCTUnwrap(try home.tracker.syncSettings())
        XCTAssertEqual(settings.device, device)
        let engine = try SyncEngine(tracker: home.tracker, folder: settings.folder, device: device, deviceName: settings.name, wallMilliseconds: wall)
        XCTAssertEqual(engine.readAtStart, 0, "the kept state of v9 is taken as it is")
        let published = Array(ownRecords().dropFirst(before.count))
        XCTAssertEqual(published.map(\.fields), [["color": .string("#112233")]], "what v9 noted, and only what differs")

        // From here a change publishes just the field it set.
        let session = try XCTUnwrap(try home.tracker.store.allSessions().first { $0.note == "review" })
        try home.tracker.setNote(session: session.id, note: "review, done")
        try home.tracker.editSession(id: session.id, changes: SessionChanges(start: session.start + 600))
        let later = Array(ownRecords().dropFirst(before.count + 1))
        XCTAssertEqual(later.map { $0.fields.keys.sorted() }, [["note"], ["end", "segments", "start"]])
        XCTAssertEqual(try database.query("SELECT count(*) FROM sync_dirty") { $0.int(0) }, [0])
        try engine.stop()
    }

    /// v12 copies the merged state v9 kept into a file of its own and drops it from the store
    /// (which is compacted): the first start takes it as it is, reading nothing, and so does the
    /// next; a copy lost from either side (its token differs) is rebuilt from the folder once.
    func testAVersion9StoreKeepsItsMergedStateInItsOwnFileFromV12() throws {
        clock.time = utc(2026, 12, 1, 21)
        let data = try writeFixture()
        let v9 = try SQLiteDatabase(path: data + "/time.sqlite", mode: .readOnly)
        XCTAssertGreaterThan(try v9.queryFirst("SELECT count(*) FROM sync_entities") { $0.int(0) } ?? 0, 0, "v9 kept the merged state in the store")
        let records = ownRecords().count
        let pages = try v9.integerPragma("page_count")
        var home: DataHome? = try home("laptop")
        let settings = try XCTUnwrap(try home!.tracker.syncSettings())
        let tables = try home!.tracker.store.database.query("SELECT name FROM sqlite_master WHERE name LIKE 'sync_%' AND type = 'table'") { $0.string(0) }
        XCTAssertEqual(tables, ["sync_dirty"], "the merged state left the store")
        let store = home!.tracker.store.database
        XCTAssertLessThanOrEqual(try store.integerPragma("freelist_count") * 4, try store.integerPragma("page_count"),
                                 "the store keeps no room for the state it no longer holds (\(pages) pages in v9)")
        XCTAssertTrue(Files.exists(data + "/time-sync.sqlite"), "copied into its own file")
        let data0 = try DataState(store: home!.tracker.store)
        var engine: SyncEngine? = try SyncEngine(tracker: home!.tracker, folder: settings.folder, device: device,
                                                 deviceName: settings.name, wallMilliseconds: wall)
        XCTAssertEqual(engine!.readAtStart, 0, "the copy is taken as it is")
        XCTAssertGreaterThan(records, 0)
        try engine!.stop()
        XCTAssertEqual(try DataState(store: home!.tracker.store).differences(from: data0).filter { !$0.contains("color") }, [],
                       "the store holds what it held (but the color v9 noted, published now)")
        (engine, home) = (nil, nil)
        home = try self.home("laptop")
        engine = try SyncEngine(tracker: home!.tracker, folder: settings.folder, device: device, deviceName: settings.name, wallMilliseconds: wall)
        XCTAssertEqual(engine!.readAtStart, 0, "and at the next start")
        var reader = SyncLogReader(layout: SyncLayout(folder: folder))
        var fresh = SyncReplica()
        fresh.apply(reader.readNew(except: nil).records)
        XCTAssertEqual(engine!.replica.view(), fresh.view())
        try engine!.stop()
    }
}
