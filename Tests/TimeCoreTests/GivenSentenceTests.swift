import Glibc
import XCTest
@testable import TimeCore

/// The timer's changes name their undo step themselves (`describeStep`), from what they know,
/// without reading the data back. Each such sentence must be the one the step's changeset
/// gives through the generic description (StepDescription), which reads the rows it names.
final class GivenSentenceTests: KeeperTestCase {
    override func setUpWithError() throws {
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
        try super.setUpWithError()
        clock.time = utc(2026, 11, 30, 7, 58)
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Reviews \"and\" more", color: "", category: "")
    }

    override func tearDown() {
        super.tearDown()
        setenv("TZ", "UTC", 1)
        tzset()
    }

    /// The newest step's sentence, and the one its changeset gives.
    private func sentences() throws -> (given: String, fromChangeset: String) {
        let database = tracker.store.database
        let given = try XCTUnwrap(try database.queryFirst("SELECT description FROM undo_steps ORDER BY id DESC LIMIT 1") { $0.string(0) })
        let bytes = try XCTUnwrap(try database.queryBlob("SELECT changeset FROM undo_steps ORDER BY id DESC LIMIT 1"))
        return (given, try tracker.sentence(for: Changeset(bytes: bytes)))
    }

    func testTheTimersSentencesAreTheChangesetsOwn() throws {
        let steps: [(String, () throws -> Void)] = [
            ("start from idle", { try self.tracker.startProject("Writing") }),
            ("pause", { self.clock.time += 20 * 60 + 17; try self.tracker.pause() }),
            ("resume", { self.clock.time += 5 * 60; try self.tracker.resume() }),
            ("pause again", { self.clock.time += 65 * 60 + 59; try self.tracker.pause() }),
            ("switch from a paused session", { self.clock.time += 3 * 60; try self.tracker.startProject("Reviews \"and\" more") }),
            ("switch from a running session", { self.clock.time += 2 * 3600 + 1; try self.tracker.startProject("Writing") }),
            ("stop a running session", { self.clock.time += 59; try self.tracker.stop() }),
            ("start again", { self.clock.time += 11 * 60; try self.tracker.startProject("#2") }),
            ("pause before a stop", { self.clock.time += 30 * 60; try self.tracker.pause() }),
            ("stop a paused session", { self.clock.time += 30 * 60; try self.tracker.stop() }),
            ("toggle from idle", { self.clock.time += 60; _ = try self.tracker.toggle() }),
        ]
        for (what, step) in steps {
            try step()
            let (given, fromChangeset) = try sentences()
            XCTAssertEqual(given, fromChangeset, what)
        }
    }

    func testTheSentencesOfEditsAreTheChangesetsOwn() throws {
        let day = utc(2026, 11, 27, 22, 30)   // 23:30 in Berlin: the day is the local one
        try tracker.addSession(project: 1, start: day, duration: "1h", note: "first")
        try tracker.addSession(project: 2, start: day - 86400, duration: "2h", note: "")
        // One with a pause, whose duration edited to the same end changes its segments alone.
        try tracker.startProject("Writing")
        clock.time += 1800; try tracker.pause()
        clock.time += 600; try tracker.resume()
        clock.time += 1200; try tracker.stop()
        let paused = try XCTUnwrap(tracker.store.allSessions().last)
        try tracker.startProject("#2")
        let steps: [(String, () throws -> Void)] = [
            ("a note of a completed session", { try self.tracker.setNote(session: 1, note: "second") }),
            ("a note cleared", { try self.tracker.setNote(session: 1, note: "") }),
            ("a start moved", { try self.tracker.editSession(id: 1, changes: SessionChanges(start: day + 3600)) }),
            ("a duration", { try self.tracker.editSession(id: 1, changes: SessionChanges(duration: "1:30")) }),
            ("another project", { try self.tracker.editSession(id: 2, changes: SessionChanges(projectID: 1)) }),
            ("a note and a duration", { try self.tracker.editSession(id: 2, changes: SessionChanges(duration: "45m", note: "both")) }),
            ("a note alone through an edit", { try self.tracker.editSession(id: 2, changes: SessionChanges(note: "only this")) }),
            ("the segments alone", { try self.tracker.editSession(id: paused.id, changes: SessionChanges(duration: "1h")) }),
            ("a line added to the open session's note", { try self.tracker.addNote("a line") }),
            ("another line", { try self.tracker.addNote("and another") }),
            ("the open session's note set", { try self.tracker.setNote(session: self.tracker.currentSession!.id, note: "set") }),
        ]
        for (what, step) in steps {
            let before = try tracker.store.database.queryFirst("SELECT count(*) FROM undo_steps") { $0.int(0) }
            try step()
            XCTAssertEqual(try tracker.store.database.queryFirst("SELECT count(*) FROM undo_steps") { $0.int(0) }, (before ?? 0) + 1, what)
            let (given, fromChangeset) = try sentences()
            XCTAssertEqual(given, fromChangeset, what)
        }
    }
}
