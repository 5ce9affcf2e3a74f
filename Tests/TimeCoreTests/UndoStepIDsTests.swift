import XCTest
@testable import TimeCore

/// Schema v16 takes AUTOINCREMENT off the undo history's table (a page of `sqlite_sequence` that
/// every change wrote), and the steps past the newest 100 go in batches (the oldest step's page
/// written once in `trimEvery` changes). What a person sees does not move: the history holds the
/// newest 100 steps, Undo goes back exactly that far, and no step id is ever given twice, across
/// undone steps, a restart and the migration.
final class UndoStepIDsTests: KeeperTestCase {
    private func rowsHeld() throws -> Int64 {
        try tracker.store.database.queryFirst("SELECT count(*) FROM undo_steps") { $0.int(0) } ?? 0
    }

    private func newestID() throws -> Int64 { try XCTUnwrap(tracker.history(count: 1).first?.id) }

    func testTheHistoryShowsTheNewestHundredWhateverTheTableHolds() throws {
        let id = try aSessionToChange()
        var most: Int64 = 0
        for n in 1...250 {
            try tracker.setNote(session: id, note: "n\(n)")
            tracker.tidyUp()  // as the agent does after each answer
            let held = try rowsHeld()
            most = max(most, held)
            XCTAssertLessThan(held, Int64(UndoHistory.kept) + UndoHistory.trimEvery, "after change \(n)")
            let shown = try tracker.history(count: 500)
            XCTAssertEqual(shown.count, min(n + 2, UndoHistory.kept), "after change \(n)")
        }
        XCTAssertGreaterThan(most, Int64(UndoHistory.kept), "the table held more than it shows between trims")
        // Wherever the trim's cycle is, Undo goes back exactly 100 steps.
        XCTAssertGreaterThan(try rowsHeld(), Int64(UndoHistory.kept))
        for _ in 0..<UndoHistory.kept { try tracker.undo() }
        XCTAssertThrowsError(try tracker.undo()) { XCTAssertEqual(($0 as? TrackerError)?.name, "NothingToUndo") }
        XCTAssertEqual(try tracker.session(id: id).note, "n150")
        XCTAssertEqual(try tracker.history(count: 500).count, UndoHistory.kept)
    }

    /// The old steps go after the answer (`Tracker.tidyUp`), in a transaction of their own, not
    /// inside the change that made their removal due: that change's answer does not wait for
    /// the pages of a step that may hold a whole imported history, and it can still commit
    /// beside its flush (its step is all it wrote of the history).
    func testTheOldStepsGoAfterTheAnswerNotInsideTheChange() throws {
        let id = try aSessionToChange()
        tracker.tidyUp()
        // Changes, each tidied up after, up to the first that makes the trim due with old steps
        // to remove (the 120th step, once the table holds past 100).
        for n in 1...(UndoHistory.kept + 2 * Int(UndoHistory.trimEvery)) {
            try tracker.setNote(session: id, note: "n\(n)")
            if try newestID() % UndoHistory.trimEvery == 0, try newestID() > Int64(UndoHistory.kept) { break }
            tracker.tidyUp()
        }
        XCTAssertEqual(try newestID(), Int64(UndoHistory.kept) + UndoHistory.trimEvery)
        XCTAssertEqual(try rowsHeld(), Int64(UndoHistory.kept + Int(UndoHistory.trimEvery)),
                       "the change that made the trim due removed no step itself")
        XCTAssertNotNil(tracker.history.finished, "its step is all it wrote of the history: it can be taken back exactly")
        XCTAssertEqual(try tracker.history(count: 500).count, UndoHistory.kept)
        tracker.tidyUp()
        XCTAssertEqual(try rowsHeld(), Int64(UndoHistory.kept), "the tidy-up after its answer removed the old steps")
    }

