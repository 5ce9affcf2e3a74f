import Foundation
import XCTest
@testable import TimeCore

/// A real older store, written by the sqlite3 command line from a checked-in script, opened the
/// way the agent opens it (lock, raw archive, migration, first snapshot), checked record by record,
/// then written to and read back. Run alone by scripts/test-schema-migration.sh.
final class SchemaMigrationFixtureTests: XCTestCase {
    private final class Clock1795: Clock { func now() -> Int64 { 1_795_000_000 } }

    private func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name)").path
    }

    /// Writes the fixture's store with the sqlite3 command line into a fresh data folder.
    private func writeStore(version: Int) throws -> String {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("time-migration-\(version)-\(getpid())").path
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", folder + "/time.sqlite"]
        sqlite.standardInput = FileHandle(forReadingAtPath: fixture("store-v\(version).sql"))
        sqlite.standardOutput = FileHandle.nullDevice
        try sqlite.run()
        sqlite.waitUntilExit()
        XCTAssertEqual(sqlite.terminationStatus, 0, "sqlite3 wrote the v\(version) fixture")
        let check = try SQLiteDatabase(path: folder + "/time.sqlite", mode: .readOnly)
        XCTAssertEqual(try check.integerPragma("user_version"), Int64(version))
        return folder
    }

    private func verifyMigrated(version: Int) throws {
        let folder = try writeStore(version: version)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let original = try Files.read(folder + "/time.sqlite")
        do {
            let home = try DataHome(directory: folder, clock: Clock1795())
            XCTAssertEqual(home.status, .ok, home.status.message)
            let tracker = home.tracker
            XCTAssertEqual(try tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
            XCTAssertEqual(try tracker.store.database.query("PRAGMA foreign_key_check") { $0.string(0) }, [])

            // Every record and relationship.
            XCTAssertEqual(tracker.categories(), [Category(id: 1, name: "Work")])
            XCTAssertEqual(tracker.projects(), [
                Project(id: 1, name: "Writing", color: "#3366cc", categoryID: 1, archived: false),
                Project(id: 2, name: "Reading", color: "#dc3912", categoryID: nil, archived: false),
                Project(id: 3, name: "Écriture", color: "#ff9900", categoryID: nil, archived: true),
            ])
            let notes = version >= 3 ? ["drafting, line one\nline two", "", "zero seconds", "open"] : ["", "", "", ""]
            XCTAssertEqual(try tracker.store.allSessions(), [
                WorkSession(id: 1, projectID: 1, start: 1_794_000_000, end: 1_794_005_400, unrecordedSeconds: 5400, note: notes[0], segments: []),
                WorkSession(id: 2, projectID: 2, start: 1_794_100_000, end: 1_794_103_600, unrecordedSeconds: 1800, note: notes[1], segments: []),
                WorkSession(id: 3, projectID: 3, start: 1_794_200_000, end: 1_794_200_000, unrecordedSeconds: 0, note: notes[2], segments: []),
                WorkSession(id: 4, projectID: 1, start: 1_794_989_400, end: nil, unrecordedSeconds: 600, note: notes[3],
                            segments: [Segment(start: 1_794_990_000, end: nil)]),
            ])
            XCTAssertEqual(tracker.reminderMinutes, 45)
            let status = try tracker.status()
            XCTAssertEqual(status.state, .running)
            XCTAssertEqual(status.project?.name, "Writing")
            XCTAssertEqual(status.categoryName, "Work")
            XCTAssertEqual(status.session?.activeSeconds(at: 1_795_000_000), 600 + 10_000)
            XCTAssertEqual(try tracker.resolveProject("ÉCRITURE").id, 3, "Unicode-aware lookup works on migrated names")

            // The original v\(version) file was archived byte for byte before it was opened.
            let archive = try XCTUnwrap(RawArchiver.list(folder + "/archives").last)
            XCTAssertEqual(try Files.read(folder + "/archives/\(archive)/time.sqlite"), original)
            // And the migrated state has its first snapshot.
            XCTAssertEqual(try SnapshotKeeper.state(at: XCTUnwrap(home.keeper?.entries.last?.path)), try DataState(store: tracker.store))

            // The history starts empty at the migration, and the first changes are undoable.
            XCTAssertEqual(try tracker.history(count: 100), [])
            try tracker.setNote(session: 2, note: "undone after migration")
            XCTAssertEqual(try tracker.undo(), "Changed the note of Reading on \(LocalTime.date(of: 1_794_100_000))")
            XCTAssertEqual(try tracker.session(id: 2).note, "")

            try tracker.setNote(session: 1, note: "written after migration")
            try tracker.addNote("added to the migrated open session")
        }
        let reopened = try DataHome(directory: folder, clock: Clock1795())
        XCTAssertEqual(reopened.status, .ok)
        XCTAssertEqual(try reopened.tracker.session(id: 1).note, "written after migration")
        XCTAssertEqual(try reopened.tracker.session(id: 4).note, version >= 3 ? "open\nadded to the migrated open session" : "added to the migrated open session")
        XCTAssertEqual(try reopened.tracker.history(count: 100).map(\.undone), [false, false], "the history survived the restart (the undone step went with the next change)")
    }

    func testVersion2StoreFromTheSQLite3CommandLineMigratesWithEveryRecord() throws {
        try verifyMigrated(version: 2)
    }

    func testVersion3StoreFromTheSQLite3CommandLineMigratesWithEveryRecord() throws {
        try verifyMigrated(version: 3)
    }

    func testVersion4StoreFromTheSQLite3CommandLineMigratesWithEveryRecord() throws {
        try verifyMigrated(version: 4)
    }
}
