import Glibc
import XCTest
@testable import TimeCore

/// What every sync test starts from: a temporary directory holding a data folder per device and
/// the sync folder they share, a test clock at 2026-06-01 09:00 UTC, and the wall clock the
/// engine takes (milliseconds).
class SyncTestCase: XCTestCase {
    var directory: String!
    var clock: TestClock!

    override func setUpWithError() throws {
        setenv("TZ", "UTC", 1)
        tzset()
        directory = try makeTemporaryDirectory()
        clock = TestClock(utc(2026, 6, 1, 9))
    }

    override func tearDown() { Files.remove(directory) }

    var wall: Int64 { clock.time * 1000 }
    /// The sync folder every device of a test shares.
    var folder: String { directory + "/Sync" }

    /// A device's data folder, by name.
    func home(_ name: String) throws -> DataHome { try DataHome(directory: directory + "/" + name, clock: clock) }
}
