import Glibc
import XCTest
@testable import TimeCore

/// The merged state of the folder's records is kept in the store (schema v9, docs/sync.md,
/// "Start-up"): a restart reads only what was appended since, holds only open sessions in
/// memory, and ends with the very state a rebuild from every file gives. A v8 store moves
/// forward and rebuilds it once.
final class SyncMergedStateTests: SyncTestCase {
    /// The merged state as a fresh read of every file in the folder gives it.
    private func rebuilt(_ syncFolder: String? = nil) -> [String] {
        var reader = SyncLogReader(layout: SyncLayout(folder: syncFolder ?? folder))
        var replica = SyncReplica()
        replica.apply(reader.readNew(except: nil).records)
        return replica.view()
    }

    private func sessions(_ tracker: Tracker) throws -> [String] {
        try tracker.store.allSessions().map { "\($0.globalID) \($0.start) \($0.end.map(String.init) ?? "open") \($0.note)" }.sorted()
    }

    func testARestartReadsOnlyWhatWasAppendedAndKeepsOnlyOpenSessionsInMemory() throws {
        let desktop = try home("desktop")
        try desktop.tracker.createProject(name: "Client A", color: "", category: "")
        for day in 1...20 {
            _ = try desktop.tracker.addSession(project: 1, start: utc(2026, 5, day, 9), duration: "1h", note: "day \(day)")
        }
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop", wallMilliseconds: wall)
        let laptopID = SyncRecord.newID()
        var laptop: DataHome? = try home("laptop")
        var a: SyncEngine? = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertGreaterThan(a!.replica.recordCount, 20, "enabling merges every record of the desktop")
        _ = try laptop!.tracker.startProject("Client A")
        clock.advance(600)
        try laptop!.tracker.pause()
        _ = try laptop!.tracker.addSession(project: 1, start: utc(2026, 5, 25, 14), duration: "30m", note: "on the laptop")
        try a!.flushLog()
        XCTAssertEqual(try sessions(laptop!.tracker).count, 22)

        // A restart with nothing new reads nothing, holds the paused session alone in memory,
        // and has the state a rebuild from the files gives.
        try a!.stop()
        (a, laptop) = (nil, nil)
        laptop = try home("laptop")
        a = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(a!.readAtStart, 0)
        XCTAssertEqual(a!.replica.sessionsInMemory, 1, "only the open (paused) session")
        XCTAssertEqual(a!.replica.view(), rebuilt())
        XCTAssertEqual(try laptop!.tracker.status().state, .paused)

        // What the desktop appends while the laptop is off is all that is read at the next start.
        try a!.stop()
        (a, laptop) = (nil, nil)
        clock.advance(600)
        _ = try desktop.tracker.addSession(project: 1, start: utc(2026, 5, 26, 9), duration: "1h", note: "day 26")
        let first = try XCTUnwrap(try desktop.tracker.store.allSessions().first { $0.note == "day 1" })
        try desktop.tracker.editSession(id: first.id, changes: SessionChanges(note: "day 1, edited"))
        try b.publish(wallMilliseconds: wall)
        try b.flushLog()
        laptop = try home("laptop")
        a = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(a!.readAtStart, 2, "the new session and the edit")
        XCTAssertEqual(a!.replica.view(), rebuilt())
        XCTAssertEqual(try sessions(laptop!.tracker).filter { !$0.hasSuffix("on the laptop") && !$0.contains(" open ") },
                       try sessions(desktop.tracker))
        XCTAssertTrue(try sessions(laptop!.tracker).contains { $0.hasSuffix("day 1, edited") })

        // This device's changes after a crash (no stop, nothing saved since) are read back from its own log.
        try laptop!.tracker.resume()
        clock.advance(60)
        try laptop!.tracker.stop()
        try a!.flushLog()  // the log is durable; the merged state kept in the store was saved with it
        let edited = try XCTUnwrap(try laptop!.tracker.store.allSessions().first { $0.note == "on the laptop" })
        try laptop!.tracker.editSession(id: edited.id, changes: SessionChanges(note: "on the laptop, edited"))
        try a!.flushLog()
        (a, laptop) = (nil, nil)  // no stop()
        laptop = try home("laptop")
        a = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(a!.replica.view(), rebuilt())
        XCTAssertEqual(a!.replica.sessionsInMemory, 0, "no open session is left")
        try a!.stop()
        try b.stop()
    }

