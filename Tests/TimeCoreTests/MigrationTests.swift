import Foundation
import XCTest
@testable import TimeCore

/// The legacy schemas, written out here as older versions of Time wrote them, so the test does
/// not depend on the code it checks.
enum LegacyStore {
    static let v2 = """
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE categories(
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            name_key TEXT NOT NULL UNIQUE);
        CREATE TABLE projects(
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            name_key TEXT NOT NULL UNIQUE,
            color TEXT NOT NULL,
            category_id INTEGER REFERENCES categories(id) ON DELETE SET NULL,
            archived INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE sessions(
            id INTEGER PRIMARY KEY,
            project_id INTEGER NOT NULL REFERENCES projects(id),
            start INTEGER NOT NULL,
            end INTEGER,
            active_seconds INTEGER NOT NULL DEFAULT 0,
            running_since INTEGER);
        CREATE INDEX sessions_by_start ON sessions(start);

        """
    static let v3 = """
        ALTER TABLE sessions ADD COLUMN note TEXT NOT NULL DEFAULT '';

        """

    /// Writes a database with raw SQL and closes it.
    static func write(at path: String, _ sql: String) throws {
        let database = try SQLiteDatabase(path: path, mode: .readWriteCreate)
        try database.execute(sql)
    }

    static let records = """
        INSERT INTO categories(id, name, name_key) VALUES (1, 'Work', 'work'), (2, 'Home', 'home');
        INSERT INTO projects(id, name, name_key, color, category_id, archived) VALUES
            (1, 'Writing', 'writing', '#3366cc', 1, 0),
            (2, 'Garden', 'garden', '#109618', 2, 1),
            (3, 'Misc', 'misc', '#dc3912', NULL, 0),
            (4, 'Écriture', 'écriture', '#ff9900', 1, 0);

        """
}

final class MigrationTests: XCTestCase {
    var directory: String!
    var path: String { directory + "/time.sqlite" }
    let now = utc(2026, 6, 1, 8)
    let s1 = utc(2026, 5, 4, 7), s2 = utc(2026, 5, 5, 7), s3 = utc(2026, 6, 1, 6)

    override func setUpWithError() throws {
        directory = try makeTemporaryDirectory()
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
    }

    func open() throws -> Tracker {
        try Tracker(store: Store(path: path, create: false), clock: TestClock(now))
    }

    func sessionColumns(_ tracker: Tracker) throws -> [String] {
        try tracker.store.database.query("PRAGMA table_info(sessions)") { $0.string(1) }
    }

    let expectedProjects = [
        Project(id: 1, name: "Writing", color: "#3366cc", categoryID: 1, archived: false),
        Project(id: 2, name: "Garden", color: "#109618", categoryID: 2, archived: true),
        Project(id: 3, name: "Misc", color: "#dc3912", categoryID: nil, archived: false),
        Project(id: 4, name: "Écriture", color: "#ff9900", categoryID: 1, archived: false),
    ]

