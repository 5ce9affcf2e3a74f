import Foundation
import XCTest
@testable import TimeCore

/// A data folder as an older version of Time left it, made from Tests/Fixtures: its store written
/// by the sqlite3 command line from that version's dump, and the snapshots it wrote beside it.
struct OldDataFolder {
    let path: String

    static func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name)").path
    }

    /// `time.sqlite` from the dump `storeDump` (a file in Tests/Fixtures), checked to be at `version`.
    func writeStore(from storeDump: String, version: Int64, file: StaticString = #filePath, line: UInt = #line) throws {
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", path + "/time.sqlite"]
        sqlite.standardInput = FileHandle(forReadingAtPath: OldDataFolder.fixture(storeDump))
        sqlite.standardOutput = FileHandle.nullDevice
        try sqlite.run()
        sqlite.waitUntilExit()
        XCTAssertEqual(sqlite.terminationStatus, 0, "sqlite3 wrote \(storeDump)", file: file, line: line)
        XCTAssertEqual(try SQLiteDatabase(path: path + "/time.sqlite", mode: .readOnly).integerPragma("user_version"), version,
                       file: file, line: line)
    }

    /// The snapshots of `dataFixture` (a folder in Tests/Fixtures with a `snapshots` folder).
    func copySnapshots(from dataFixture: String) throws {
        let target = path + "/snapshots"
        try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
        let source = OldDataFolder.fixture(dataFixture + "/snapshots")
        for name in try FileManager.default.contentsOfDirectory(atPath: source) {
            try FileManager.default.copyItem(atPath: source + "/" + name, toPath: target + "/" + name)
        }
    }
}

/// A test of a data folder an older version left: `folder` is new for each test (removed after
/// it), in Europe/Berlin's time as the fixtures were written.
class OldDataFolderTestCase: XCTestCase {
    var folder: String!

    override func setUpWithError() throws {
        folder = try makeTemporaryDirectory() + "/data"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        setenv("TZ", "Europe/Berlin", 1)
        tzset()
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(atPath: Files.directoryName(folder)) }
        unsetenv("TZ")
        tzset()
    }
}