    /// A record that is not yet written into the store (its merge was refused) never gets into
    /// the state kept: a restart must still write it.
    func testAMergedStateIsNotKeptWhileAMergeWaitsToBeWritten() throws {
        let desktop = try home("desktop")
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop", wallMilliseconds: wall)
        let laptopID = SyncRecord.newID()
        var laptop: DataHome? = try home("laptop")
        var a: SyncEngine? = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        try desktop.tracker.createProject(name: "Client A", color: "", category: "")
        _ = try desktop.tracker.addSession(project: 1, start: utc(2026, 5, 2, 9), duration: "1h", note: "from the desktop")
        try b.publish(wallMilliseconds: wall)
        try b.flushLog()
        // The laptop's merge is refused (its snapshot could not be written, say).
        let gate = laptop!.tracker.recorder
        laptop!.tracker.recorder = RefusingRecorder()
        XCTAssertThrowsError(try a!.merge(wallMilliseconds: wall))
        laptop!.tracker.recorder = gate
        XCTAssertEqual(try laptop!.tracker.store.allSessions().count, 0)
        try a!.flushLog()  // keeps the state only when nothing waits
        (a, laptop) = (nil, nil)
        laptop = try home("laptop")
        a = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(try laptop!.tracker.store.allSessions().map(\.note), ["from the desktop"])
        XCTAssertEqual(a!.replica.view(), rebuilt())
        try a!.stop()
        try b.stop()
    }

