import Foundation
import TestSupport
import XCTest

/// start, toggle, stop and status speak the bus's wire protocol themselves on a Unix socket and
/// leave any other address to libdbus: every form of DBUS_SESSION_BUS_ADDRESS gives the same
/// answers, and the first call starts the agent through D-Bus activation in each.
final class BusAddressTests: XCTestCase {
    /// The daemon's address without its guid= (so the calls go out with the authentication).
    static func withoutGUID(_ address: String) -> String {
        address.split(separator: ",").filter { !$0.hasPrefix("guid=") }.joined(separator: ",")
    }

    /// `unix:path=` with every byte of the path %-escaped.
    static func escaped(_ address: String) -> String? {
        guard let path = withoutGUID(address).split(separator: ",").first(where: { $0.hasPrefix("unix:path=") })?
            .dropFirst("unix:path=".count) else { return nil }
        return "unix:path=" + path.utf8.map { String(format: "%%%02x", $0) }.joined()
    }

    func testEveryAddressFormReachesTheAgent() throws {
        let forms: [(String, (String) -> String?)] = [
            ("the daemon's own, with guid=", { $0 }),
            ("without guid=", { BusAddressTests.withoutGUID($0) }),
            ("escaped", { BusAddressTests.escaped($0) }),
            ("a list whose first entry is not there", { "unix:abstract=/time-test-nobody-\(getpid());" + BusAddressTests.withoutGUID($0) }),
            ("a list that starts with TCP (libdbus)", { "tcp:host=127.0.0.1,port=1;" + $0 }),
        ]
        for (name, make) in forms {
            let bus = try TestBus()
            defer { bus.stop() }
            let address = try XCTUnwrap(make(bus.address), name)
            func run(_ arguments: String...) throws -> String {
                let result = try bus.timectl(arguments, env: ["DBUS_SESSION_BUS_ADDRESS": address])
                XCTAssertEqual(result.status, 0, "\(name) \(address): \(arguments): \(result.stderr)")
                XCTAssertEqual(result.stderr, "", "\(name): \(arguments)")
                return result.stdout
            }
            XCTAssertNil(bus.agentPID(), name)
            XCTAssertTrue(try run("status").hasPrefix("State:    idle\n"), name)   // activates the agent
            XCTAssertNotNil(bus.agentPID(), name)
            _ = try run("projects", "add", "Writing")
            XCTAssertEqual(try run("start", "writing"), "Started Writing (session 1).\n", name)
            XCTAssertEqual(try run("toggle"), "paused\n", name)
            let status = try run("status")
            XCTAssertTrue(status.hasPrefix("State:    paused\nProject:  Writing\n"), "\(name): \(status)")
            XCTAssertEqual(try run("stop"), "Stopped session 1.\n", name)
        }
    }
}

private extension TestBus {
    func timectl(_ arguments: [String], env: [String: String]) throws -> CommandResult {
        try Command.run(Products.timectl, arguments, exactEnvironment: environment(env), timeout: 20)
    }
}
