import DBusKit
import Foundation
import TestSupport
import XCTest

/// `time-agent --activate`, what the autostart entry runs at login: the bus starts the agent
/// (D-Bus activation), never a second one however many ask at once, and where the bus cannot
/// start it the process serves itself.
final class LoginStartTests: XCTestCase {
    /// A dbus-daemon (it reads activation files itself) whose activation file starts the built
    /// agent on `data`, logging to `log`.
    private func activatingBus(data: String, log: String) throws -> PrivateBus {
        let bus = try PrivateBus(kind: .dbusDaemon)
        try bus.installService(name: AgentProcess.busName,
                               exec: "/bin/sh -c 'exec \(Products.agent) --data-dir \(data) --no-notifications >>\(log) 2>&1'")
        return bus
    }

    private func ownerPID(_ client: BusConnection) throws -> Int32? {
        guard (try client.nameHasOwner(AgentProcess.busName)) else { return nil }
        let owner = try client.getNameOwner(AgentProcess.busName)
        return try client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                               member: "GetConnectionUnixProcessID", arguments: [.string(owner)]).first?.uint32Value.map(Int32.init)
    }

    private func activate(_ bus: PrivateBus, data: String, log: String) throws -> Process {
        try Command.start(Products.agent, ["--activate", "--data-dir", data, "--no-notifications"],
                          environment: bus.environment.merging(["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent/time-test-system-bus"]) { $1 },
                          log: log)
    }

    func testActivateHasTheBusStartTheAgentAndExitsZero() throws {
        let folder = TemporaryDirectory("time-login")
        defer { folder.remove() }
        let bus = try activatingBus(data: folder.file("data"), log: folder.file("activated.log"))
        defer { bus.stop() }
        let client = try bus.connect()
        defer { client.close() }

        let login = try activate(bus, data: folder.file("other-data"), log: folder.file("login.log"))
        XCTAssertTrue(TestSupport.wait(seconds: 20) { !login.isRunning }, "--activate keeps running")
        let said = (try? String(contentsOfFile: folder.file("login.log"), encoding: .utf8)) ?? ""
        XCTAssertEqual(login.terminationStatus, 0, said)
        XCTAssertTrue(said.contains("the session bus started \(AgentProcess.busName)"), said)
        let pid = try XCTUnwrap(try ownerPID(client), "no agent owns the name after --activate")
        defer { kill(pid, SIGTERM); TestSupport.wait(seconds: 5) { kill(pid, 0) != 0 } }
        XCTAssertNotEqual(pid, login.processIdentifier)
        let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8))?.replacingOccurrences(of: "\0", with: " ") ?? ""
        XCTAssertTrue(command.contains("--data-dir \(folder.file("data")) ") && !command.contains("--activate"),
                      "not the agent the activation file starts: \(command)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.file("data") + "/time.sqlite"),
                      "the activated agent keeps the data where its activation file says, not where --activate's options did")

        // Again, with the agent running: nothing new starts.
        let again = try activate(bus, data: folder.file("other-data"), log: folder.file("again.log"))
        XCTAssertTrue(TestSupport.wait(seconds: 20) { !again.isRunning })
        XCTAssertEqual(again.terminationStatus, 0)
        XCTAssertTrue(((try? String(contentsOfFile: folder.file("again.log"), encoding: .utf8)) ?? "").contains("was running already"))
        XCTAssertEqual(try ownerPID(client), pid)
    }

    /// A login: the autostart entry and several clients at the same instant. One agent starts.
    func testAutostartAndClientsAtTheSameMomentStartOneAgent() throws {
        let folder = TemporaryDirectory("time-login")
        defer { folder.remove() }
        let log = folder.file("activated.log")
        let bus = try activatingBus(data: folder.file("data"), log: log)
        defer { bus.stop() }
        let client = try bus.connect()
        defer { client.close() }

        var started: [Process] = []
        for index in 0..<5 {
            started.append(try activate(bus, data: folder.file("data"), log: folder.file("login-\(index).log")))
            started.append(try Command.start("dbus-send", ["--session", "--print-reply", "--dest=\(AgentProcess.busName)",
                                                           AgentProcess.path, "\(AgentProcess.interface).GetStatus"],
                                             environment: bus.environment))
        }
        XCTAssertTrue(TestSupport.wait(seconds: 30) { started.allSatisfy { !$0.isRunning } }, "a login start or a client hangs")
        for process in started { XCTAssertEqual(process.terminationStatus, 0, "\(process.arguments ?? [])") }
        let pid = try XCTUnwrap(try ownerPID(client))
        defer { kill(pid, SIGTERM); TestSupport.wait(seconds: 5) { kill(pid, 0) != 0 } }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        XCTAssertEqual(text.components(separatedBy: "serving \(AgentProcess.busName)").count - 1, 1, "agents started: \(text)")
        XCTAssertFalse(text.contains("already"), text)
    }

    /// No activation file where the bus looks (or a bus that activates only through systemd):
    /// --activate serves in its own process.
    func testActivateServesItselfWhereTheBusCannotStartTheAgent() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let folder = TemporaryDirectory("time-login")
        defer { folder.remove() }
        let client = try bus.connect()
        defer { client.close() }
        let login = try activate(bus, data: folder.file("data"), log: folder.file("login.log"))
        defer { Command.stop(login) }
        XCTAssertTrue(TestSupport.wait(seconds: 15) { (try? ownerPID(client)) == login.processIdentifier },
                      (try? String(contentsOfFile: folder.file("login.log"), encoding: .utf8)) ?? "")
        let said = (try? String(contentsOfFile: folder.file("login.log"), encoding: .utf8)) ?? ""
        XCTAssertTrue(said.contains("could not start \(AgentProcess.busName)") && said.contains("serving in this process"), said)
        XCTAssertEqual(try client.agent("GetStatus").first?.variantDictionary?["state"], .string("idle"))
        Command.stop(login)
        XCTAssertEqual(login.terminationStatus, 0)
    }
}
