import Glibc
import XCTest
@testable import TimeCore

/// The focus phases travel with their session (the session record's `focus` field, docs/sync.md);
/// each device keeps its own focus settings and cycle.
final class SyncFocusTests: SyncTestCase {
    private func settle(_ a: SyncEngine, _ b: SyncEngine) throws {
        for _ in 0..<3 {
            try a.publish(wallMilliseconds: wall); try b.publish(wallMilliseconds: wall)
            try a.merge(wallMilliseconds: wall); try b.merge(wallMilliseconds: wall)
        }
    }

    func testCompletedFocusPhasesTravelWithTheirSessionAndSettingsStayOnTheirDevice() throws {
        let laptop = try home("laptop")
        let desktop = try home("desktop")
        try laptop.tracker.createProject(name: "Writing", color: "", category: "")
        let a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "laptop", wallMilliseconds: wall)
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop", wallMilliseconds: wall)
        try settle(a, b)

        let t0 = clock.time
        try laptop.tracker.setFocusMinutes(30)
        try laptop.tracker.startFocus("Writing")
        clock.advance(30 * 60)
        try laptop.tracker.advanceFocus()
        try laptop.tracker.skipPhase() // the break: the session pauses
        clock.advance(60)
        let session = try laptop.tracker.stop()
        try settle(a, b)

        let there = try XCTUnwrap(desktop.tracker.store.allSessions().first)
        XCTAssertEqual(there.globalID, try laptop.tracker.store.session(id: session)?.globalID)
        XCTAssertEqual(there.focus, [FocusSpan(start: t0, end: t0 + 30 * 60)], "the phase came with its session")
        XCTAssertEqual(there.segments, [Segment(start: t0, end: t0 + 30 * 60)])
        XCTAssertEqual(desktop.tracker.focusSettings, FocusSettings(), "the laptop's settings stayed on the laptop")
        XCTAssertEqual(desktop.tracker.focusState, FocusState())
        let week = try desktop.tracker.weeklyReport(week: "")
        XCTAssertEqual(week.focusDays.reduce(0, +), 1, "the desktop's reports count it")

        // An edit of the session on the desktop travels back and keeps its phases.
        try desktop.tracker.setNote(session: there.id, note: "synced")
        try settle(a, b)
        XCTAssertEqual(try laptop.tracker.store.session(id: session)?.focus, [FocusSpan(start: t0, end: t0 + 30 * 60)])
        XCTAssertEqual(try laptop.tracker.store.session(id: session)?.note, "synced")
    }
}
