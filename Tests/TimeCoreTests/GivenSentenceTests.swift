import Glibc
import XCTest
@testable import TimeCore

/// The timer's changes name their undo step themselves (`describeStep`), from what they know,
/// without reading the data back. Each such sentence must be the one the step's changeset
/// gives through the generic description (StepDescription), which reads the rows it names.
final class GivenSentenceTests: XCTestCase {
    private var folder: Folder!
    private var clock: SafetyClock!
    private var home: DataHome!
    private var tracker: Tracker { home.tracker }

    override func setUpWithError() throws {
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
        folder = Folder()
        clock = SafetyClock()
        clock.time = utc(2026, 11, 30, 7, 58)
        home = try DataHome(directory: folder.path, clock: clock)
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Reviews \"and\" more", color: "", category: "")
    }

    override func tearDown() {
        home = nil
        folder.remove()
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
}
