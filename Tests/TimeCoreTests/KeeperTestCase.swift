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

    override func tearDown() {
        home = nil
        folder.remove()
    }
}
