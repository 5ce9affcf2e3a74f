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

    override func tearDown() {
        home = nil
        folder.remove()
    }
}
