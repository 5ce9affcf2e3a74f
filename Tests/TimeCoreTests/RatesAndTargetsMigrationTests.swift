import Foundation
import XCTest
@testable import TimeCore

/// Store schema v11 and snapshot payload v10 (rates and targets) against a real v9 data folder: its store dumped by
/// the sqlite3 command line (Tests/Fixtures/store-v9.sql) and the snapshots the v9 agent wrote
/// beside it (Tests/Fixtures/data-v9). Run by scripts/test-schema-migration.sh.
final class RatesAndTargetsMigrationTests: OldDataFolderTestCase {
    private final class Clock1797: Clock { func now() -> Int64 { 1_797_000_000 } }

    private func fixture(_ name: String) -> String { OldDataFolder.fixture(name) }

    private func writeStore() throws { try OldDataFolder(path: folder).writeStore(from: "store-v9.sql", version: 9) }

    private func copySnapshots() throws { try OldDataFolder(path: folder).copySnapshots(from: "data-v9") }

    /// The v9 folder's records, as the v9 agent wrote them.
    private func assertTheV9Records(_ tracker: Tracker, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(tracker.categories(), [Category(id: 1, name: "Work")], file: file, line: line)
        XCTAssertEqual(tracker.projects(), [
            Project(id: 1, name: "Writing", color: "#3366cc", categoryID: 1, archived: false),
            Project(id: 2, name: "Reading", color: "#dc3912", categoryID: nil, archived: false),
        ], "no rates, no targets", file: file, line: line)
        XCTAssertEqual(tracker.projects().map(\.globalID), ["faf30fd585718c5fd62d0f356a8bf14b", "7ca839944c84a3a00a469ee26af3af2d"], file: file, line: line)
        XCTAssertEqual(try tracker.store.allSessions(), [
            WorkSession(id: 1, projectID: 1, start: 1_793_606_400, end: 1_793_611_800, unrecordedSeconds: 0, note: "drafted #intro",
                        segments: [Segment(start: 1_793_606_400, end: 1_793_611_800)]),
            WorkSession(id: 2, projectID: 2, start: 1_793_710_800, end: 1_793_713_500, unrecordedSeconds: 0, note: "paper #ml #intro",
                        segments: [Segment(start: 1_793_710_800, end: 1_793_713_500)]),
            WorkSession(id: 3, projectID: 1, start: 1_796_156_997, end: nil, unrecordedSeconds: 0, note: "",
                        segments: [Segment(start: 1_796_156_997, end: nil)]),
        ], file: file, line: line)
        XCTAssertEqual(tracker.reminderMinutes, 45, file: file, line: line)
        XCTAssertEqual(tracker.planSettings, PlanSettings(), file: file, line: line)
    }

    func testAVersion9StoreMovesForwardAndTakesRatesAndTargets() throws {
        try writeStore()
        try copySnapshots()
        do {
            let home = try DataHome(directory: folder, clock: Clock1797())
            XCTAssertEqual(home.status, .ok, home.status.message)
            XCTAssertEqual(try home.tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
            XCTAssertEqual(try home.tracker.store.database.query("PRAGMA foreign_key_check") { $0.string(0) }, [])
            try assertTheV9Records(home.tracker)
            // Reports read the migrated store: tags from the notes, the running session up to now.
            let report = try home.tracker.rangeReport(range: "2026-11", options: try ReportOptions(
                format: "json", group: "tag", columns: nil, project: nil, tag: nil, round: nil, roundMode: nil, decimal: nil))
            XCTAssertEqual(report.groups.map(\.key), ["intro", "ml"])
            XCTAssertEqual(report.groups.map(\.total), [5400 + 2700, 2700])
            XCTAssertEqual(report.total, 8100, "each session once")

            try home.tracker.updateProject(id: 1, changes: ProjectChanges(rate: "85.50", weeklyTarget: 72000))
            try home.tracker.setCurrency("EUR")
            try home.tracker.setWeeklyTarget(144_000)
            XCTAssertEqual(try home.tracker.undo(), "Set the weekly target to 40:00")
            try home.tracker.setUntrackedReminderMinutes(30)
            let newest = try XCTUnwrap(home.keeper?.entries.last?.path)
            XCTAssertTrue(String(decoding: try Files.read(newest), as: UTF8.self).contains("\"schemaVersion\":\(SnapshotFormat.currentVersion)"))
        }
        let reopened = try DataHome(directory: folder, clock: Clock1797())
        XCTAssertEqual(reopened.status, .ok)
        XCTAssertEqual(reopened.tracker.project(id: 1)?.rateCents, 8550)
        XCTAssertEqual(reopened.tracker.project(id: 1)?.weeklyTarget, 72000)
        XCTAssertEqual(reopened.tracker.planSettings, PlanSettings(currency: "EUR", weeklyTarget: 0, untrackedReminderMinutes: 30))
    }

    /// The store is gone: the v9 snapshot (payload v9, chunks in a tree) is restored into a current
    /// store, record by record, with no rates, targets or currency.
    func testAVersion9SnapshotIsRestoredIntoACurrentStore() throws {
        try copySnapshots()
        let home = try DataHome(directory: folder, clock: Clock1797())
        XCTAssertEqual(home.status.state, .restored, home.status.message)
        XCTAssertEqual(try home.tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
        try assertTheV9Records(home.tracker)
        try home.tracker.updateProject(id: 2, changes: ProjectChanges(rate: "0.01"))
        let state = try SnapshotKeeper.state(at: XCTUnwrap(home.keeper?.entries.last?.path))
        XCTAssertEqual(state.projects.first { $0.id == 2 }?.rateCents, 1)
        XCTAssertEqual(state, try DataState(store: home.tracker.store))
    }

    /// A v9 payload has no plan keys: migrated, it reads as no rates, no targets, no currency.
    func testAVersion9PayloadMigratesToNoPlans() throws {
        let bytes = try Files.read(fixture("data-v9/snapshots/state-0000000008-37a4a56caa0ab3649be0f9ff8184f4f501c898e6697e71b76faff63bb57e6647.json"))
        let header = try SnapshotFormat.read(bytes)
        XCTAssertEqual(header.version, 9)
        let payload = try SnapshotFormat.migrate(header.payload, from: header.version)
        let state = try SnapshotFormat.state(from: payload) { hash in
            try Files.read(self.fixture("data-v9/snapshots/chunk-\(hash).json"))
        }
        XCTAssertEqual(state.plans, PlanSettings())
        XCTAssertEqual(state.projects.map(\.rateCents), [nil, nil])
        XCTAssertEqual(state.projects.map(\.weeklyTarget), [0, 0])
        XCTAssertEqual(state.sessions.count, 3)
    }
}
