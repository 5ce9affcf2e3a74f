import Glibc
import XCTest
@testable import TimeCore

/// Rates, weekly targets and the shared settings travel (docs/sync.md, "A record"; issue 30) with
/// the same field-level rules as every other field: the later edit wins on every device, a delete
/// wins over an edit, an undo whose step a merge touched since is refused whole, and a device that
/// published before they travelled publishes them once.
final class SyncPlansTests: SyncTestCase {
    private struct Device {
        let home: DataHome
        let engine: SyncEngine
        var tracker: Tracker { home.tracker }
        func project(_ name: String) throws -> Project { try XCTUnwrap(tracker.projects().first { $0.name == name }, "no \(name)") }
    }

    private func device(_ name: String, id: String = SyncRecord.newID()) throws -> Device {
        let home = try home(name)
        let engine = try SyncEngine(tracker: home.tracker, folder: folder, device: id, deviceName: name, wallMilliseconds: wall)
        return Device(home: home, engine: engine)
    }

    private func exchange(_ devices: Device...) throws {
        for device in devices { try device.engine.merge(wallMilliseconds: wall) }
        for device in devices { try device.engine.merge(wallMilliseconds: wall) }
    }

    /// The freelancer of issue 30: what the laptop sets arrives on the desktop, and back.
    func testRatesTargetsAndTheSharedSettingsTravelBothWays() throws {
        let laptop = try device("laptop")
        let desktop = try device("desktop")
        try laptop.tracker.createProject(name: "Consulting", color: "", category: "")
        try exchange(laptop, desktop)
        clock.advance(5)
        let consulting = try laptop.project("Consulting")
        try laptop.tracker.updateProject(id: consulting.id, changes: ProjectChanges(rate: "120.50", weeklyTarget: 36_000))
        try laptop.tracker.setCurrency("EUR")
        try laptop.tracker.setWeeklyTarget(144_000)
        try exchange(laptop, desktop)
        for device in [laptop, desktop] {
            let project = try device.project("Consulting")
            XCTAssertEqual(project.rateCents, 12_050)
            XCTAssertEqual(project.weeklyTarget, 36_000)
            XCTAssertEqual(device.tracker.planSettings.currency, "EUR")
            XCTAssertEqual(device.tracker.planSettings.weeklyTarget, 144_000)
        }
        // Back: the desktop removes the rate and changes the currency.
        clock.advance(5)
        try desktop.tracker.updateProject(id: try desktop.project("Consulting").id, changes: ProjectChanges(rate: "", weeklyTarget: 0))
        try desktop.tracker.setCurrency("")
        try desktop.tracker.setWeeklyTarget(0)
        try exchange(laptop, desktop)
        for device in [laptop, desktop] {
            let project = try device.project("Consulting")
            XCTAssertNil(project.rateCents)
            XCTAssertEqual(project.weeklyTarget, 0)
            XCTAssertEqual(device.tracker.planSettings, PlanSettings())
        }
    }

    /// Two devices change the same fields before either sees the other's: the later change wins
    /// everywhere, field by field (a rate and a target changed on different devices both hold).
    func testConcurrentEditsConvergeOnTheLaterOneFieldByField() throws {
        let a = try device("a")
        let b = try device("b")
        try a.tracker.createProject(name: "Blog", color: "", category: "")
        try exchange(a, b)
        clock.advance(5)
        try a.tracker.updateProject(id: try a.project("Blog").id, changes: ProjectChanges(rate: "80", weeklyTarget: 7200))
        try a.tracker.setCurrency("USD")
        try b.tracker.setWeeklyTarget(3600)
        clock.advance(5)
        try b.tracker.updateProject(id: try b.project("Blog").id, changes: ProjectChanges(rate: "95.5"))
        try b.tracker.setCurrency("CHF")
        clock.advance(5)
        try a.tracker.setWeeklyTarget(7200)
        try exchange(a, b)
        for device in [a, b] {
            let blog = try device.project("Blog")
            XCTAssertEqual(blog.rateCents, 9550, "b's later rate")
            XCTAssertEqual(blog.weeklyTarget, 7200, "a's target: b never changed it")
            XCTAssertEqual(device.tracker.planSettings.currency, "CHF", "b's later currency")
            XCTAssertEqual(device.tracker.planSettings.weeklyTarget, 7200, "a's later weekly target")
        }
    }

    /// A rate set on one device for a project another device deletes: the delete wins (rule 2).
    /// (No call deletes a project; a row removed from b's store is published as deleted, as a
    /// second implementation that deletes projects would write.)
    func testADeleteWinsOverARateEdit() throws {
        let a = try device("a")
        let b = try device("b")
        try a.tracker.createProject(name: "Gone", color: "", category: "")
        try exchange(a, b)
        clock.advance(5)
        let gone = try b.project("Gone").id
        try b.tracker.change { try b.tracker.store.database.run("DELETE FROM projects WHERE id = ?", .integer(gone)); try b.tracker.reload() }
        clock.advance(5)
        try a.tracker.updateProject(id: try a.project("Gone").id, changes: ProjectChanges(rate: "50"))
        try exchange(a, b)
        for device in [a, b] { XCTAssertFalse(device.tracker.projects().contains { $0.name == "Gone" }) }
    }

