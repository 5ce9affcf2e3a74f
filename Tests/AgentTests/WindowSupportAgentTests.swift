import DBusKit
import Foundation
import TestSupport
import XCTest

/// What the window's Preferences and Week view ask of the agent: `DataFolder` (where the data is,
/// which only the agent knows: it may run with `--data-dir`), and `ReportPNG`'s `scheme` option
/// (the chart drawn for a dark colour scheme); a bad scheme refused by name.
final class WindowSupportAgentTests: XCTestCase {
    var agent: AgentHarness!

    override func setUpWithError() throws { agent = try AgentHarness(environment: ["TZ": "UTC"]) }
    override func tearDown() { agent?.tearDown() }

    private func png(_ options: [String: DBusValue]) throws -> [UInt8] {
        try XCTUnwrap(try agent.call("ReportPNG", [.string("this-week"), .vardict(options)]).first?.arrayValue).compactMap(\.byteValue)
    }

    func testDataFolderIsWhereTheAgentKeepsTheStore() throws {
        let folder = try XCTUnwrap(try agent.property("DataFolder").stringValue)
        XCTAssertEqual(folder, agent.dataDirectory)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder + "/time.sqlite"))
    }

    func testReportPNGDrawsTheChartForTheSchemeAskedFor() throws {
        let writing = try agent.createProject("Writing", color: "#3366cc")
        try agent.call("AddSession", [.uint64(writing), .int64(Int64(Date().timeIntervalSince1970) - 7200), .string("1h"), .string("")])
        let plain = try png([:]), light = try png(["scheme": .string("light")]), dark = try png(["scheme": .string("dark")])
        XCTAssertEqual(Array(dark.prefix(4)), [0x89, 0x50, 0x4E, 0x47])
        XCTAssertEqual(plain, light, "light is the default")
        XCTAssertNotEqual(dark, light)
        for bad in [DBusValue.string("blue"), .bool(true)] {
            let message = assertBusError(ContractError.invalidArgument, "scheme \(bad)") {
                try self.agent.call("ReportPNG", [.string("this-week"), .vardict(["scheme": bad])])
            }
            XCTAssertTrue(message?.contains("\"light\" or \"dark\"") == true, message ?? "")
        }
        agent.assertAlive("after the refusals")
    }
}