    /// A caller that never tidies up (a script on the core) still has the old steps removed,
    /// inside a change, once in twice as many steps.
    func testACallerThatNeverTidiesUpStillHasTheOldStepsRemoved() throws {
        let id = try aSessionToChange()
        for n in 1...300 {
            try tracker.setNote(session: id, note: "n\(n)")
            XCTAssertLessThan(try rowsHeld(), Int64(UndoHistory.kept) + 2 * UndoHistory.trimEvery, "after change \(n)")
            XCTAssertEqual(try tracker.history(count: 500).count, min(n + 2, UndoHistory.kept), "after change \(n)")
        }
        for _ in 0..<UndoHistory.kept { try tracker.undo() }
        XCTAssertEqual(try tracker.session(id: id).note, "n200")
    }

    func testNoStepIDIsGivenTwice() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        var given: [Int64] = [try newestID()]
        for n in 1...3 {
            try tracker.addCategory("C\(n)")
            given.append(try newestID())
        }
        // Undone steps go when a change follows: the change's id is past theirs.
        try tracker.undo()
        try tracker.undo()
        try tracker.addCategory("After two undone")
        given.append(try newestID())
        // The same after a restart, when the agent does not know whether steps are undone.
        try tracker.undo()
        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        try tracker.addCategory("After a restart")
        given.append(try newestID())
        XCTAssertEqual(given, given.sorted(), "ids only grow")
        XCTAssertEqual(Set(given).count, given.count, "no id twice: \(given)")
        XCTAssertEqual(given.last, given[3] + 2, "each step's id is one past the last given, undone ones included")
    }

    /// A v15 store (AUTOINCREMENT, its counter in `sqlite_sequence`) keeps every step and id
    /// through the migration; a step recorded before it can still be undone after it.
    func testAVersion15HistoryMigrates() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.addCategory("Work")
        try tracker.addCategory("Home")
        try tracker.undo()
        let steps = try tracker.history(count: 100)
        home = nil
        let path = folder.path + "/time.sqlite"
        do {
            let database = try SQLiteDatabase(path: path, mode: .readWrite)
            try database.execute("""
                BEGIN;
                \(withoutV17StepMarks)
                CREATE TABLE undo_steps_v15(
                    id INTEGER PRIMARY KEY AUTOINCREMENT, time INTEGER NOT NULL, description TEXT NOT NULL,
                    undone INTEGER NOT NULL DEFAULT 0, changeset BLOB NOT NULL);
                INSERT INTO undo_steps_v15 SELECT * FROM undo_steps;
                DROP TABLE undo_steps;
                ALTER TABLE undo_steps_v15 RENAME TO undo_steps;
                PRAGMA user_version = 15;
                COMMIT;
                PRAGMA wal_checkpoint(TRUNCATE);
                """)
            XCTAssertEqual(try database.queryFirst("SELECT seq FROM sqlite_sequence WHERE name = 'undo_steps'") { $0.int(0) },
                           steps.first?.id, "the v15 store as it was: its counter at the newest step")
        }
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
        let database = tracker.store.database
        XCTAssertEqual(try database.integerPragma("user_version"), Schema.currentVersion)
        XCTAssertEqual(try tracker.history(count: 100), steps)
        let table = try database.queryFirst("SELECT sql FROM sqlite_master WHERE name = 'undo_steps'") { $0.string(0) }
        XCTAssertFalse(try XCTUnwrap(table).uppercased().contains("AUTOINCREMENT"), table ?? "")
        XCTAssertNil(try database.queryFirst("SELECT seq FROM sqlite_sequence WHERE name = 'undo_steps'") { $0.int(0) })
        XCTAssertEqual(try tracker.redo(), steps.first?.description, "the step undone before the migration is redone")
        try tracker.undo()
        try tracker.undo()
        XCTAssertEqual(tracker.categories().map(\.name), [])
        try tracker.addCategory("Garden")
        XCTAssertEqual(try newestID(), try XCTUnwrap(steps.first?.id) + 1)
    }
}
