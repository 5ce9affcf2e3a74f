import Glibc
import XCTest
@testable import TimeCore

/// Undo, redo and the history against a real data folder (store and snapshots): every kind of
/// change is undone and redone and the whole state compared record by record, in the store and
/// in the newest verified snapshot, also across a restart.
final class UndoTests: XCTestCase {
    private var folder: Folder!
    private var clock: SafetyClock!
    private var home: DataHome!
    private var tracker: Tracker { home.tracker }

    override func setUpWithError() throws {
        setenv("TZ", "UTC", 1)
        tzset()
        folder = Folder()
        clock = SafetyClock()
        clock.time = utc(2026, 11, 30, 14, 5)
        home = try DataHome(directory: folder.path, clock: clock)
    }

    override func tearDown() {
        home = nil
        folder.remove()
    }

    private func restart() throws {
        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
    }

    private func state() throws -> DataState { try DataState(store: tracker.store) }

    /// The store and its newest snapshot both hold exactly `expected`.
    private func assertState(_ expected: DataState, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let current = try state()
        XCTAssertEqual(current.differences(from: expected), [], what, file: file, line: line)
        XCTAssertEqual(current, expected, what, file: file, line: line)
        let snapshot = try XCTUnwrap(home.keeper).state(of: XCTUnwrap(home.keeper?.entries.last))
        XCTAssertEqual(snapshot.differences(from: expected), [], "snapshot after \(what)", file: file, line: line)
        XCTAssertEqual(try tracker.status().session, expected.sessions.first(where: \.isOpen), "cached timer after \(what)", file: file, line: line)
    }

    func testEveryKindOfChangeIsUndoneAndRedoneRecordByRecord() throws {
        try tracker.addCategory("Work")
        try tracker.createProject(name: "Writing", color: "#3366cc", category: "Work")
        try tracker.createProject(name: "Reviews", color: "", category: "")
        let day = utc(2026, 11, 28, 9)
        let changes: [(String, () throws -> Void)] = [
            ("Added category Home", { try self.tracker.addCategory("Home") }),
            ("Created project Reading", { try self.tracker.createProject(name: "Reading", color: "", category: "Home") }),
            ("Renamed project Reading to Lesen", { try self.tracker.updateProject(id: 3, changes: ProjectChanges(name: "Lesen")) }),
            ("Archived project Lesen", { try self.tracker.updateProject(id: 3, changes: ProjectChanges(archived: true)) }),
            ("Moved Reviews to category Work", { try self.tracker.updateProject(id: 2, changes: ProjectChanges(category: "Work")) }),
            ("Deleted category Home", { try self.tracker.deleteCategory("Home") }),
            ("Added 1:30 to Reviews on 2026-11-28", { try self.tracker.addSession(project: 2, start: day, duration: "1:30", note: "first") }),
            ("Changed the note of Reviews on 2026-11-28", { try self.tracker.setNote(session: 1, note: "changed") }),
            ("Edited Reviews on 2026-11-28", { try self.tracker.editSession(id: 1, changes: SessionChanges(start: day + 3600, duration: "2h")) }),
            ("Started Writing at 14:05", { try self.tracker.startProject("Writing") }),
            ("Paused Writing at 14:15", { self.clock.time += 600; try self.tracker.pause() }),
            ("Resumed Writing at 14:20", { self.clock.time += 300; try self.tracker.resume() }),
            ("Changed the note of Writing (open)", { try self.tracker.addNote("a line") }),
            ("Stopped Writing at 14:25 after 0:15 and started Reviews", { self.clock.time += 300; try self.tracker.startProject("Reviews") }),
            ("Stopped Reviews at 15:25 after 1:00", { self.clock.time += 3600; try self.tracker.stop() }),
            ("Deleted 2:00 of Reviews on 2026-11-28", { try self.tracker.deleteSession(id: 1) }),
            ("Set reminders to every 45 minutes", { try self.tracker.setReminderMinutes(45) }),
            ("Added 3 sessions from 2026-11-01 to 2026-11-03", {
                try self.tracker.importSessions((1...3).map { n in
                    let start = utc(2026, 11, n, 10)
                    return WorkSession(id: 0, projectID: 1, start: start, end: start + 600, unrecordedSeconds: 0, note: "imported",
                                       segments: [Segment(start: start, end: start + 600)])
                })
            }),
        ]
        for (index, (sentence, change)) in changes.enumerated() {
            let before = try state()
            try change()
            let after = try state()
            XCTAssertNotEqual(before, after, sentence)
            XCTAssertEqual(try tracker.canUndo(), sentence)
            // Every third change is undone after a restart, so the step comes from the store.
            if index % 3 == 0 { try restart() }
            XCTAssertEqual(try tracker.undo(), sentence)
            try assertState(before, "undo of \(sentence)")
            XCTAssertEqual(try tracker.history(count: 1).first?.undone, true)
            if index % 3 == 1 { try restart() }
            XCTAssertEqual(try tracker.redo(), sentence)
            try assertState(after, "redo of \(sentence)")
            assertTrackerError("NothingToRedo", try tracker.redo())
        }
        // And back through all of them, newest first, to the three records the test began with.
        let steps = try tracker.history(count: 100)
        XCTAssertEqual(steps.map(\.description),
                       (["Added category Work", "Created project Writing", "Created project Reviews"] + changes.map(\.0)).reversed())
        for _ in steps { try tracker.undo() }
        try assertState(DataState(categories: [], projects: [], sessions: [], reminderMinutes: Tracker.defaultReminderMinutes), "undo of everything")
        assertTrackerError("NothingToUndo", try tracker.undo())
        XCTAssertEqual(try tracker.canUndo(), "")
    }

