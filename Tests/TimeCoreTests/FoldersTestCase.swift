import XCTest
@testable import TimeCore

/// A test that opens data folders of its own (each removed at the end) with a clock it moves,
/// and no planted write failure left from another test.
class FoldersTestCase: XCTestCase {
    var folders: [Folder] = []
    var clock: SafetyClock!

    override func setUp() {
        clock = SafetyClock()
        clock.time = utc(2026, 11, 28, 9)
        Files.injectedWriteFailure = nil
    }

    override func tearDown() {
        Files.injectedWriteFailure = nil
        for folder in folders { folder.remove() }
    }

    func makeFolder() -> Folder {
        let folder = Folder()
        folders.append(folder)
        return folder
    }

    func open(_ folder: Folder) throws -> DataHome { try DataHome(directory: folder.path, clock: clock) }
}