    /// Undoing a rate or a currency that another device has changed since would overwrite that
    /// change: refused whole, nothing changed. One that nobody touched since is undone and travels.
    func testAnUndoOfAValueAMergeChangedSinceIsRefused() throws {
        let a = try device("a")
        let b = try device("b")
        try a.tracker.createProject(name: "Blog", color: "", category: "")
        try exchange(a, b)
        clock.advance(5)
        try a.tracker.setCurrency("EUR")
        try exchange(a, b)
        clock.advance(5)
        try b.tracker.setCurrency("USD")
        try exchange(a, b)
        XCTAssertTrue(assertTrackerError("NothingToUndo", try a.tracker.undo()).contains("was changed since"))
        XCTAssertEqual(a.tracker.planSettings.currency, "USD")

        clock.advance(5)
        try a.tracker.updateProject(id: try a.project("Blog").id, changes: ProjectChanges(rate: "70"))
        try exchange(a, b)
        clock.advance(5)
        try b.tracker.updateProject(id: try b.project("Blog").id, changes: ProjectChanges(rate: "75"))
        try exchange(a, b)
        XCTAssertTrue(assertTrackerError("NothingToUndo", try a.tracker.undo()).contains("was changed since"))
        XCTAssertEqual(try a.project("Blog").rateCents, 7500)

        // Untouched since: undone here, and the undo travels.
        clock.advance(5)
        try b.tracker.setWeeklyTarget(3600)
        try b.tracker.undo()
        try exchange(a, b)
        XCTAssertEqual(a.tracker.planSettings.weeklyTarget, 0)
        XCTAssertEqual(b.tracker.planSettings.weeklyTarget, 0)
        clock.advance(5)
        try b.tracker.updateProject(id: try b.project("Blog").id, changes: ProjectChanges(weeklyTarget: 1800))
        try exchange(a, b)
        XCTAssertEqual(try a.project("Blog").weeklyTarget, 1800)
        try b.tracker.undo()
        try exchange(a, b)
        XCTAssertEqual(try a.project("Blog").weeklyTarget, 0)
    }

    /// Devices that published before rates, targets and the currency travelled had them each on
    /// its own. After the upgrade each publishes once what only it has; a value another device
    /// already published is taken; and both end with the same.
    func testAHistorySyncedBeforeTheUpgradeConverges() throws {
        let aID = SyncRecord.newID(), bID = SyncRecord.newID()
        SyncPlans.publishAsBefore = true
        defer { SyncPlans.publishAsBefore = false }
        do {
            let a = try device("a", id: aID)
            let b = try device("b", id: bID)
            try a.tracker.createProject(name: "Consulting", color: "", category: "")
            try a.tracker.createProject(name: "Writing", color: "", category: "")
            try exchange(a, b)
            try a.engine.stop(); try b.engine.stop()
        }
        SyncPlans.publishAsBefore = false
        // As the version before this one kept them: in each store, never published.
        clock.advance(5)
        try beforeTheUpgrade("a") { tracker in
            try tracker.updateProject(id: 1, changes: ProjectChanges(rate: "120.50", weeklyTarget: 36_000))
            try tracker.setCurrency("EUR")
        }
        clock.advance(5)
        try beforeTheUpgrade("b") { tracker in
            let writing = try XCTUnwrap(tracker.projects().first { $0.name == "Writing" })
            let consulting = try XCTUnwrap(tracker.projects().first { $0.name == "Consulting" })
            try tracker.updateProject(id: writing.id, changes: ProjectChanges(rate: "60"))
            try tracker.updateProject(id: consulting.id, changes: ProjectChanges(rate: "130"))
            try tracker.setWeeklyTarget(144_000)
        }
        // The upgrade: a starts first and publishes; b then takes a's Consulting rate and the
        // currency, and publishes its Writing rate and its weekly target.
        let a = try device("a", id: aID)
        XCTAssertFalse(a.engine.isPublishing, "published once at start")
        XCTAssertEqual(try a.tracker.store.meta(SyncEngine.plansPublishedKey), SyncLayout(folder: folder).root + " " + aID)
        let b = try device("b", id: bID)
        try exchange(a, b)
        for device in [a, b] {
            XCTAssertEqual(try device.project("Consulting").rateCents, 12_050)
            XCTAssertEqual(try device.project("Consulting").weeklyTarget, 36_000)
            XCTAssertEqual(try device.project("Writing").rateCents, 6000)
            XCTAssertEqual(device.tracker.planSettings.currency, "EUR")
            XCTAssertEqual(device.tracker.planSettings.weeklyTarget, 144_000)
        }
        XCTAssertEqual(a.engine.replica.view(), b.engine.replica.view())
        XCTAssertEqual(try b.tracker.store.meta(SyncEngine.plansPublishedKey), SyncLayout(folder: folder).root + " " + bID, "published once")
    }

    /// Changes as the version before this one made them: in the store, never published (its notes
    /// did not name these fields), and the store not marked as having published them.
    private func beforeTheUpgrade(_ name: String, _ body: (Tracker) throws -> Void) throws {
        let home = try home(name)
        try body(home.tracker)
        let store = home.tracker.store
        try store.database.execute("DELETE FROM sync_dirty")
        try store.setMeta(SyncEngine.plansPublishedKey, "")
    }
}
