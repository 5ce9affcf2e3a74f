import Foundation
import TestSupport
import XCTest

/// `timectl focus` against a D-Bus-activated agent: each subcommand's words, its errors and exit
/// codes, the settings, undo, and the phase in `timectl watch`.
final class FocusCommandTests: XCTestCase {
    var bus: TestBus!

    override func setUpWithError() throws { bus = try TestBus() }
    override func tearDown() {
        bus?.stop()
        bus = nil
    }

    @discardableResult
    func run(_ arguments: String..., status expected: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try bus.runArray(arguments, env: [:])
        XCTAssertEqual(result.status, expected, "\(arguments): \(result.stdout) \(result.stderr)", file: file, line: line)
        return expected == 0 ? result.stdout : result.stderr
    }

    func testFocusCommands() throws {
        XCTAssertTrue(try run("focus", status: 1).contains("no project to focus on"))
        try run("projects", "add", "Writing")
        XCTAssertTrue(try run("focus", "status").hasPrefix("No focus cycle (timectl focus PROJECT starts one); 0 focus phases today.\n"))
        let started = try run("focus", "Writing")
        XCTAssertTrue(started.hasPrefix("Focus on Writing until ") && started.hasSuffix(" (session 1).\n"), started)
        var status = try run("focus", "status").split(separator: "\n")
        XCTAssertTrue(status[0].hasPrefix("Focus until ") && status[0].hasSuffix("(25 min left); 0 focus phases today."), "\(status)")
        XCTAssertEqual(status[1], "Focus 25 min, break 5 min, long break 15 min after every 4; each phase waits for you; breaks pause the session.")
        XCTAssertTrue(try run("focus", "extend", "5m").contains("(30 min left)"))
        for bad in ["0", "61", "90s", "soon"] {
            XCTAssertTrue(try run("focus", "extend", bad, status: 2).contains("whole minutes from 1 to 60"), bad)
        }
        XCTAssertTrue(try run("focus", "skip").hasPrefix("Break until "))
        XCTAssertEqual(try run("status", "--json").contains("\"paused\""), true, "the break paused the session")
        XCTAssertTrue(try run("focus", "skip").hasPrefix("Focus until "))

        XCTAssertEqual(try run("focus", "set", "--focus", "50m", "--break", "10", "--long", "20m", "--every", "3", "--auto", "--no-pause-in-breaks"),
                       "Focus 50 min, break 10 min, long break 20 min after every 3; the next phase starts by itself; breaks leave the session running.\n")
        XCTAssertTrue(try run("focus", "set", "--auto", "--no-auto", status: 2).contains("not both"))
        XCTAssertTrue(try run("focus", "set", status: 2).contains("nothing to set"))
        XCTAssertTrue(try run("focus", "set", "--focus", "0", status: 2).contains("whole minutes from 1 to 240"))
        XCTAssertTrue(try run("focus", "set", "--every", "13", status: 1).contains("LongBreakEvery"))
        try run("undo")
        XCTAssertTrue(try run("focus", "status").hasSuffix("; breaks pause the session.\n"), "undo took the last setting back")

        XCTAssertEqual(try run("focus", "stop"), "The focus cycle ended.\n")
        status = try run("focus", "status").split(separator: "\n")
        XCTAssertTrue(status[0].hasPrefix("No focus cycle"))
        XCTAssertTrue(try run("focus", "skip", status: 1).contains("no focus cycle"))
        XCTAssertTrue(try run("status").contains("Writing"), "the session went on")
        XCTAssertTrue(try run("focus", "--help").contains("timectl focus -- stop"))
    }

    func testWatchShowsTheMinutesLeft() throws {
        try run("projects", "add", "Writing")
        try run("focus", "Writing")
        let watch = try LineReader(["watch"], environment: bus.environment())
        defer { watch.stop() }
        let line = waybar(watch.line(0, timeout: 5))
        XCTAssertEqual(line["text"] as? String, "Writing 0:00 ◔ 25 min")
        XCTAssertTrue((line["tooltip"] as? String ?? "").contains("Focus until "))
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try run("status", "--format", "json").utf8)) as? [String: Any])
        XCTAssertEqual(json["focus"] as? String, "focus")
    }
}
