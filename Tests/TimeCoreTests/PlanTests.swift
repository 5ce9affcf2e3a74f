import Glibc
import XCTest
@testable import TimeCore

/// Rates, weekly targets, the currency and the not-tracking reminder: parsed and refused by
/// name, each setting one undoable step with its sentence, kept in the store and in snapshots
/// (a store restored from its snapshot has them all back).
final class PlanTests: XCTestCase {
    private var folder: Folder!
    private var clock: SafetyClock!
    private var home: DataHome!
    private var tracker: Tracker { home.tracker }

    override func setUpWithError() throws {
        folder = Folder()
        clock = SafetyClock()
        home = try DataHome(directory: folder.path, clock: clock)
        try tracker.createProject(name: "Writing", color: "#3366cc", category: "")
    }

    override func tearDown() {
        home = nil
        folder.remove()
    }

    func testRatesAreDecimalsWithAtMostTwoPlaces() throws {
        let accepted: [(String, Int64?, String)] = [("85", 8500, "85"), ("85.5", 8550, "85.50"), ("85.50", 8550, "85.50"),
                                                    (" 0.01 ", 1, "0.01"), ("199.99", 19999, "199.99"), ("0", 0, "0"),
                                                    ("007.10", 710, "7.10"), ("1000000", 100_000_000, "1000000"), ("", nil, "")]
        for (text, cents, shown) in accepted {
            try tracker.updateProject(id: 1, changes: ProjectChanges(rate: text))
            XCTAssertEqual(tracker.project(id: 1)?.rateCents, cents, text)
            XCTAssertEqual(tracker.project(id: 1)?.rateCents.map(Money.rateText) ?? "", shown, text)
        }
        try tracker.updateProject(id: 1, changes: ProjectChanges(rate: "85.50"))
        for text in ["-1", "85.555", "85,50", "1e3", ".5", "85.", "eighty", "85 EUR", "+85", "1000000.01", "0x10", "８５"] {
            let message = assertTrackerError("InvalidArgument", try tracker.updateProject(id: 1, changes: ProjectChanges(rate: text)))
            XCTAssertTrue(message.contains("85.5") || message.contains("highest"), "\(text): \(message)")
            XCTAssertEqual(tracker.project(id: 1)?.rateCents, 8550, "a refused rate changes nothing: \(text)")
        }
    }

    func testAmountsAreCentsHalfUp() {
        // 1 s at 0.01/h is 0.0000028 cents; 30 min at 0.01 is half a cent: up.
        XCTAssertEqual(Money.cents(ofCentSeconds: 1 * 1), 0)
        XCTAssertEqual(Money.cents(ofCentSeconds: 1800 * 1), 1)
        XCTAssertEqual(Money.cents(ofCentSeconds: 1799 * 1), 0)
        XCTAssertEqual(Money.cents(ofCentSeconds: 3600 * 8550), 8550)
        XCTAssertEqual(Money.amountText(123450), "1234.50")
        XCTAssertEqual(Money.amountText(5), "0.05")
        XCTAssertEqual(Money.amountText(0), "0.00")
    }

    func testCurrencyTargetsAndReminderAreRefusedByName() throws {
        try tracker.setCurrency("EUR")
        XCTAssertEqual(tracker.planSettings.currency, "EUR")
        // Stored exactly as given, or refused: a value that would read back otherwise is refused.
        for text in ["EURO", "€", "E1R", "12", "eu r", "eur", " EUR", " "] {
            assertTrackerError("InvalidArgument", try tracker.setCurrency(text))
        }
        XCTAssertEqual(tracker.planSettings.currency, "EUR")
        try tracker.setWeeklyTarget(40 * 3600)
        assertTrackerError("InvalidArgument", try tracker.setWeeklyTarget(7 * 24 * 3600 + 1))
        assertTrackerError("InvalidArgument", try tracker.setWeeklyTarget(-1))
        assertTrackerError("InvalidArgument", try tracker.updateProject(id: 1, changes: ProjectChanges(weeklyTarget: 169 * 3600)))
        XCTAssertEqual(tracker.planSettings.weeklyTarget, 40 * 3600)
        try tracker.setUntrackedReminderMinutes(15)
        assertTrackerError("InvalidArgument", try tracker.setUntrackedReminderMinutes(24 * 60 + 1))
        XCTAssertEqual(tracker.planSettings.untrackedReminderMinutes, 15)
    }