    /// A store as the v8 agent left it with sync on (positions for the other devices, no merged
    /// state kept) moves to v9; the first start rebuilds the merged state from the files without
    /// writing anything into the store again, and the next start reads nothing.
    func testAVersion8StoreWithSyncOnMovesForwardAndRebuildsOnce() throws {
        let desktop = try home("desktop")
        try desktop.tracker.createProject(name: "Client A", color: "", category: "")
        for day in 1...5 { _ = try desktop.tracker.addSession(project: 1, start: utc(2026, 5, day, 9), duration: "1h", note: "day \(day)") }
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop", wallMilliseconds: wall)
        let laptopID = SyncRecord.newID()
        var laptop: DataHome? = try home("laptop")
        var a: SyncEngine? = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        try a!.stop()
        let before = try sessions(laptop!.tracker)
        XCTAssertEqual(before.count, 5)
        (a, laptop) = (nil, nil)
        // Back to what v8 wrote: no tables of the merged state (nor v11's rates and targets, nor v13's focus, nor v15's mark table),
        // positions of the other device only.
        do {
            let database = try SQLiteDatabase(path: directory + "/laptop/time.sqlite", mode: .readWrite)
            let text = try XCTUnwrap(try database.queryFirst("SELECT value FROM meta WHERE key = 'sync_positions'") { $0.string(0) })
            let saved = try JSON.parse(text)
            guard case .object(let devices)? = saved["devices"] else { return XCTFail("positions: \(text)") }
            XCTAssertEqual(devices.count, 2)
            let v8 = JSON.sortedObject(["root": saved["root"]!, "devices": .object(devices.filter { $0.0 != laptopID })]).serialized
            try database.execute(v8Notes)  // first: v14's notes name the columns dropped next
            try database.execute(withoutV15SnapshotMark + """
                DELETE FROM meta WHERE key = 'sync_replica';
                ALTER TABLE projects DROP COLUMN rate_cents; ALTER TABLE projects DROP COLUMN weekly_target;
                DROP TRIGGER IF EXISTS sync_notes_sessions_focus; ALTER TABLE sessions DROP COLUMN focus;
                PRAGMA user_version = 8;
                """)
            try database.run("UPDATE meta SET value = ? WHERE key = 'sync_positions'", .text(v8))
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        for suffix in ["", "-wal", "-shm"] { Files.remove(directory + "/laptop/time-sync.sqlite" + suffix) }  // v8 had no such file
        laptop = try home("laptop")
        XCTAssertEqual(try laptop!.tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
        let snapshots = try XCTUnwrap(laptop!.keeper).entries.count
        a = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertGreaterThan(a!.alreadyHeld, 5, "the desktop's records were known to the store, not written again")
        XCTAssertEqual(try XCTUnwrap(laptop!.keeper).entries.count, snapshots, "no change was made")
        XCTAssertEqual(try sessions(laptop!.tracker), before)
        XCTAssertEqual(a!.replica.view(), rebuilt())
        try a!.stop()
        (a, laptop) = (nil, nil)
        laptop = try home("laptop")
        a = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(a!.readAtStart, 0, "kept since the first start")
        XCTAssertEqual(a!.replica.view(), rebuilt())
        try a!.stop()
        try b.stop()
    }

    /// A damaged row of the kept state is never taken for the truth: a damaged project makes the
    /// start rebuild; a damaged session, found when a record touches it, makes the kept state be
    /// dropped, and the next start rebuilds. The store ends as the other device has it.
    func testADamagedRowOfTheKeptStateIsRebuiltFromTheFolder() throws {
        let desktop = try home("desktop")
        try desktop.tracker.createProject(name: "Client A", color: "", category: "")
        _ = try desktop.tracker.addSession(project: 1, start: utc(2026, 5, 1, 9), duration: "1h", note: "first")
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop", wallMilliseconds: wall)
        let laptopID = SyncRecord.newID()
        func restart() throws -> (DataHome, SyncEngine) {
            let laptop = try home("laptop")
            return (laptop, try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall))
        }
        func damage(_ kind: String) throws {
            let database = try SQLiteDatabase(path: directory + "/laptop/time-sync.sqlite", mode: .readWrite)
            try database.run("UPDATE sync_entities SET state = '{\"s\":[' WHERE kind = ?", .text(kind))
        }
        do { let (_, a) = try restart(); try a.stop() }
        try damage("project")
        do {
            let (_, a) = try restart()
            XCTAssertGreaterThan(a.readAtStart, 0, "rebuilt from the files")
            XCTAssertEqual(a.replica.view(), rebuilt())
            try a.stop()
        }
        try damage("session")
        let session = try XCTUnwrap(try desktop.tracker.store.allSessions().first)
        try desktop.tracker.editSession(id: session.id, changes: SessionChanges(note: "edited"))
        try b.publish(wallMilliseconds: wall)
        try b.flushLog()
        do {
            let (_, a) = try restart()
            XCTAssertEqual(a.readAtStart, 1, "the positions still matched")
            XCTAssertNotNil(a.keptStateProblem, "the edit touched the damaged row")
            try a.stop()
        }
        let (laptop, a) = try restart()
        XCTAssertEqual(a.alreadyHeld, 0, "dropped with its positions: every record is compared with the store again")
        XCTAssertNil(a.keptStateProblem)
        XCTAssertEqual(a.replica.view(), rebuilt())
        XCTAssertEqual(try laptop.tracker.store.allSessions().map(\.note), ["edited"])
        try a.stop()
        try b.stop()
    }

    /// Sync moved to another folder and back: the state kept for one folder is never taken for
    /// the other; each time it is rebuilt from the folder's own files, and both folders end with
    /// this device's whole history.
    func testMovingToAnotherFolderAndBackRebuildsTheKeptState() throws {
        let laptopID = SyncRecord.newID()
        let other = directory + "/Other"
        var laptop: DataHome? = try home("laptop")
        try laptop!.tracker.createProject(name: "Client A", color: "", category: "")
        _ = try laptop!.tracker.addSession(project: 1, start: utc(2026, 5, 1, 9), duration: "1h", note: "before")
        var a: SyncEngine? = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        try a!.stop()
        try laptop!.tracker.disableSync()
        _ = try laptop!.tracker.addSession(project: 1, start: utc(2026, 5, 2, 9), duration: "1h", note: "while off")
        a = try SyncEngine(tracker: laptop!.tracker, folder: other, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(a!.replica.view(), rebuilt(other))
        try a!.stop()
        try laptop!.tracker.disableSync()
        _ = try laptop!.tracker.addSession(project: 1, start: utc(2026, 5, 3, 9), duration: "1h", note: "off again")
        (a, laptop) = (nil, nil)
        laptop = try home("laptop")
        a = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(a!.replica.view(), rebuilt(folder))
        for root in [folder, other] {
            XCTAssertEqual(Set(rebuilt(root).filter { $0.hasPrefix("session ") }.compactMap { line in
                ["before", "while off", "off again"].first { line.contains("\"note\":\"\($0)\"") }
            }), root == folder ? ["before", "while off", "off again"] : ["before", "while off"], root)
        }
        try a!.stop()
    }

    private final class RefusingRecorder: ChangeRecorder {
        struct Refused: Error {}
        func recordState(of store: Store, changedDays: Set<String>, meanwhile: () throws -> Void) throws { throw Refused() }
        func changeCommitted() {}
        func changeAbandoned() {}
        func tidyUp() {}
    }

    /// A change that lands between the write of the merged state and its commit (this device's
    /// records of the merge's own change) is not counted as saved, and stays in memory.
    func testAChangeAfterAWriteAndBeforeItsCommitStaysUnsaved() throws {
        let database = try SQLiteDatabase(path: directory + "/replica.sqlite", mode: .readWriteCreate)
        try database.execute(SyncReplicaStore.schema)
        let backing = SyncReplicaStore(database: database)
        var replica = SyncReplica(emptyWith: backing)
        let device = SyncRecord.newID(), session = SyncRecord.newID()
        func record(_ sequence: Int64, _ operation: SyncOperation, _ note: String) -> SyncRecord {
            SyncRecord(device: device, sequence: sequence, hlc: HLC(time: 1000 + sequence, counter: 0), kind: .session, id: session,
                       operation: operation, fields: ["note": .string(note), "end": .int(50)])
        }
        replica.apply([record(1, .create, "first")])
        try replica.write(to: backing)
        replica.apply([record(2, .set, "second")])
        replica.didSave()
        XCTAssertTrue(replica.hasUnsaved)
        XCTAssertEqual(replica.entity(.session, session)?["note"], .string("second"), "not evicted for the older copy the store has")
        XCTAssertEqual(backing.entity(.session, session)?["note"], .string("first"))
        try replica.write(to: backing)
        replica.didSave()
        XCTAssertFalse(replica.hasUnsaved)
        XCTAssertEqual(replica.sessionsInMemory, 0, "saved and not open: it left memory")
        XCTAssertEqual(replica.entity(.session, session)?["note"], .string("second"), "read from the store")
        XCTAssertEqual(try backing.devices().first?.1.through, 3)
    }

    func testAnEntityKeptInTheStoreReadsBackTheSame() throws {
        var replica = SyncReplica()
        let device = SyncRecord.newID(), other = SyncRecord.newID()
        let id = SyncRecord.newID()
        replica.apply([
            SyncRecord(device: device, sequence: 1, hlc: HLC(time: 1000, counter: 0), kind: .session, id: id, operation: .create,
                       fields: ["note": .string("a \"quoted\" note\n"), "start": .int(-5), "end": .null,
                                "segments": .array([.array([.int(1), .null])]), "archived": .bool(true)]),
            SyncRecord(device: other, sequence: 7, hlc: HLC(time: 999, counter: 3), kind: .session, id: id, operation: .set,
                       fields: ["note": .string("older, kept out")]),
            SyncRecord(device: other, sequence: 8, hlc: HLC(time: 2000, counter: 1), kind: .session, id: id, operation: .delete, fields: [:]),
        ])
        let entity = try XCTUnwrap(replica.entity(.session, id))
        let text = SyncReplicaStore.encode(entity)
        XCTAssertEqual(SyncReplicaStore.decode(kind: .session, id: id, text), entity)
        XCTAssertNoThrow(try JSON.parse(text), "a row is JSON")
        XCTAssertNil(SyncReplicaStore.decode(kind: .session, id: id, "{\"c\":null"), "a damaged row is no entity")
    }
}

/// SQL that puts a current store's notes back as v8 kept them (one per record, v8's triggers).
/// Puts the snapshot mark back into `meta` as v14 and before kept it (a store faked back to an older version).
let withoutV15SnapshotMark = withoutV17StepMarks + """
    INSERT INTO meta(key, value) SELECT 'snapshot_state', state FROM snapshot_mark WHERE state IS NOT NULL;
    INSERT INTO meta(key, value) SELECT 'snapshot_sequence', CAST(sequence AS TEXT) FROM snapshot_mark WHERE sequence IS NOT NULL;
    DROP TABLE snapshot_mark;

    """

/// Takes away the notes of the shared settings that v14 added (a store faked back to an older version).
let withoutV14SettingsNotes = ["insert", "update", "delete"].map { "DROP TRIGGER IF EXISTS sync_notes_settings_\($0);\n" }.joined()

let v8Notes: String = {
    var sql = ""
    for table in ["categories", "projects", "sessions", "segments"] {
        for event in ["insert", "update", "delete"] { sql += "DROP TRIGGER IF EXISTS sync_notes_\(table)_\(event);\n" }
    }
    return sql + withoutV14SettingsNotes + """
        DROP TABLE sync_dirty;
        CREATE TABLE sync_dirty(kind TEXT NOT NULL, gid TEXT NOT NULL, PRIMARY KEY(kind, gid)) WITHOUT ROWID;
        """ + SyncStore.legacyTriggers()
}()