    func testVersion2StoreWithARunningSession() throws {
        try LegacyStore.write(at: path, LegacyStore.v2 + LegacyStore.records + """
            INSERT INTO sessions(id, project_id, start, end, active_seconds, running_since) VALUES
                (1, 1, \(s1), \(s1 + 7200), 5400, NULL),
                (2, 2, \(s2), \(s2 + 600), 0, NULL),
                (3, 3, \(s3), NULL, 600, \(s3 + 1000));
            INSERT INTO meta(key, value) VALUES ('reminder_minutes', '45');
            PRAGMA user_version = 2;
            """)
        var tracker = try open()
        XCTAssertEqual(try tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
        XCTAssertEqual(try sessionColumns(tracker), ["id", "project_id", "start", "end", "unrecorded_seconds", "note", "import_key", "gid", "focus"])
        XCTAssertEqual(tracker.projects(), expectedProjects)
        XCTAssertEqual(tracker.categories(), [Category(id: 2, name: "Home"), Category(id: 1, name: "Work")])
        XCTAssertEqual(tracker.reminderMinutes, 45)
        let expected = [
            WorkSession(id: 1, projectID: 1, start: s1, end: s1 + 7200, unrecordedSeconds: 5400, note: "", segments: []),
            WorkSession(id: 2, projectID: 2, start: s2, end: s2 + 600, unrecordedSeconds: 0, note: "", segments: []),
            WorkSession(id: 3, projectID: 3, start: s3, end: nil, unrecordedSeconds: 600, note: "",
                        segments: [Segment(start: s3 + 1000, end: nil)]),
        ]
        XCTAssertEqual(try tracker.store.allSessions(), expected)

        // Still running, with the legacy total before its running segment.
        let status = try tracker.status()
        XCTAssertEqual(status.state, .running)
        XCTAssertEqual(status.session?.id, 3)
        XCTAssertEqual(status.project?.name, "Misc")
        XCTAssertEqual(status.settledSeconds, 600)
        XCTAssertEqual(status.runningSince, s3 + 1000)
        XCTAssertEqual(status.session?.activeSeconds(at: now), 600 + (now - s3 - 1000))
        XCTAssertEqual(status.lastProjectName, "Misc")

        // Opening again changes nothing.
        tracker = try open()
        XCTAssertEqual(try tracker.store.allSessions(), expected)
        XCTAssertEqual(tracker.projects(), expectedProjects)

        // Relationships hold: lookups, uniqueness, the category foreign key, the next ids.
        XCTAssertEqual(try tracker.resolveProject("ÉCRITURE").id, 4)
        assertTrackerError("AlreadyExists", try tracker.createProject(name: "writing", color: "", category: ""))
        assertTrackerError("AlreadyExists", try tracker.addCategory("HOME"))
        XCTAssertEqual(try tracker.sessions(project: 1, from: 0, to: now).map(\.id), [1])
        XCTAssertEqual(try tracker.sessions(project: 0, from: s3, to: now).map(\.id), [3])
        try tracker.deleteCategory("Work")
        XCTAssertNil(tracker.project(id: 1)?.categoryID)
        XCTAssertNil(tracker.project(id: 4)?.categoryID)
        XCTAssertEqual(tracker.project(id: 2)?.categoryID, 2)

        XCTAssertEqual(try tracker.stop(), 3)
        let done = try tracker.session(id: 3)
        XCTAssertEqual(done.end, now)
        XCTAssertEqual(done.segments, [Segment(start: s3 + 1000, end: now)])
        XCTAssertEqual(done.activeSeconds(at: .max), 600 + now - s3 - 1000)
        XCTAssertEqual(try tracker.startProject("Writing"), 4)
        XCTAssertEqual(try tracker.createProject(name: "New", color: "", category: ""), 5)
    }

    func testVersion3StoreWithNotesAndAPausedSession() throws {
        try LegacyStore.write(at: path, LegacyStore.v2 + LegacyStore.v3 + LegacyStore.records + """
            INSERT INTO sessions(id, project_id, start, end, active_seconds, running_since, note) VALUES
                (1, 1, \(s1), \(s1 + 7200), 5400, NULL, 'line one
            line two'),
                (2, 4, \(s2), \(s2 + 600), 0, NULL, 'Écriture ✓ 😀'),
                (3, 1, \(s3), NULL, 900, NULL, 'open');
            PRAGMA user_version = 3;
            """)
        let tracker = try open()
        XCTAssertEqual(try tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
        XCTAssertEqual(tracker.projects(), expectedProjects)
        XCTAssertEqual(try tracker.store.allSessions(), [
            WorkSession(id: 1, projectID: 1, start: s1, end: s1 + 7200, unrecordedSeconds: 5400, note: "line one\nline two", segments: []),
            WorkSession(id: 2, projectID: 4, start: s2, end: s2 + 600, unrecordedSeconds: 0, note: "Écriture ✓ 😀", segments: []),
            WorkSession(id: 3, projectID: 1, start: s3, end: nil, unrecordedSeconds: 900, note: "open", segments: []),
        ])
        var status = try tracker.status()
        XCTAssertEqual(status.state, .paused)
        XCTAssertEqual(status.settledSeconds, 900)
        XCTAssertEqual(status.runningSince, 0)
        XCTAssertEqual(status.session?.note, "open")
        XCTAssertEqual(status.categoryName, "Work")

        try tracker.resume()
        try tracker.addNote("resumed")
        status = try tracker.status()
        XCTAssertEqual(status.state, .running)
        XCTAssertEqual(status.session?.segments, [Segment(start: now, end: nil)])
        XCTAssertEqual(status.session?.note, "open\nresumed")
        // The legacy session keeps its total when only its note changes.
        try tracker.setNote(session: 1, note: "edited")
        XCTAssertEqual(try tracker.session(id: 1).unrecordedSeconds, 5400)
        XCTAssertEqual(try tracker.session(id: 1).segments, [])
    }

    func testEmptyStoreIsCreatedAtTheCurrentVersion() throws {
        let tracker = try Tracker(store: Store(path: path, create: true), clock: TestClock(now))
        XCTAssertEqual(try tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
        XCTAssertEqual(try sessionColumns(tracker), ["id", "project_id", "start", "end", "unrecorded_seconds", "note", "import_key", "gid", "focus"])
        XCTAssertEqual(try tracker.status().state, .idle)
    }

    func directoryListing() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    }

    func assertRefused(_ expected: StoreOpenError?, create: Bool = false, file: StaticString = #filePath, line: UInt = #line) throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let listing = try directoryListing()
        XCTAssertThrowsError(try Store(path: path, create: create), file: file, line: line) { error in
            guard let error = error as? StoreOpenError else { return XCTFail("\(error)", file: file, line: line) }
            if let expected { XCTAssertEqual(error, expected, file: file, line: line) }
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), bytes, "the file is unchanged", file: file, line: line)
        XCTAssertEqual(try directoryListing(), listing, "no file was added", file: file, line: line)
    }

    func testNewerStoreIsNeverTouched() throws {
        try LegacyStore.write(at: path, """
            CREATE TABLE future(x);
            INSERT INTO future VALUES (1);
            PRAGMA user_version = 99;
            """)
        try assertRefused(.newerSchema(99))
        try assertRefused(.newerSchema(99), create: true)
    }

    func testUnknownStoresAreNeverTouched() throws {
        try LegacyStore.write(at: path, "CREATE TABLE other(x); PRAGMA user_version = 1;")
        try assertRefused(.unknownSchema(1))
        try FileManager.default.removeItem(atPath: path)
        try LegacyStore.write(at: path, "CREATE TABLE other(x);")
        try assertRefused(.unknownSchema(0))
        try FileManager.default.removeItem(atPath: path)
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: path))
        try assertRefused(nil)
    }

    func testMissingStoreIsNotCreatedWithoutCreate() throws {
        XCTAssertThrowsError(try Store(path: path, create: false)) { error in
            guard case .unreadable = error as? StoreOpenError else { return XCTFail("\(error)") }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
    }
}