    func testEachSettingIsAnUndoableStepWithItsSentence() throws {
        let steps: [(String, () throws -> Void)] = [
            ("Set the rate of Writing to 85.50", { try self.tracker.updateProject(id: 1, changes: ProjectChanges(rate: "85.5")) }),
            ("Set the weekly target of Writing to 20:00", { try self.tracker.updateProject(id: 1, changes: ProjectChanges(weeklyTarget: 72000)) }),
            ("Removed the rate of Writing", { try self.tracker.updateProject(id: 1, changes: ProjectChanges(rate: "")) }),
            ("Set the currency to CHF", { try self.tracker.setCurrency("CHF") }),
            ("Set the weekly target to 40:00", { try self.tracker.setWeeklyTarget(144_000) }),
            ("Set the not-tracking reminder to 15 minutes", { try self.tracker.setUntrackedReminderMinutes(15) }),
            ("Turned the not-tracking reminder off", { try self.tracker.setUntrackedReminderMinutes(0) }),
            ("Removed the weekly target", { try self.tracker.setWeeklyTarget(0) }),
        ]
        var states = [try DataState(store: tracker.store)]
        for (sentence, step) in steps {
            try step()
            XCTAssertEqual(try tracker.history(count: 1).first?.description, sentence)
            states.append(try DataState(store: tracker.store))
        }
        // Setting the same value again is no change at all.
        try tracker.setCurrency("CHF")
        try tracker.updateProject(id: 1, changes: ProjectChanges(weeklyTarget: 72000))
        XCTAssertEqual(try tracker.history(count: 1).first?.description, steps.last!.0)
        for (index, step) in steps.enumerated().reversed() {
            XCTAssertEqual(try tracker.undo(), step.0)
            XCTAssertEqual(try DataState(store: tracker.store), states[index], "after undoing \(step.0)")
        }
        XCTAssertEqual(tracker.planSettings, PlanSettings())
        XCTAssertEqual(tracker.project(id: 1)?.rateCents, nil)
        XCTAssertEqual(try tracker.redo(), steps[0].0)
        XCTAssertEqual(tracker.project(id: 1)?.rateCents, 8550)
    }

    /// Everything planned goes into the snapshot: a store lost and restored from it has it back,
    /// and so has a restart.
    func testPlansSurviveARestartAndARestoreFromTheSnapshot() throws {
        try tracker.createProject(name: "Reviews", color: "", category: "")
        try tracker.updateProject(id: 1, changes: ProjectChanges(rate: "199.99", weeklyTarget: 36000))
        try tracker.updateProject(id: 2, changes: ProjectChanges(rate: "0.01"))
        try tracker.setCurrency("EUR")
        try tracker.setWeeklyTarget(144_000)
        try tracker.setUntrackedReminderMinutes(20)
        let expected = try DataState(store: tracker.store)
        XCTAssertEqual(expected.plans, PlanSettings(currency: "EUR", weeklyTarget: 144_000, untrackedReminderMinutes: 20))
        let snapshot = try XCTUnwrap(home.keeper).state(of: XCTUnwrap(home.keeper?.entries.last))
        XCTAssertEqual(snapshot.differences(from: expected), [])
        XCTAssertEqual(snapshot, expected)

        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(try DataState(store: tracker.store), expected, "after a restart")

        home = nil
        unlink(folder.store)
        unlink(folder.store + "-wal")
        unlink(folder.store + "-shm")
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(try DataState(store: tracker.store).differences(from: expected), [], "restored from the snapshot")
        XCTAssertEqual(tracker.project(id: 2)?.rateCents, 1)
        XCTAssertEqual(tracker.planSettings.untrackedReminderMinutes, 20)
    }

    /// Sync writes a project's name, color, category and archived state; a merged record never
    /// clears the rate or the target, which stay this device's own.
    func testASyncedProjectUpdateKeepsTheRateAndTarget() throws {
        try tracker.updateProject(id: 1, changes: ProjectChanges(rate: "85", weeklyTarget: 3600))
        var project = try XCTUnwrap(tracker.project(id: 1))
        project.name = "Writing (renamed elsewhere)"
        project.rateCents = nil
        project.weeklyTarget = 0
        try tracker.store.updateProject(project)
        let stored = try XCTUnwrap(try tracker.store.projects().first)
        XCTAssertEqual(stored.name, "Writing (renamed elsewhere)")
        XCTAssertEqual(stored.rateCents, 8500)
        XCTAssertEqual(stored.weeklyTarget, 3600)
    }

    func testTargetShareOfARange() {
        XCTAssertEqual(PlanSettings.share(of: 144_000, days: 7), 144_000)
        XCTAssertEqual(PlanSettings.share(of: 144_000, days: 28), 576_000)
        XCTAssertEqual(PlanSettings.share(of: 144_000, days: 30), 617_143, "617142.857… to the nearest second")
        XCTAssertEqual(PlanSettings.share(of: 144_000, days: 31), 637_714, "637714.28…")
        XCTAssertEqual(PlanSettings.share(of: 1, days: 3), 0, "0.43")
        XCTAssertEqual(PlanSettings.share(of: 7, days: 1), 1)
        XCTAssertEqual(PlanSettings.share(of: 0, days: 365), 0)
    }
}
