import Foundation
import Glibc
import XCTest
@testable import TimeCore

/// A clock the test moves by hand: time never passes on its own, nothing ever sleeps.
final class TestClock: Clock {
    var time: Int64
    init(_ time: Int64) { self.time = time }
    func now() -> Int64 { time }
    func advance(_ seconds: Int64) { time += seconds }
}

/// Unix seconds of a UTC wall-clock time (timegm ignores TZ), so expected values never come
/// from the code under test.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0) -> Int64 {
    var parts = tm()
    parts.tm_year = Int32(year - 1900)
    parts.tm_mon = Int32(month - 1)
    parts.tm_mday = Int32(day)
    parts.tm_hour = Int32(hour)
    parts.tm_min = Int32(minute)
    parts.tm_sec = Int32(second)
    return Int64(timegm(&parts))
}

/// A fresh temporary directory (mkdtemp), removed by the test's tearDown.
func makeTemporaryDirectory() throws -> String {
    var template = Array((NSTemporaryDirectory() + "/timecore-tests-XXXXXX").utf8CString)
    guard let result = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw NSError(domain: "mkdtemp", code: Int(errno))
    }
    return String(cString: result)
}

/// Asserts that `body` throws a `TrackerError` with the contract name `name`; returns its message.
@discardableResult
func assertTrackerError<T>(_ name: String, _ body: @autoclosure () throws -> T,
                           file: StaticString = #filePath, line: UInt = #line) -> String {
    var message = ""
    XCTAssertThrowsError(try body(), file: file, line: line) { error in
        guard let error = error as? TrackerError else {
            XCTFail("expected TrackerError.\(name), got \(error)", file: file, line: line)
            return
        }
        XCTAssertEqual(error.name, name, "message: \(error.message)", file: file, line: line)
        XCTAssertFalse(error.message.isEmpty, file: file, line: line)
        message = error.message
    }
    return message
}

/// Each test gets its own directory, store and clock.
class TrackerTestCase: XCTestCase {
    var directory: String!
    var clock: TestClock!
    var tracker: Tracker!
    var path: String { directory + "/time.sqlite" }
    /// A Monday morning, 2026-06-01 08:00 UTC.
    let base = utc(2026, 6, 1, 8)

    override func setUpWithError() throws {
        try super.setUpWithError()
        directory = try makeTemporaryDirectory()
        clock = TestClock(base)
        let store = try Store(path: path, create: true)
        tracker = try Tracker(store: store, clock: clock)
    }

    override func tearDownWithError() throws {
        tracker = nil
        if let directory { try? FileManager.default.removeItem(atPath: directory) }
        try super.tearDownWithError()
    }

    /// Closes the store and opens the same file again, as a restarted agent would.
    @discardableResult
    func reopen() throws -> Tracker {
        tracker = nil
        let store = try Store(path: path, create: false)
        tracker = try Tracker(store: store, clock: clock)
        return tracker
    }

    func allSessions() throws -> [WorkSession] { try tracker.store.allSessions() }

    func segmentRowCount() throws -> Int64 {
        try tracker.store.database.queryFirst("SELECT count(*) FROM segments") { $0.int(0) } ?? -1
    }
}

/// Runs `body` with `TZ` set to `zone`, restoring the previous value afterwards.
func withTimeZone<T>(_ zone: String, _ body: () throws -> T) rethrows -> T {
    let previous = getenv("TZ").map { String(cString: $0) }
    setenv("TZ", zone, 1)
    tzset()
    defer {
        if let previous { setenv("TZ", previous, 1) } else { unsetenv("TZ") }
        tzset()
    }
    return try body()
}
