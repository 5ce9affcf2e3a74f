import XCTest
@testable import TimeCore

/// The snapshot keeper reads a payload part again only when the store's write counts say a table
/// (or a `meta` row) it comes from was written (PayloadParts). After every kind of write, the
/// newest snapshot must be the store's state, and its bytes those of a payload read whole.
final class PayloadPartsTests: KeeperTestCase {
    func testEveryKindOfWriteReachesTheNextSnapshotAsAWholeReadWouldWriteIt() throws {
        func check(_ what: String) throws {
            let kept = try XCTUnwrap(keeper.entries.last)
            XCTAssertEqual(try keeper.state(of: kept).differences(from: DataState(store: tracker.store)), [], what)
            // The oracle: the same state recorded again with every part read from the store anew
            // names the same bytes (a kept part that missed a write would not).
            keeper.payloadParts = nil
            try tracker.recordCurrentState()
            XCTAssertEqual(keeper.entries.last?.stateHash, kept.stateHash, what)
        }
        let project = try tracker.createProject(name: "Writing", color: "", category: "")
        try check("a project created")
        clock.time += 60
        try tracker.startProject("Writing")
        try check("started")
        clock.time += 60
        try tracker.pause()
        try check("paused")
        try tracker.addCategory("Work")
        try check("a category added")
        try tracker.updateProject(id: project, changes: ProjectChanges(name: "Reading", category: "Work"))
        try check("the project renamed and put in the category")
        try tracker.setReminderMinutes(30)
        try check("the reminder")
        try tracker.setCurrency("EUR")
        try check("the currency")
        try tracker.setWeeklyTarget(3600)
        try check("the weekly target")
        try tracker.setUntrackedReminderMinutes(15)
        try check("the not-tracking reminder")
        try tracker.setAwayMinutes(7)
        try check("the away minutes")
        try tracker.setFocusMinutes(20)
        try check("the focus minutes")
        try tracker.setFocusAutoStart(true)
        try check("the focus auto-start")
        clock.time += 60
        try tracker.resume()
        try check("resumed")
        clock.time += 600
        _ = try tracker.markAway(reason: .manual, at: clock.time - 300)
        try check("marked away")
        _ = try tracker.undo()
        try check("the away mark undone (a changeset applied)")
        try tracker.setReminderMinutes(45)
        _ = try tracker.undo()
        try check("a setting undone (a meta row put back by a changeset)")
        _ = try tracker.redo()
        try check("and redone")
        clock.time += 60
        try tracker.stop()
        try check("stopped")
    }

    /// The settings and focus parts are read again after any `meta` row a part might read was
    /// written, a key no version knows yet included; the rows every change writes (the snapshot's
    /// own, the id counters) do not make a timer change read them.
    func testAnyMetaKeyButTheSnapshotsOwnMakesTheSettingsBeReadAgain() throws {
        _ = try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.startProject("Writing")
        clock.time += 60
        try tracker.pause()
        clock.time += 60
        try tracker.resume()
        let reads = try XCTUnwrap(keeper.payloadParts?.metaReads)
        for _ in 0..<3 {
            clock.time += 60
            try tracker.pause()
            clock.time += 60
            try tracker.resume()
        }
        XCTAssertEqual(keeper.payloadParts?.metaReads, reads, "a Pause or Resume read the settings again")
        try tracker.change { try tracker.store.setMeta("a_setting_of_a_later_version", "1") }
        XCTAssertEqual(keeper.payloadParts?.metaReads, reads + 1, "a new meta row did not make the settings be read again")
        try tracker.change { try tracker.store.setMeta("a_setting_of_a_later_version", "2") }
        XCTAssertEqual(keeper.payloadParts?.metaReads, reads + 2, "a changed meta row did not make the settings be read again")
        clock.time += 60
        try tracker.stop()
        try tracker.startProject("Writing")
        XCTAssertEqual(keeper.payloadParts?.metaReads, reads + 2, "stopping and starting read the settings again")
    }
}
