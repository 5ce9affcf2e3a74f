import Foundation
import TestSupport
import XCTest

/// start, toggle, stop and status speak the bus's wire protocol themselves on a Unix socket and
/// leave any other address to libdbus: every form of DBUS_SESSION_BUS_ADDRESS gives the same
/// answers, on dbus-daemon and on dbus-broker (TIME_TEST_BUS), and where the bus activates (dbus-daemon)
/// the first call starts the agent in each.
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

    /// The address naming the id the bus authenticates with (dbus-daemon prints it in its
    /// address; dbus-broker's address, like systemd's, has none), as libdbus learnt it.
    static func withGUID(_ bus: TestBus) throws -> String {
        let client = try bus.bus.connect()
        defer { client.close() }
        return withoutGUID(bus.address) + ",guid=" + (try XCTUnwrap(client.serverID))
    }

    func testEveryAddressFormReachesTheAgent() throws {
        let forms: [(String, PrivateBus.Socket, (TestBus) throws -> String?)] = [
            ("the bus's own", .path, { $0.address }),
            ("without guid=", .path, { BusAddressTests.withoutGUID($0.address) }),
            ("with the bus's guid=", .path, { try BusAddressTests.withGUID($0) }),
            ("escaped", .path, { BusAddressTests.escaped($0.address) }),
            ("a list whose first entry is not there", .path,
             { "unix:abstract=/time-test-nobody-\(getpid());" + BusAddressTests.withoutGUID($0.address) }),
            ("a list that starts with TCP (libdbus)", .path, { "tcp:host=127.0.0.1,port=1;" + $0.address }),
            ("an abstract socket", .abstract, { BusAddressTests.withoutGUID($0.address) }),
            ("an abstract socket with the bus's guid=", .abstract, { try BusAddressTests.withGUID($0) }),
        ]
        for (name, socket, make) in forms {
            let bus = try TestBus(socket: socket)
            defer { bus.stop() }
            let address = try XCTUnwrap(try make(bus), name)
            func run(_ arguments: String...) throws -> String {
                let result = try bus.timectl(arguments, env: ["DBUS_SESSION_BUS_ADDRESS": address])
                XCTAssertEqual(result.status, 0, "\(name) \(address): \(arguments): \(result.stderr)")
                XCTAssertEqual(result.stderr, "", "\(name): \(arguments)")
                return result.stdout
            }
            if bus.activates { XCTAssertNil(bus.agentPID(), name) }
            XCTAssertTrue(try run("status").hasPrefix("State:    idle\n"), name)   // activates the agent (dbus-daemon)
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
