import Glibc
import XCTest
@testable import TimeCore

/// The file primitives the safety layer stands on, on real files in a temporary folder.
final class FilesTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder = String(cString: mkdtemp(strdup("/tmp/time-files-XXXXXX")))
    }

    override func tearDown() {
        Files.remove(folder)
    }

    /// Bytes of every value, longer than the one-megabyte pieces files are compared in.
    private func pattern(_ count: Int, seed: UInt8 = 7) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
    }

    func testReadReturnsTheWholeFileWhateverItsSize() throws {
        for count in [0, 1, 65_535, 65_536, 3 * 1_048_576 + 17] {
            let bytes = pattern(count)
            try Files.writeDurably(bytes, to: folder + "/f\(count)")
            XCTAssertTrue(Files.same(try Files.read(folder + "/f\(count)"), bytes), "\(count) bytes")
        }
    }

    func testReadTakesFilesThatReportNoSize() throws {
        // /proc files say they are empty and are not: they are read in pieces until the end.
        let status = String(decoding: try Files.read("/proc/self/status"), as: UTF8.self)
        XCTAssertTrue(status.contains("Name:"), status)
        XCTAssertTrue(status.hasSuffix("\n"))
    }

    func testReadOfAMissingFileNamesThePath() {
        XCTAssertThrowsError(try Files.read(folder + "/nothing")) { error in
            XCTAssertEqual("\(error)", "could not open \(folder)/nothing: No such file or directory")
        }
    }

    func testCopyDurablyMakesAPrivateByteForByteCopy() throws {
        let bytes = pattern(2 * 1_048_576 + 5)
        try Files.writeDurably(bytes, to: folder + "/source")
        chmod(folder + "/source", 0o644)
        try Files.copyDurably(folder + "/source", to: folder + "/copy")
        XCTAssertTrue(Files.same(try Files.read(folder + "/copy"), bytes))
        var info = stat()
        XCTAssertEqual(stat(folder + "/copy", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600, "copies are private whatever the original's mode")
        XCTAssertFalse(Files.exists(folder + "/copy.tmp"), "no temporary file is left")

        // Over an existing, longer file: the copy is exactly the source afterwards.
        try Files.writeDurably(pattern(5_000_000, seed: 9), to: folder + "/longer")
        try Files.copyDurably(folder + "/source", to: folder + "/longer")
        XCTAssertTrue(Files.same(try Files.read(folder + "/longer"), bytes))
    }

    func testCopyDurablyOfAnEmptyFile() throws {
        try Files.writeDurably([], to: folder + "/empty")
        try Files.copyDurably(folder + "/empty", to: folder + "/copy")
        XCTAssertEqual(try Files.read(folder + "/copy"), [])
    }

    func testCopyDurablyFailuresNameThePathAndLeaveNothing() throws {
        XCTAssertThrowsError(try Files.copyDurably(folder + "/missing", to: folder + "/copy")) { error in
            XCTAssertEqual("\(error)", "could not open \(folder)/missing: No such file or directory")
        }
        XCTAssertFalse(Files.exists(folder + "/copy"))

        try Files.writeDurably(pattern(100), to: folder + "/source")
        Files.injectedWriteFailure = ENOSPC
        defer { Files.injectedWriteFailure = nil }
        XCTAssertThrowsError(try Files.copyDurably(folder + "/source", to: folder + "/copy")) { error in
            XCTAssertEqual("\(error)", "could not write \(folder)/copy: No space left on device")
        }
        XCTAssertEqual(Files.list(folder), ["source"])
    }

    func testSameContentsComparesEveryByte() throws {
        let bytes = pattern(1_048_576 * 2 + 3)
        try Files.writeDurably(bytes, to: folder + "/a")
        try Files.writeDurably(bytes, to: folder + "/b")
        XCTAssertTrue(Files.sameContents(folder + "/a", folder + "/b"))

        for position in [0, 1_048_575, 1_048_576, bytes.count - 1] {
            var changed = bytes
            changed[position] ^= 0x01
            try Files.writeDurably(changed, to: folder + "/b")
            XCTAssertFalse(Files.sameContents(folder + "/a", folder + "/b"), "one bit differs at \(position)")
        }
        try Files.writeDurably(Array(bytes.dropLast()), to: folder + "/b")
        XCTAssertFalse(Files.sameContents(folder + "/a", folder + "/b"), "one byte shorter")
        XCTAssertFalse(Files.sameContents(folder + "/a", folder + "/missing"))

        try Files.writeDurably([], to: folder + "/e1")
        try Files.writeDurably([], to: folder + "/e2")
        XCTAssertTrue(Files.sameContents(folder + "/e1", folder + "/e2"))
    }

    func testSameComparesBytes() {
        XCTAssertTrue(Files.same([], []))
        XCTAssertTrue(Files.same([1, 2, 3], [1, 2, 3]))
        XCTAssertFalse(Files.same([1, 2, 3], [1, 2, 4]))
        XCTAssertFalse(Files.same([1, 2, 3], [1, 2]))
    }
}
