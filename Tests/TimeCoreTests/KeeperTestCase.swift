import XCTest
@testable import TimeCore

/// A test with a data folder of its own, opened with a clock the test moves: the tracker and the
/// snapshot keeper that records its changes.
class KeeperTestCase: XCTestCase {
    var folder: Folder!
    var clock: SafetyClock!
    var home: DataHome!
    var tracker: Tracker { home.tracker }
    var keeper: SnapshotKeeper { home.keeper! }

    override func setUpWithError() throws {
        folder = Folder()
        clock = SafetyClock()
        home = try DataHome(directory: folder.path, clock: clock)
    }

    /// A project "Writing" and a finished session of an hour in it, to change again and again.
    func aSessionToChange() throws -> SessionID {
        try tracker.createProject(name: "Writing", color: "", category: "")
        return try tracker.addSession(project: 1, start: clock.time - 7200, duration: "1h", note: "")
    }

    /// A session running in "Writing" with a few changes behind it, made as the agent makes them
    /// (`writeAfterAnswer`: kept files written after the answer), each tidied up after.
    /// `otherProjects`: made first, beside "Writing".
    func aRunningSession(otherProjects: [String] = [], writeAfterAnswer: Bool = true) throws {
        keeper.writeAfterAnswer = writeAfterAnswer
        for name in ["Writing"] + otherProjects { try tracker.createProject(name: name, color: "", category: "") }
        tracker.tidyUp()
        clock.time += 60
        try tracker.startProject("Writing")
        tracker.tidyUp()
        clock.time += 60
        try tracker.addNote("draft")
        tracker.tidyUp()
        clock.time += 60
    }

    override func tearDown() {
        home = nil
        folder.remove()
    }
}
