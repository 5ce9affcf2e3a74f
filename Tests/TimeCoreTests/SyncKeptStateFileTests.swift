import Glibc
import XCTest
@testable import TimeCore

/// The merged state kept in its own file (schema v12) goes with the store only through the token
/// both hold (docs/sync.md, "Two files, one truth"): whichever of the two commits of a save a
/// power cut takes, a start finds the tokens differ and rebuilds from the folder, and ends with
/// the state a fresh read of every file gives, the store holding every record.
final class SyncKeptStateFileTests: SyncTestCase {
    private func rebuilt() -> [String] {
        var reader = SyncLogReader(layout: SyncLayout(folder: folder))
        var replica = SyncReplica()
        replica.apply(reader.readNew(except: nil).records)
        return replica.view()
    }

    private func notes(_ tracker: Tracker) throws -> [String] { try tracker.store.allSessions().map(\.note).sorted() }

    /// Copies of the store's files or the kept state's, as they are now (the agent is stopped).
    private func keep(_ name: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        for suffix in ["", "-wal", "-shm"] where Files.exists(directory + "/laptop/" + name + suffix) {
            files[name + suffix] = try Files.read(directory + "/laptop/" + name + suffix)
        }
        return files
    }

    private func putBack(_ files: [String: [UInt8]], _ name: String) throws {
        for suffix in ["", "-wal", "-shm"] { Files.remove(directory + "/laptop/" + name + suffix) }
        for (file, bytes) in files { try Files.writeDurably(bytes, to: directory + "/laptop/" + file) }
    }

    /// A v11 store whose merged state took most of it: v12 copies the rows into their own file,
    /// drops them and compacts the store, which ends about the size of its data.
    func testAVersion11StoreWithALargeMergedStateIsCompactedByV12() throws {
        let path = directory + "/v11/time.sqlite"
        try Files.makePrivateDirectory(directory + "/v11")
        do {
            let store = try Store(path: path, create: true)
            // Back to v11: the merged state's tables of v9, without v13's focus column and trigger
            // and v14's notes of the shared settings, nor v15's snapshot mark table.
            try store.database.execute(SyncReplicaStore.storeSchemaV9 + withoutV15SnapshotMark + withoutV14SettingsNotes + """
                DROP TRIGGER IF EXISTS sync_notes_sessions_focus; ALTER TABLE sessions DROP COLUMN focus; PRAGMA user_version = 11;
                """)
            let state = String(repeating: "x", count: 300)
            try store.database.execute("BEGIN")
            for index in 0..<3000 {
                try store.database.run("INSERT INTO sync_entities VALUES('session', ?, 0, ?)", .text(String(index)), .text(state))
            }
            try store.database.run("INSERT INTO sync_devices VALUES('d', 5, '[]', 1, 0)")
            try store.database.run("INSERT INTO meta(key, value) VALUES('sync_replica', '/some/folder/time-tracker')")
            try store.database.execute("COMMIT")
            try store.checkpoint()
        }
        let before = try XCTUnwrap(Files.size(path))
        let store = try Store(path: path, create: false)
        XCTAssertEqual(try store.database.integerPragma("user_version"), Schema.currentVersion)
        XCTAssertLessThan(try store.database.integerPragma("page_count") * 4096, before / 4, "compacted to a fraction of \(before) bytes")
        let kept = try SyncReplicaStore.beside(store)
        XCTAssertEqual(try kept.root(), "/some/folder/time-tracker", "the copy and the store name the same token")
        XCTAssertEqual(try kept.database.queryFirst("SELECT count(*) FROM sync_entities") { $0.int(0) }, 3000)
        XCTAssertEqual(try kept.devices().map(\.0), ["d"])
    }

    func testEitherFileLosingTheNewestSaveMakesTheStartRebuild() throws {
        let desktop = try home("desktop")
        try desktop.tracker.createProject(name: "Client A", color: "", category: "")
        _ = try desktop.tracker.addSession(project: 1, start: utc(2026, 5, 1, 9), duration: "1h", note: "first")
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop", wallMilliseconds: wall)
        let laptopID = SyncRecord.newID()
        func start() throws -> (DataHome, SyncEngine) {
            let laptop = try home("laptop")
            return (laptop, try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall))
        }
        do { let (_, a) = try start(); try a.stop() }
        do { let (_, a) = try start(); XCTAssertEqual(a.readAtStart, 0, "the tokens agree: the kept state is taken"); try a.stop() }

        for lost in ["time.sqlite", "time-sync.sqlite"] {
            // The files as they were before a merge's save; the merge saves both; then a power cut
            // takes that save from one of them (here: that file is put back as it was).
            let before = try keep(lost)
            _ = try desktop.tracker.addSession(project: 1, start: utc(2026, 5, 2, 9), duration: "1h", note: "merged before the cut, \(lost)")
            try b.publish(wallMilliseconds: wall)
            try b.flushLog()
            do { let (_, a) = try start(); XCTAssertEqual(a.readAtStart, 1); try a.stop() }
            try putBack(before, lost)
            let (laptop, a) = try start()
            XCTAssertGreaterThan(a.readAtStart, 1, "\(lost) lost the save: the tokens differ, the state is rebuilt from the folder")
            XCTAssertEqual(a.replica.view(), rebuilt())
            XCTAssertEqual(try notes(laptop.tracker), try notes(desktop.tracker), "the store holds every record")
            try a.stop()
        }
        try b.stop()
    }
}
