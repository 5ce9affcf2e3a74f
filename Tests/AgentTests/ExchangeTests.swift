import DBusKit
import Foundation
import TestSupport
import XCTest

/// `Import` and `Export` over the bus: the contract's keys, named errors, nothing changed by a
/// refused or dry-run import, and an agent that survives hostile files.
final class AgentExchangeTests: XCTestCase {
    var agent: AgentHarness!

    override func setUpWithError() throws {
        agent = try AgentHarness(environment: ["TZ": "Europe/Berlin"])
    }

    override func tearDown() {
        agent?.assertAlive("at the end of the test")
        agent?.tearDown()
    }

    private func write(_ name: String, _ text: String) throws -> String {
        let path = agent.data.file(name)
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testImportAnswersWithTheContractsKeysAndAddsNothingTwice() throws {
        let file = try write("2025-11.data", """
            inc 20251124T210000Z - 20251125T003000Z # Writing "tag with space"
            inc 20251125T080000Z - 20251125T091500Z # "Client, \\"Big\\"" Reviews # "fixed \\"bug\\""
            inc 20251201T080000Z # Writing

            """)
        let dry = try XCTUnwrap(agent.call("Import", [.string("timewarrior"), .string(file), .bool(true)]).first?.variantDictionary)
        XCTAssertEqual(dry["sessions"]?.uint64Value, 2)
        XCTAssertEqual(try agent.projects().count, 0, "a dry run changes nothing")
        let result = try XCTUnwrap(agent.call("Import", [.string("timewarrior"), .string(file), .bool(false)]).first?.variantDictionary)
        XCTAssertEqual(result["sessions"]?.uint64Value, 2)
        XCTAssertEqual(result["skipped"]?.uint64Value, 0)
        XCTAssertEqual(result["projects"]?.arrayValue?.compactMap(\.stringValue), ["Writing", "Client, \"Big\""])
        XCTAssertEqual(result["categories"]?.arrayValue?.count, 0)
        XCTAssertEqual(result["from"]?.int64Value, 1_764_018_000)
        XCTAssertEqual(result["to"]?.int64Value, 1_764_062_100)
        let warnings = result["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        XCTAssertEqual(warnings.count, 2, "\(warnings)")
        XCTAssertTrue(warnings[0].contains("running Timewarrior interval"), warnings[0])
        XCTAssertTrue(warnings[1].contains("first tag in byte order"), warnings[1])
        let again = try XCTUnwrap(agent.call("Import", [.string("timewarrior"), .string(file), .bool(false)]).first?.variantDictionary)
        XCTAssertEqual(again["sessions"]?.uint64Value, 0)
        XCTAssertEqual(again["skipped"]?.uint64Value, 2)
        XCTAssertEqual(again["from"]?.int64Value, 0)
        XCTAssertEqual(try agent.sessions().count, 2)

        let csv = try XCTUnwrap(agent.call("Export", [.string("csv"), .int64(0), .int64(0), .uint64(0)]).first?.stringValue)
        XCTAssertTrue(csv.hasPrefix("id,project,category,start,end,duration_seconds,duration,note\r\n"))
        XCTAssertTrue(csv.contains(",Writing,,2025-11-24T22:00:00+01:00,2025-11-25T01:30:00+01:00,12600,3:30:00,#tag_with_space\r\n"), csv)
        let ical = try XCTUnwrap(agent.call("Export", [.string("ical"), .int64(1_764_057_600), .int64(1_764_100_000), .uint64(0)]).first?.stringValue)
        XCTAssertEqual(ical.components(separatedBy: "BEGIN:VEVENT").count - 1, 1, "only the session overlapping the range")
    }

    func testBadInputIsANamedErrorAndChangesNothing() throws {
        _ = try agent.createProject("Kept")
        let bad = try write("frames", "[[1764018000, 1764030600, \"Writing\", \"667dd51eb2d74021bee02122e8c32cc0\", [], 1]," +
                            " [1764030600, \"oops\"]]")
        let message = assertBusError("io.github.timetracker.Time1.Error.InvalidArgument") {
            try agent.call("Import", [.string("watson"), .string(bad), .bool(false)])
        }
        XCTAssertTrue(message?.contains(bad) == true && message?.contains("frame 2") == true, message ?? "")
        let hostile: [(String, String)] = [
            ("hamster", try write("hamster.db", "not a database")), ("json", try write("x.json", "{\"format\": 1}")),
            ("csv", try write("x.csv", "id,project\r\n\"unterminated")), ("timewarrior", try write("2025-01.data", "inc \u{0}\n")),
            ("watson", agent.data.file("missing")), ("timewarrior", "/proc/self/mem"), ("json", ""),
        ]
        for (format, path) in hostile {
            assertBusError("io.github.timetracker.Time1.Error.InvalidArgument", "\(format) \(path)") {
                try agent.call("Import", [.string(format), .string(path), .bool(false)])
            }
        }
        assertBusError("io.github.timetracker.Time1.Error.InvalidArgument") { try agent.call("Import", [.string("toggl"), .string(""), .bool(true)]) }
        assertBusError("io.github.timetracker.Time1.Error.InvalidArgument") { try agent.call("Export", [.string("xlsx"), .int64(0), .int64(0), .uint64(0)]) }
        assertBusError("io.github.timetracker.Time1.Error.NoSuchProject") { try agent.call("Export", [.string("csv"), .int64(0), .int64(0), .uint64(99)]) }
        XCTAssertEqual(try agent.projects().count, 1)
        XCTAssertEqual(try agent.sessions().count, 0)
    }
}
