import DBusKit
import TestSupport
import XCTest

/// Messages as large as a session bus passes on (the stress fuzzer's call #13829 with seed
/// 20261204: a Properties.Set of the wrong signature carrying a 1,000-item `a(txxss)` of hostile
/// strings, over 32 MiB): the agent answers with a named error, changes nothing and stays up,
/// and the bus keeps the caller connected.
final class LargeMessageTests: XCTestCase {
    private var agent: AgentHarness!

    override func setUpWithError() throws { agent = try AgentHarness() }

    override func tearDown() {
        agent?.assertAlive("at the end of the test")
        agent?.tearDown()
    }

    private func hostileRows(count: Int, text: String) -> DBusValue {
        .array(elementSignature: "(txxss)", (0..<count).map { index in
            .structure([.uint64(UInt64(index)), .int64(.min), .int64(.max), .string(text), .string("<b>R&D \"lab\"</b>")])
        })
    }

    func testAPropertySetOfFortyMebibytesIsInvalidArgs() throws {
        let rows = hostileRows(count: 40, text: String(repeating: "x", count: 1 << 20))
        XCTAssertGreaterThan(WireLength([rows]).body, 40 << 20)
        XCTAssertTrue(WireLength([.variant(rows)]).fitsTheBus)
        let before = try agent.allProperties()
        assertBusError(BusError.invalidArgs, "Properties.Set with a 40 MiB value of another type") {
            try agent.client.call(destination: AgentProcess.busName, path: AgentProcess.path,
                                  interface: "org.freedesktop.DBus.Properties", member: "Set",
                                  arguments: [.string(AgentProcess.interface), .string("ReminderMinutes"), .variant(rows)])
        }
        // Wrong arguments altogether (not ssv): refused before any property is looked at.
        assertBusError(BusError.invalidArgs, "Properties.Set with a 40 MiB array as its arguments") {
            try agent.client.call(destination: AgentProcess.busName, path: AgentProcess.path,
                                  interface: "org.freedesktop.DBus.Properties", member: "Set", arguments: [rows])
        }
        XCTAssertEqual(try agent.allProperties().filter { $0.key != "ActiveSeconds" }, before.filter { $0.key != "ActiveSeconds" })
        XCTAssertEqual(try agent.state(), "idle", "the client is still connected and the agent answers")
    }

    func testAMethodCallOfNinetyMebibytesIsRefusedByName() throws {
        let text = String(repeating: "é", count: 1 << 19)   // 1 MiB of UTF-8
        let rows = hostileRows(count: 45, text: text)
        XCTAssertTrue(WireLength([rows, rows]).fitsTheBus)
        assertBusError(BusError.invalidArgs, "StartProject with two 45 MiB arrays") {
            try agent.call("StartProject", [rows, rows])
        }
        let message = assertBusError(ContractError.invalidArgument, "CreateProject with a 1 MiB name") {
            try agent.call("CreateProject", [.string(text), .string(""), .string("")])
        }
        XCTAssertLessThan(message?.utf8.count ?? 0, 1_000, "the error does not echo the name back")
        XCTAssertEqual(try agent.call("ListProjects").first?.arrayValue?.count, 0, "nothing was created")
        XCTAssertEqual(try agent.state(), "idle")
    }
}
