import DBusKit
import Foundation
import TestSupport
import TimeCore
import XCTest

/// `timectl away`: the list, its JSON, and the three answers, against a D-Bus-activated agent
/// whose data holds a session running for an hour.
final class AwayCommandTests: XCTestCase {
    private final class Then: TimeCore.Clock {
        let time: Int64
        init(_ time: Int64) { self.time = time }
        func now() -> Int64 { time }
    }

    func testListAndAnswer() throws {
        let bus = try TestBus()
        defer { bus.stop() }
        let start = Int64(Date().timeIntervalSince1970) - 3600
        do {
            let home = try DataHome(directory: bus.dataDirectory, clock: Then(start))
            try home.tracker.createProject(name: "Writing", color: "", category: "")
            try home.tracker.startProject("Writing")
            home.tracker.tidyUp()
        }
        var result = try bus.timectl("away")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "No away time is waiting for an answer.\n")

        let client = try bus.bus.connect()
        defer { client.close() }
        try client.agent("MarkAway", [.string("lock"), .uint32(1800)])
        try client.agent("MarkBack")

        result = try bus.timectl("away")
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, result.stdout)
        XCTAssertTrue(lines.first?.hasPrefix("ID") == true, result.stdout)
        XCTAssertTrue(lines.last?.contains("0:30") == true && lines.last?.contains("lock") == true
                      && lines.last?.contains("Writing") == true, result.stdout)

        result = try bus.timectl("away", "--json")
        let list = try XCTUnwrap(result.json() as? [[String: Any]])
        XCTAssertEqual(list.count, 1)
        XCTAssertEqual(list.first?["reason"] as? String, "lock")
        XCTAssertEqual(list.first?["project"] as? String, "Writing")
        XCTAssertEqual(list.first?["id"] as? Int, 1)

        result = try bus.timectl("away", "keep", "7")
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("no pending away time with id 7"), result.stderr)
        result = try bus.timectl("away", "keep", "soon")
        XCTAssertEqual(result.status, 2, result.stderr)

        result = try bus.timectl("away", "discard")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "Discarded the away time.\n")
        XCTAssertEqual(try bus.timectl("away").stdout, "No away time is waiting for an answer.\n")
        result = try bus.timectl("away", "stop")
        XCTAssertEqual(result.status, 1, "nothing pending: NoSuchAway")
        XCTAssertTrue(result.stderr.contains("Nothing is waiting"), result.stderr)
    }
}
