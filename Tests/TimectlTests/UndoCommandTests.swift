import Foundation
import TestSupport
import XCTest

/// `timectl undo`, `redo` and `history` against the real agent (D-Bus activation, private bus).
final class UndoCommandTests: XCTestCase {
    var bus: TestBus!

    override func setUpWithError() throws { bus = try TestBus() }
    override func tearDown() {
        bus?.stop()
        bus = nil
    }

    @discardableResult
    private func ok(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try bus.succeeded(arguments, file: file, line: line)
    }

    private func refused(_ arguments: String..., containing text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try bus.runArray(arguments, env: [:])
        XCTAssertEqual(result.status, 1, "\(arguments): \(result.stdout) \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.lowercased().contains(text.lowercased()), "\(arguments): \(result.stderr)", file: file, line: line)
    }

    func testUndoRedoAndHistory() throws {
        XCTAssertEqual(try ok("history"), "No changes yet.\n")
        try refused("undo", containing: "nothing to undo")
        try refused("redo", containing: "nothing to redo")

        try ok("projects", "add", "Writing")
        try ok("start", "Writing")
        try ok("stop")
        let history = try ok("history")
        let lines = history.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, history) // header + 3 steps
        XCTAssertTrue(lines[1].contains("Stopped Writing at "), history)
        XCTAssertTrue(lines[2].contains("Started Writing at "), history)
        XCTAssertTrue(lines[3].contains("Created project Writing"), history)

        let undone = try ok("undo")
        XCTAssertTrue(undone.hasPrefix("Undone: Stopped Writing at "), undone)
        XCTAssertTrue(try ok("status").contains("State:    running"))
        XCTAssertTrue(try ok("history", "--count", "1").contains("(undone)"))
        let json = try XCTUnwrap(try bus.runArray(["history", "--json"], env: [:]).json() as? [[String: Any]])
        XCTAssertEqual(json.count, 3)
        XCTAssertEqual(json.first?["undone"] as? Bool, true)
        XCTAssertEqual(Set(json.first?.keys.map { $0 } ?? []), ["id", "time", "description", "undone"])

        XCTAssertTrue(try ok("redo").hasPrefix("Redone: Stopped Writing at "))
        XCTAssertTrue(try ok("status").contains("State:    idle"))
        let usage = try bus.runArray(["history", "--count", "lots"], env: [:])
        XCTAssertEqual(usage.status, 2, usage.stderr)
    }
}