    func testUndoingAStopReopensTheSameSessionAndTheTimeSinceCounts() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        let id = try tracker.startProject("Writing")
        let start = clock.time
        clock.time += 83 * 60
        try tracker.stop()
        clock.time += 7 * 60
        XCTAssertEqual(try tracker.undo(), "Stopped Writing at 15:28 after 1:23")
        let status = try tracker.status()
        XCTAssertEqual(status.state, .running)
        XCTAssertEqual(status.session?.id, id)
        XCTAssertEqual(status.session?.start, start)
        XCTAssertEqual(status.session?.segments, [Segment(start: start, end: nil)], "the open segment continues")
        XCTAssertEqual(status.session?.activeSeconds(at: clock.time), 90 * 60)

        // Pause, likewise: undone, the segment runs on.
        clock.time += 60
        try tracker.pause()
        clock.time += 600
        XCTAssertEqual(try tracker.undo(), "Paused Writing at 15:36")
        XCTAssertEqual(try tracker.status().session?.segments, [Segment(start: start, end: nil)])
        try restart()
        XCTAssertEqual(try tracker.status().state, .running, "the reopened session survives a restart")
    }

    func testANotificationsUndoActsOnlyWhileItsStepIsTheNewest() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.startProject("Writing")
        try tracker.stop()
        let stopStep = try XCTUnwrap(tracker.undoableStep()).id
        try tracker.addCategory("Later")
        let before = try state()
        let message = assertTrackerError("NothingToUndo", try tracker.undo(onlyStep: stopStep))
        XCTAssertTrue(message.contains("newer changes"), message)
        XCTAssertEqual(try state(), before)
        try tracker.undo()
        XCTAssertEqual(try tracker.undo(onlyStep: stopStep), try tracker.history(count: 3)[1].description)
        XCTAssertEqual(try tracker.status().state, .running)
        let again = assertTrackerError("NothingToUndo", try tracker.undo(onlyStep: stopStep))
        XCTAssertTrue(again.contains("undone already"), again)
    }

    func testANewChangeClearsRedoAndUndoneIDsAreNeverGivenOutAgain() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        let first = try tracker.addSession(project: 1, start: clock.time - 7200, duration: "1h", note: "")
        try tracker.undo()
        try tracker.addCategory("Other")
        assertTrackerError("NothingToRedo", try tracker.redo())
        let second = try tracker.addSession(project: 1, start: clock.time - 7200, duration: "1h", note: "")
        XCTAssertGreaterThan(second, first, "an undone session's id is not reused")
        XCTAssertEqual(try tracker.history(count: 10).map(\.undone), [false, false, false])
    }

    func testTheHistoryKeepsTheNewestHundredSteps() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        let id = try tracker.addSession(project: 1, start: clock.time - 7200, duration: "1h", note: "")
        for n in 1...105 { try tracker.setNote(session: id, note: "n\(n)") }
        let steps = try tracker.history(count: 500)
        XCTAssertEqual(steps.count, 100)
        XCTAssertEqual(Set(steps.map(\.description)).count, 1)
        XCTAssertEqual(try tracker.store.database.queryFirst("SELECT count(*) FROM undo_steps") { $0.int(0) }, 100)
        for _ in 0..<100 { try tracker.undo() }
        assertTrackerError("NothingToUndo", try tracker.undo())
        XCTAssertEqual(try tracker.session(id: id).note, "n5", "the five oldest steps fell out of the history")
    }

    /// A table added by another feature (here made by hand) needs no undo code of its own: its
    /// rows are in the step; the code making the change may give the sentence.
    func testAChangeToAnyTableIsUndoableAndMayNameItself() throws {
        try tracker.store.database.execute("CREATE TABLE away_spans(id INTEGER PRIMARY KEY, start INTEGER NOT NULL, choice TEXT)")
        try tracker.createProject(name: "Writing", color: "", category: "")
        let spans = { try self.tracker.store.database.query("SELECT id, start, choice FROM away_spans ORDER BY id") { "\($0.int(0)) \($0.int(1)) \($0.optionalString(2) ?? "-")" } }
        try tracker.change { try tracker.store.database.run("INSERT INTO away_spans(start) VALUES(?)", .integer(100)) }
        XCTAssertEqual(try tracker.canUndo(), "Changed 1 record of away_spans")
        try tracker.change {
            tracker.describeStep("Kept 42 min away in Writing")
            try tracker.store.database.run("UPDATE away_spans SET choice = 'keep'")
            _ = try tracker.store.insertSession(WorkSession(id: 0, projectID: 1, start: 100, end: 200, unrecordedSeconds: 0, note: "",
                                                            segments: [Segment(start: 100, end: 200)]))
        }
        XCTAssertEqual(try spans(), ["1 100 keep"])
        let both = try state()
        XCTAssertEqual(try tracker.undo(), "Kept 42 min away in Writing")
        XCTAssertEqual(try spans(), ["1 100 -"])
        XCTAssertEqual(try state().sessions, [])
        try restart()
        XCTAssertEqual(try tracker.redo(), "Kept 42 min away in Writing")
        XCTAssertEqual(try spans(), ["1 100 keep"])
        try assertState(both, "redo of a described step")
        try tracker.undo()
        XCTAssertEqual(try tracker.undo(), "Changed 1 record of away_spans")
        XCTAssertEqual(try spans(), [])
    }

    func testAStepTheDataNoLongerMatchesIsRefusedAndNothingChanges() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        let id = try tracker.addSession(project: 1, start: clock.time - 7200, duration: "1h", note: "")
        try tracker.setNote(session: id, note: "from the history")
        // Changed behind the history's back (no change through the gate does this).
        try tracker.store.database.execute("UPDATE sessions SET note = 'edited by hand' WHERE id = \(id)")
        let before = try state()
        let history = try tracker.history(count: 10)
        let message = assertTrackerError("StorageFailure", try tracker.undo())
        XCTAssertTrue(message.contains("cannot be undone") && message.contains("nothing was changed"), message)
        XCTAssertEqual(try state(), before)
        XCTAssertEqual(try tracker.history(count: 10), history)
    }
}
