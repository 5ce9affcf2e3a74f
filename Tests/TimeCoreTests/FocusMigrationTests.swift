import Foundation
import XCTest
@testable import TimeCore

/// Store schema v13 and snapshot payload v11 (the focus timer) against a real v12 data folder: its
/// store dumped by the sqlite3 command line (Tests/Fixtures/store-v12.sql) and the newest snapshot
/// the v12 agent wrote beside it (Tests/Fixtures/data-v12). Run by scripts/test-schema-migration.sh.
final class FocusMigrationTests: OldDataFolderTestCase {
    private final class FixedClock: Clock {
        var time: Int64 = 1_796_500_000
        func now() -> Int64 { time }
    }

    private func fixture(_ name: String) -> String { OldDataFolder.fixture(name) }

    private func writeStore() throws { try OldDataFolder(path: folder).writeStore(from: "store-v12.sql", version: 12) }

    private func copySnapshots() throws { try OldDataFolder(path: folder).copySnapshots(from: "data-v12") }

    /// The v12 folder's records, as the v12 agent wrote them (timectl add, timectl start).
    private func assertTheV12Records(_ tracker: Tracker, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(tracker.projects().map(\.name), ["Writing", "Reading"], file: file, line: line)
        XCTAssertEqual(try tracker.store.allSessions(), [
            WorkSession(id: 1, projectID: 1, start: 1_793_606_400, end: 1_793_611_800, unrecordedSeconds: 0, note: "drafted #intro",
                        segments: [Segment(start: 1_793_606_400, end: 1_793_611_800)]),
            WorkSession(id: 2, projectID: 2, start: 1_793_710_800, end: 1_793_713_500, unrecordedSeconds: 0, note: "paper #ml",
                        segments: [Segment(start: 1_793_710_800, end: 1_793_713_500)]),
            WorkSession(id: 3, projectID: 1, start: 1_796_494_798, end: nil, unrecordedSeconds: 0, note: "",
                        segments: [Segment(start: 1_796_494_798, end: nil)]),
        ], "no focus phases", file: file, line: line)
        XCTAssertEqual(tracker.reminderMinutes, 45, file: file, line: line)
        XCTAssertEqual(tracker.focusSettings, FocusSettings(), file: file, line: line)
        XCTAssertEqual(tracker.focusState, FocusState(), file: file, line: line)
    }

    func testAVersion12StoreMovesForwardAndRunsAFocusCycle() throws {
        try writeStore()
        try copySnapshots()
        let clock = FixedClock()
        do {
            let home = try DataHome(directory: folder, clock: clock)
            XCTAssertEqual(home.status, .ok, home.status.message)
            XCTAssertEqual(try home.tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
            XCTAssertEqual(try home.tracker.store.database.query("PRAGMA foreign_key_check") { $0.string(0) }, [])
            try assertTheV12Records(home.tracker)
            // A row written before v13 is edited and the edit undone like any other.
            try home.tracker.setNote(session: 1, note: "after v13")
            XCTAssertEqual(try home.tracker.undo(), "Changed the note of Writing on \(LocalTime.date(of: 1_793_606_400))")
            XCTAssertEqual(try home.tracker.session(id: 1).note, "drafted #intro")
            try home.tracker.setBreakMinutes(10)
            XCTAssertEqual(try home.tracker.startFocus(""), 3, "the open session goes on")
            clock.time += 25 * 60
            XCTAssertEqual(try home.tracker.advanceFocus(), [.focus])
            let newest = try XCTUnwrap(home.keeper?.entries.last?.path)
            let text = String(decoding: try Files.read(newest), as: UTF8.self)
            XCTAssertTrue(text.contains("\"schemaVersion\":\(SnapshotFormat.currentVersion)"))
            XCTAssertTrue(text.contains("\"focus\":[[1796500000,1796501500]]"), text)
            let state = try SnapshotKeeper.state(at: newest)
            XCTAssertEqual(state, try DataState(store: home.tracker.store), "the snapshot holds the cycle and the phase")
        }
        let reopened = try DataHome(directory: folder, clock: clock)
        XCTAssertEqual(reopened.status, .ok)
        XCTAssertEqual(reopened.tracker.focusSettings.breakMinutes, 10)
        XCTAssertEqual(reopened.tracker.focusState.phase, .waiting)
        XCTAssertEqual(reopened.tracker.currentSession?.focus, [FocusSpan(start: 1_796_500_000, end: 1_796_501_500)])
    }

    /// The store is gone: the v12 folder's snapshot (payload v10) is restored into a current store
    /// with no focus phases and the default settings; a focus cycle's snapshot restores the same cycle.
    func testAVersion10SnapshotIsRestoredAndAFocusSnapshotRoundTrips() throws {
        try copySnapshots()
        let clock = FixedClock()
        do {
            let home = try DataHome(directory: folder, clock: clock)
            XCTAssertEqual(home.status.state, .restored, home.status.message)
            try assertTheV12Records(home.tracker)
            try home.tracker.setFocusAutoStart(true)
            try home.tracker.startFocus("Reading")
            clock.time += 25 * 60
            try home.tracker.advanceFocus()
        }
        let expected = try DataState(store: Store(path: folder + "/time.sqlite", create: false))
        XCTAssertEqual(expected.focus.state.phase, .shortBreak)
        // The store is lost: the newest snapshot brings back the same cycle, the same end.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: folder + "/time.sqlite" + suffix) }
        let restored = try DataHome(directory: folder, clock: clock)
        XCTAssertEqual(restored.status.state, .restored, restored.status.message)
        XCTAssertEqual(try DataState(store: restored.tracker.store), expected)
        XCTAssertEqual(restored.tracker.focusState.ends, 1_796_500_000 + 30 * 60)
    }

    func testAVersion10PayloadMigratesToNoFocus() throws {
        let name = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: fixture("data-v12/snapshots")).first { $0.hasPrefix("state-") })
        let header = try SnapshotFormat.read(Files.read(fixture("data-v12/snapshots/\(name)")))
        XCTAssertEqual(header.version, 10)
        let payload = try SnapshotFormat.migrate(header.payload, from: header.version)
        let state = try SnapshotFormat.state(from: payload) { hash in try Files.read(self.fixture("data-v12/snapshots/chunk-\(hash).json")) }
        XCTAssertEqual(state.focus, FocusData())
        XCTAssertEqual(state.sessions.map(\.focus), [[], [], []])
    }

    /// A snapshot's focus data that this code could not have written is refused as malformed.
    func testABadFocusObjectIsMalformed() throws {
        XCTAssertThrowsError(try SnapshotFormat.decodeFocusData(try JSON.parse("{\"focusMinutes\":0}")))
        XCTAssertThrowsError(try SnapshotFormat.decodeFocusSpans(try JSON.parse("[[5,4]]")))
        var data = FocusData()
        data.settings.longBreakEvery = 0
        data.state.phase = .focus
        data.state.pausedLeft = 60
        XCTAssertEqual(try SnapshotFormat.decodeFocusData(JSON.parse(SnapshotFormat.focusDataJSON(data))), data)
    }
}
