import Glibc
import TestSupport
import XCTest
@testable import TimeCore

/// Devices of different versions on one folder (docs/sync.md, "Versions"): a third device's files
/// are written by the test as docs/sync.md describes them (TestSupport.DocSyncDevice), as a later
/// version of Time would write them.
final class SyncVersionsTests: SyncTestCase {
    private var root: String { SyncLayout(folder: folder).root }
    private let laptopID = SyncRecord.newID()

    override func tearDown() {
        SyncUnderstanding.hidden = []
        super.tearDown()
    }

    private func start(_ home: DataHome) throws -> SyncEngine {
        try SyncEngine(tracker: home.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
    }

    private func tablet(format: Int = 1) throws -> DocSyncDevice {
        try Files.makePrivateDirectory(folder)
        var tablet = try DocSyncDevice(root: root, format: format, clock: wall)
        try tablet.append(kind: "device", id: tablet.id, op: "create", fields: ["name": "tablet"])
        return tablet
    }

    private static let project = String(repeating: "a", count: 32), session = String(repeating: "b", count: 32)
    private static let category = String(repeating: "c", count: 32)

    private func projectFields(category: String = "") -> [String: Any] {
        ["name": "Consulting", "color": "#112233", "category": category, "archived": false]
    }

    private func sessionFields(_ device: String) -> [String: Any] {
        let start = utc(2026, 5, 30, 9)
        return ["project": SyncVersionsTests.project, "start": start, "end": start + 3600, "note": "after the newer ones",
                "segments": [[start, start + 3600]], "unrecorded": 0, "origin": device]
    }

    func testRecordsOfAnUnknownKindOrOperationAreSkippedAndTheDevicesLaterRecordsMerge() throws {
        var tablet = try tablet()
        try tablet.append(kind: "project", id: SyncVersionsTests.project, op: "create", fields: projectFields())
        try tablet.append(kind: "settings", id: "shared", op: "set", fields: ["theme": "dark"])
        try tablet.append(kind: "project", id: SyncVersionsTests.project, op: "move", fields: ["to": "elsewhere"])
        try tablet.append(kind: "project", id: SyncVersionsTests.project, op: "set", fields: ["color": "#445566", "mood": "fine"],
                          extra: ["note": "a key a newer version adds to every record"])
        try tablet.append(kind: "session", id: SyncVersionsTests.session, op: "create", fields: sessionFields(tablet.id))
        let home = try home("laptop")
        let engine = try start(home)
        XCTAssertEqual(engine.problems, [])
        let project = try XCTUnwrap(home.tracker.projects().first { $0.name == "Consulting" })
        XCTAssertEqual(project.color, "#445566", "a known record after the unknown ones, its unknown field ignored")
        XCTAssertEqual(try home.tracker.store.allSessions().map(\.note), ["after the newer ones"])
        XCTAssertEqual(engine.notUnderstood.map(\.name), ["tablet"])
        XCTAssertEqual(engine.notUnderstood.map(\.what), ["kind \"settings\""])
        XCTAssertEqual(engine.devices.first { $0.id == tablet.id }?.name, "tablet")
        // The folder is untouched: every line is still there.
        XCTAssertEqual(try String(contentsOfFile: root + "/" + tablet.id + "/changes-000001.jsonl", encoding: .utf8), tablet.lines.joined())
    }

    func testAWrongChecksumIsStillDamageAndTheDevicesLaterRecordsWait() throws {
        var tablet = try tablet()
        try tablet.append(kind: "project", id: SyncVersionsTests.project, op: "create", fields: projectFields())
        try tablet.append(kind: "settings", id: "shared", op: "set", fields: ["theme": "dark"], sum: "0")
        try tablet.append(kind: "session", id: SyncVersionsTests.session, op: "create", fields: sessionFields(tablet.id))
        let home = try home("laptop")
        let engine = try start(home)
        XCTAssertEqual(engine.problems.map(\.reason), ["checksum does not match"])
        XCTAssertEqual(try home.tracker.store.allSessions().count, 0, "nothing after the damaged line")
        XCTAssertEqual(home.tracker.projects().map(\.name), ["Consulting"])
        XCTAssertTrue(engine.notUnderstood.isEmpty)
    }

    /// A device file of a newer format: none of its records is merged (a newer format means that
    /// a field changed its meaning), and the device is named.
    func testADeviceFileOfANewerFormatIsNotMerged() throws {
        var tablet = try tablet(format: 99)
        try tablet.append(kind: "project", id: SyncVersionsTests.project, op: "create", fields: projectFields())
        let home = try home("laptop")
        let engine = try start(home)
        XCTAssertEqual(engine.problems, [])
        XCTAssertEqual(home.tracker.projects().count, 0)
        XCTAssertEqual(engine.notUnderstood.map(\.what), ["a device file of format 99"])
    }

    /// The version before one that adds a kind (a test switch hides `category`) skips its records;
    /// a restart of the same version still does, and merges the device's later records; the newer
    /// version merges what was skipped at its first start, from the kept state, without a rebuild.
    func testAnUpgradeMergesTheSkippedRecordsWithoutARebuild() throws {
        var tablet = try tablet()
        try tablet.append(kind: "category", id: SyncVersionsTests.category, op: "create", fields: ["name": "Billable"])
        try tablet.append(kind: "project", id: SyncVersionsTests.project, op: "create", fields: projectFields(category: SyncVersionsTests.category))
        SyncUnderstanding.hidden = ["category"]
        do {
            let home = try home("laptop")
            let engine = try start(home)
            XCTAssertEqual(home.tracker.categories().count, 0)
            XCTAssertNil(try XCTUnwrap(home.tracker.projects().first).categoryID)
            XCTAssertEqual(engine.notUnderstood.map(\.what), ["kind \"category\""])
            try engine.stop()
        }
        try tablet.append(kind: "session", id: SyncVersionsTests.session, op: "create", fields: sessionFields(tablet.id))
        do {  // a restart in between: the same version
            let home = try home("laptop")
            let engine = try start(home)
            XCTAssertEqual(engine.readAtStart, 1, "the kept state was taken: only the new record was read")
            XCTAssertEqual(try home.tracker.store.allSessions().count, 1, "a known record after the unknown one merges")
            XCTAssertEqual(home.tracker.categories().count, 0)
            XCTAssertEqual(engine.notUnderstood.map(\.name), ["tablet"])
            try engine.stop()
        }
        SyncUnderstanding.hidden = []
        do {
            let home = try home("laptop")
            let engine = try start(home)
            XCTAssertEqual(engine.readAtStart, 0, "no rebuild: nothing was read as new")
            XCTAssertEqual(home.tracker.categories().map(\.name), ["Billable"])
            let project = try XCTUnwrap(home.tracker.projects().first)
            XCTAssertEqual(home.tracker.categoryName(of: project), "Billable")
            XCTAssertTrue(engine.notUnderstood.isEmpty)
            XCTAssertEqual(try home.tracker.store.allSessions().count, 1)
            try engine.stop()
        }
        // And the next start has nothing left to read again.
        let again = try start(try self.home("laptop"))
        XCTAssertTrue(again.notUnderstood.isEmpty)
        XCTAssertEqual(again.mergedSinceStart, 0)
    }
}
