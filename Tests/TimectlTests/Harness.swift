import DBusKit
import Foundation
import TestSupport
import XCTest

/// The built executables must exist: `swift test` alone does not build them.
enum Binaries {
    static func check() throws {
        for path in [Products.timectl, Products.agent] where !FileManager.default.isExecutableFile(atPath: path) {
            throw XCTSkip("\(path) is missing: run 'swift build' before 'swift test'")
        }
    }
}

extension CommandResult {
    /// stdout parsed as JSON.
    func json(file: StaticString = #filePath, line: UInt = #line) throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(stdout.utf8), options: [.fragmentsAllowed])
        } catch {
            XCTFail("not JSON: \(stdout)", file: file, line: line)
            throw error
        }
    }
}

/// A private session bus for one test. With `activation`, the first call starts the built
/// time-agent with its own data folder, exactly as on a desktop: an activation file in the bus'
/// service folder. dbus-broker activates only through systemd, which a test has not got: there
/// the fixture does what activation would, starting the agent (same data folder, zone and
/// environment) before a client of the test runs while no agent owns the name.
final class TestBus {
    static let timeZone = "Europe/Berlin"
    let bus: PrivateBus
    let dataDirectory: String
    var address: String { bus.address }
    private let activation: Bool
    /// The agent this fixture started itself (on a bus that cannot activate it).
    private var agent: AgentProcess?

    init(activation: Bool = true, socket: PrivateBus.Socket = .path) throws {
        try Binaries.check()
        bus = try PrivateBus(socket: socket)
        self.activation = activation
        dataDirectory = bus.directory.file("data")
        try FileManager.default.createDirectory(atPath: dataDirectory, withIntermediateDirectories: true)
        if activation && bus.canActivate {
            // The activated agent gets the daemon's environment, not a test's: env sets its zone.
            let agent = "\(Products.agent) --data-dir \(dataDirectory) --no-notifications"
            try bus.installService(name: AgentProcess.busName,
                                   exec: "/usr/bin/env TZ=\(TestBus.timeZone) TIME_TRACKER_DATA_DIR=\(dataDirectory) DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/time-test-system-bus \(agent)")
        }
    }

    /// Whether the bus itself starts the agent on the first call (dbus-daemon), or the fixture
    /// does it in the bus' stead (dbus-broker).
    var activates: Bool { bus.canActivate }

    /// Activation in the bus' stead: the agent starts, as its activation file would start it,
    /// when a client is about to run and no agent owns the name.
    private func activateInTheBusStead() throws {
        guard activation, !activates, agentPID() == nil else { return }
        if let agent { agent.terminate() }
        agent = try AgentProcess(bus: bus, dataDirectory: dataDirectory, arguments: ["--no-notifications"],
                                 environment: ["TZ": TestBus.timeZone, "TIME_TRACKER_DATA_DIR": dataDirectory])
    }

    /// The environment every timectl of the test runs with (on a bus that cannot activate, the
    /// agent is started first: see `activateInTheBusStead`).
    func environment(_ extra: [String: String] = [:]) throws -> [String: String] {
        try activateInTheBusStead()
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["TZ"] = TestBus.timeZone
        environment["TIME_TRACKER_DATA_DIR"] = dataDirectory
        environment.removeValue(forKey: "NO_COLOR")
        environment.removeValue(forKey: "TIMECTL_NOW")
        environment.removeValue(forKey: "TIMECTL_CLOCK_OFFSET")
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// Runs timectl to its end (killed after `timeout` seconds).
    @discardableResult
    func timectl(_ arguments: String..., env: [String: String] = [:], timeout: TimeInterval = 20) throws -> CommandResult {
        try Command.run(Products.timectl, arguments, exactEnvironment: environment(env), timeout: timeout)
    }

    /// The process id of the agent, when one owns the name.
    func agentPID() -> pid_t? {
        guard let client = try? bus.connect() else { return nil }
        defer { client.close() }
        guard let reply = try? client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                           interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                                           arguments: [.string(AgentProcess.busName)]),
              let pid = reply.first?.uint32Value else { return nil }
        return pid_t(pid)
    }

    /// Stops the agent (SIGTERM) and waits until its name is gone.
    func stopAgent() {
        if let agent {
            agent.terminate()
            self.agent = nil
        } else if let pid = agentPID() {
            kill(pid, SIGTERM)
        }
        wait(seconds: 5) { agentPID() == nil }
    }

    func stop() {
        stopAgent()
        bus.stop()
    }

    deinit { stop() }
}

/// A long-running timectl (watch) whose stdout lines are collected as they come.
final class LineReader: @unchecked Sendable {
    let process = Process()
    private let lock = NSLock()
    private var buffer = Data()
    private var collected: [String] = []
    private let done = DispatchSemaphore(value: 0)
    private var stopped = false

    init(_ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: Products.timectl)
        process.arguments = arguments
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try? out.fileHandleForWriting.close()
        let handle = out.fileHandleForReading
        Thread { [self] in
            var bytes = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(handle.fileDescriptor, &bytes, bytes.count)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                append(Data(bytes[0..<count]))
            }
            done.signal()
        }.start()
    }

    private func append(_ chunk: Data) {
        lock.lock(); defer { lock.unlock() }
        buffer.append(chunk)
        while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
            collected.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
            buffer = Data(buffer[(newline + 1)...])
        }
    }

    var lines: [String] {
        lock.lock(); defer { lock.unlock() }
        return collected
    }

    /// Waits for line number `index` (0-based); nil after `timeout` seconds.
    func line(_ index: Int, timeout: TimeInterval) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let current = lines
            if current.count > index { return current[index] }
            usleep(5_000)
        }
        return nil
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        if !stopped {
            stopped = true
            _ = done.wait(timeout: .now() + 5)
        }
    }

    deinit { stop() }
}

/// A waybar line as a dictionary.
func waybar(_ line: String?, file: StaticString = #filePath, line number: UInt = #line) -> [String: Any] {
    guard let line, let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        XCTFail("not a waybar JSON line: \(line ?? "(none)")", file: file, line: number)
        return [:]
    }
    return object
}

extension TestBus {
    /// Runs timectl with `arguments`: it must succeed and say nothing on stderr; what it printed.
    @discardableResult
    func succeeded(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try runArray(arguments, env: [:])
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stderr, "", "\(arguments)", file: file, line: line)
        return result.stdout
    }
}
