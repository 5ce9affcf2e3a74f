import XCTest
@testable import TimeCore

/// Schema v15 moves the snapshot a commit goes with out of `meta` into `snapshot_mark`
/// (Store+SnapshotMark.swift). A v14 store keeps its mark through the migration, and one that
/// lost its last commits is still rolled forward by it.
final class SnapshotMarkMigrationTests: XCTestCase {
    private var folder: Folder!
    private var clock: SafetyClock!

    override func setUp() {
        folder = Folder()
        clock = SafetyClock()
        clock.time = utc(2026, 11, 28, 9)
    }

    override func tearDown() { folder.remove() }

    /// Writes the store back as v14 held it: the mark as two `meta` rows, no table.
    private func makeVersion14(state: String, sequence: Int) throws {
        let database = try SQLiteDatabase(path: folder.path + "/time.sqlite", mode: .readWrite)
        try database.execute("""
            DROP TABLE snapshot_mark;
            INSERT INTO meta(key, value) VALUES('snapshot_state', '\(state)'), ('snapshot_sequence', '\(sequence)');
            PRAGMA user_version = 14;
            PRAGMA wal_checkpoint(TRUNCATE);
            """)
    }

    private func metaKeys(_ store: Store) throws -> [String] {
        try store.database.query("SELECT key FROM meta WHERE key LIKE 'snapshot%' ORDER BY key") { $0.string(0) }
    }

    func testAVersion14MarkMovesIntoItsTable() throws {
        let mark: SnapshotMark, state: DataState
        do {
            let home = try DataHome(directory: folder.path, clock: clock)
            try home.tracker.createProject(name: "Writing", color: "", category: "")
            clock.time += 60
            try home.tracker.startProject("Writing")
            mark = try home.tracker.store.snapshotMark()
            state = try DataState(store: home.tracker.store)
            XCTAssertEqual(mark.state, home.keeper?.entries.last?.stateHash)
            XCTAssertEqual(mark.sequence, home.keeper?.entries.last?.sequence)
        }
        try makeVersion14(state: try XCTUnwrap(mark.state), sequence: try XCTUnwrap(mark.sequence))
        let home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
        XCTAssertEqual(try home.tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
        XCTAssertEqual(try home.tracker.store.snapshotMark(), mark)
        XCTAssertEqual(try metaKeys(home.tracker.store), [], "the rows left meta")
        XCTAssertEqual(try DataState(store: home.tracker.store), state)
        clock.time += 60
        try home.tracker.pause()
        XCTAssertEqual(try home.tracker.store.snapshotMark().sequence, mark.sequence! + 1)
    }

    /// The power cut took the last commit of a v14 store: the migrated mark names the snapshot
    /// before, so the start rolls forward to the newest, as it did at v14.
    func testAVersion14StoreThatLostItsLastCommitIsRolledForward() throws {
        let before: SnapshotMark, newest: DataState
        do {
            let home = try DataHome(directory: folder.path, clock: clock)
            try home.tracker.createProject(name: "Writing", color: "", category: "")
            before = try home.tracker.store.snapshotMark()
            clock.time += 60
            try home.tracker.startProject("Writing")
            newest = try DataState(store: home.tracker.store)
            // What a lost commit leaves: the session gone, the mark of the change before.
            try home.tracker.store.database.execute("DELETE FROM segments; DELETE FROM sessions;")
        }
        try makeVersion14(state: try XCTUnwrap(before.state), sequence: try XCTUnwrap(before.sequence))
        let home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(try DataState(store: home.tracker.store), newest, "rolled forward from the newest snapshot")
        XCTAssertEqual(try metaKeys(home.tracker.store), [])
        XCTAssertEqual(try home.tracker.store.snapshotMark().sequence, before.sequence! + 1)
    }

    /// A store written by a later change names its mark once, in the table only.
    func testAChangeWritesTheMarkOutsideMeta() throws {
        let home = try DataHome(directory: folder.path, clock: clock)
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        XCTAssertEqual(try metaKeys(home.tracker.store), [])
        XCTAssertEqual(try home.tracker.store.database.queryFirst("SELECT count(*) FROM snapshot_mark") { $0.int(0) }, 1)
        XCTAssertEqual(try home.tracker.store.snapshotMark().state, home.keeper?.entries.last?.stateHash)
    }
}
