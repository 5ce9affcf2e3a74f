import Glibc
import XCTest
@testable import TimeCore

/// Schema and payload v8: every category, project and session has a global id, in the store
/// and in snapshots; a real v7 store and a v7 snapshot move forward and get them.
final class SyncSchemaTests: XCTestCase {
    private var directory: String!

    override func setUpWithError() throws { directory = try makeTemporaryDirectory() }
    override func tearDown() { Files.remove(directory) }

    private func isGlobalID(_ text: String) -> Bool { SyncLayout.isDeviceID(text) }

    func testAVersion7StoreGetsAGlobalIdOnEveryRecord() throws {
        let path = directory + "/time.sqlite"
        do {
            let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
            try Schema.migrate(database, upTo: 7)
            try database.execute("""
                INSERT INTO categories(id, name, name_key) VALUES (1, 'Work', 'work');
                INSERT INTO projects(id, name, name_key, color, category_id, archived) VALUES
                    (1, 'Writing', 'writing', '#3366cc', 1, 0), (2, 'Garden', 'garden', '#109618', NULL, 1);
                INSERT INTO sessions(id, project_id, start, end, unrecorded_seconds, note) VALUES
                    (1, 1, 1000, 2000, 0, 'a'), (2, 2, 3000, NULL, 0, 'b');
                INSERT INTO segments(session_id, start, end) VALUES (1, 1000, 2000), (2, 3000, NULL);
                """)
            XCTAssertEqual(try database.integerPragma("user_version"), 7)
        }
        let tracker = try Tracker(store: Store(path: path, create: false), clock: TestClock(5000))
        XCTAssertEqual(try tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
        let ids = tracker.categories().map(\.globalID) + tracker.projects().map(\.globalID)
            + (try tracker.store.allSessions()).map(\.globalID)
        XCTAssertEqual(ids.count, 5)
        XCTAssertTrue(ids.allSatisfy(isGlobalID), "\(ids)")
        XCTAssertEqual(Set(ids).count, 5, "global ids are unique")
        XCTAssertEqual(try tracker.session(id: 1).note, "a", "the records themselves are unchanged")
        // New records get one too, and the sync tables exist, outside the undo history.
        try tracker.createProject(name: "Reading", color: "", category: "")
        XCTAssertTrue(isGlobalID(try XCTUnwrap(tracker.projects().last).globalID))
        let tables = try tracker.store.database.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'sync_%' ORDER BY name") { $0.string(0) }
        XCTAssertEqual(tables, ["sync_dirty"], "v12 keeps the merged state in a file of its own (SyncReplicaStore)")
        XCTAssertTrue(SyncStore.tables.isSubset(of: UndoHistory.untrackedTables))
    }

    func testGlobalIdsGoThroughASnapshotAndAV7SnapshotGetsNewOnes() throws {
        let store = try Store(path: directory + "/a.sqlite", create: true)
        let tracker = try Tracker(store: store, clock: TestClock(5000))
        try tracker.addCategory("Work")
        try tracker.createProject(name: "Writing", color: "", category: "Work")
        _ = try tracker.addSession(project: 1, start: 1000, duration: "1h", note: "n")
        let state = try DataState(store: store)
        let payload = SnapshotFormat.payload(categories: state.categories, projects: state.projects, reminderMinutes: 60,
                                             openSession: nil, chunkList: "[]", todaysSessions: SnapshotFormat.sessionList(state.sessions),
                                             away: SnapshotFormat.awayJSON(AwayState()))
        let parsed = try JSON.parse(payload)
        let decoded = try SnapshotFormat.state(from: parsed) { _ in [] }
        XCTAssertEqual(decoded.sessions.map(\.globalID), state.sessions.map(\.globalID))
        XCTAssertEqual(decoded.projects.map(\.globalID), state.projects.map(\.globalID))
        XCTAssertEqual(decoded.categories.map(\.globalID), state.categories.map(\.globalID))
        XCTAssertTrue(payload.contains("\"gid\":\"\(state.sessions[0].globalID)\""))

        // A v7 payload has no gid: restoring it gives every record a new, valid one.
        let v7 = payload.replacingGlobalIDs()
        XCTAssertFalse(v7.contains("gid"))
        let old = try SnapshotFormat.state(from: try SnapshotFormat.migrate(try JSON.parse(v7), from: 7)) { _ in [] }
        let fresh = try Store(path: directory + "/b.sqlite", create: true)
        try SnapshotKeeper.restore(old, into: fresh, stateHash: nil)
        let restored = try DataState(store: fresh)
        XCTAssertEqual(restored.sessions.count, 1)
        XCTAssertTrue((restored.sessions.map(\.globalID) + restored.projects.map(\.globalID)).allSatisfy(isGlobalID))
    }
}

private extension String {
    /// The payload as v7 wrote it: without any `"gid":"…",`.
    func replacingGlobalIDs() -> String {
        var out = ""
        var rest = Substring(self)
        while let range = rest.range(of: "\"gid\":\"") {
            out += rest[..<range.lowerBound]
            rest = rest[range.upperBound...]
            if let end = rest.firstIndex(of: "\"") { rest = rest[rest.index(after: end)...] }
            if rest.first == "," { rest = rest.dropFirst() }
        }
        return out + rest
    }
}
