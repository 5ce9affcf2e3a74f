import DBusKit
import Foundation
import TestSupport
import XCTest

/// The command lines of the contract's "Calling it from a shortcut" section, run as real
/// processes exactly as written (split on spaces, as a shell would: they hold no quotes).
/// `busctl --user` and `gdbus --session` find the private bus through DBUS_SESSION_BUS_ADDRESS.
final class CommandLineTests: XCTestCase {
    static let startWriting = "busctl --user call io.github.timetracker.Time1 /io/github/timetracker/Time1 io.github.timetracker.Time1 StartProject s Writing"
    static let toggle = "gdbus call --session --dest io.github.timetracker.Time1 --object-path /io/github/timetracker/Time1 --method io.github.timetracker.Time1.Toggle"
    static let getState = "busctl --user get-property io.github.timetracker.Time1 /io/github/timetracker/Time1 io.github.timetracker.Time1 State"

    private func run(_ line: String, _ agent: AgentHarness) throws -> CommandResult {
        let words = line.split(separator: " ").map(String.init)
        // Only the private bus' address: no XDG_RUNTIME_DIR fallback to some other session bus.
        var environment = agent.bus.environment
        environment["XDG_RUNTIME_DIR"] = agent.data.path
        return try Command.run(words[0], Array(words.dropFirst()), environment: environment)
    }

    func testTheShortcutCommandLinesOfTheContract() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }

        let missing = try run(Self.startWriting, agent)
        XCTAssertNotEqual(missing.status, 0, "no project Writing yet")
        XCTAssertTrue(missing.stderr.contains("no project named \"Writing\""), missing.stderr)

        try agent.createProject("Writing")
        let started = try run(Self.startWriting, agent)
        XCTAssertEqual(started.status, 0, started.stderr)
        let session = try XCTUnwrap(try agent.property("SessionId").uint64Value)
        XCTAssertEqual(started.stdout, "t \(session)\n", "busctl --user reached the agent on the private bus")
        XCTAssertEqual(try run(Self.getState, agent).stdout, "s \"running\"\n")

        let paused = try run(Self.toggle, agent)
        XCTAssertEqual(paused.status, 0, paused.stderr)
        XCTAssertEqual(paused.stdout, "('paused',)\n")
        XCTAssertEqual(try agent.state(), "paused")
        let state = try run(Self.getState, agent)
        XCTAssertEqual(state.status, 0, state.stderr)
        XCTAssertEqual(state.stdout, "s \"paused\"\n")

        XCTAssertEqual(try run(Self.toggle, agent).stdout, "('running',)\n")
        XCTAssertEqual(try run(Self.startWriting, agent).stdout, "t \(session)\n", "the same project: the open session")
        XCTAssertEqual(try run(Self.getState, agent).stdout, "s \"running\"\n")

        try agent.call("Stop")
        XCTAssertEqual(try run(Self.getState, agent).stdout, "s \"idle\"\n")
        XCTAssertEqual(try run(Self.toggle, agent).stdout, "('running',)\n", "from idle, Toggle starts the last project")
        XCTAssertEqual(try agent.property("Project"), .string("Writing"))
    }

    func testAContractErrorReachesGdbusByName() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        var environment = agent.bus.environment
        environment["XDG_RUNTIME_DIR"] = agent.data.path
        let toggle = try Command.run("gdbus", Array(Self.toggle.split(separator: " ").map(String.init).dropFirst()), environment: environment)
        XCTAssertNotEqual(toggle.status, 0)
        XCTAssertTrue(toggle.stderr.contains("io.github.timetracker.Time1.Error.NoSuchProject"), toggle.stderr)
        let pause = try Command.run("gdbus", ["call", "--session", "--dest", AgentProcess.busName, "--object-path", AgentProcess.path,
                                              "--method", AgentProcess.interface + ".Pause"], environment: environment)
        XCTAssertTrue(pause.stderr.contains("io.github.timetracker.Time1.Error.NoCurrentSession"), pause.stderr)
    }
}
