import DBusKit
import Foundation
import XCTest

/// The built executables: next to the test bundle, else in the package's .build/debug.
enum Binaries {
    static let directory: URL = {
        let fm = FileManager.default
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug"))
        for directory in candidates where fm.isExecutableFile(atPath: directory.appendingPathComponent("timectl").path) {
            return directory
        }
        return candidates.last!
    }()

    static var timectl: String { directory.appendingPathComponent("timectl").path }
    static var agent: String { directory.appendingPathComponent("time-agent").path }

    static func check() throws {
        for path in [timectl, agent] where !FileManager.default.isExecutableFile(atPath: path) {
            throw XCTSkip("\(path) is missing: run 'swift build' before 'swift test'")
        }
    }
}

struct Result {
    var status: Int32
    var stdout: String
    var stderr: String

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

/// A private session bus in a temporary folder. With `activation`, its service folder holds an
/// activation file that starts the built time-agent with its own data folder, so the first call
/// starts the agent exactly as on a desktop.
final class TestBus {
    let root: URL
    let dataDirectory: URL
    let daemon = Process()
    let address: String
    static let timeZone = "Europe/Berlin"

    init(activation: Bool = true) throws {
        try Binaries.check()
        let fm = FileManager.default
        root = fm.temporaryDirectory.appendingPathComponent("timectl-tests-\(UUID().uuidString)")
        dataDirectory = root.appendingPathComponent("data")
        let services = root.appendingPathComponent("services")
        try fm.createDirectory(at: services, withIntermediateDirectories: true)
        try fm.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        if activation {
            try """
            [D-BUS Service]
            Name=io.github.timetracker.Time1
            Exec=\(Binaries.agent) --data-dir \(dataDirectory.path) --no-notifications

            """.write(to: services.appendingPathComponent("io.github.timetracker.Time1.service"), atomically: true, encoding: .utf8)
        }
        let config = root.appendingPathComponent("bus.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:dir=\(root.path)</listen>
          <servicedir>\(services.path)</servicedir>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
        </busconfig>

        """.write(to: config, atomically: true, encoding: .utf8)

        daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
        daemon.arguments = ["--config-file=\(config.path)", "--print-address=1", "--nofork", "--nopidfile"]
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = TestBus.timeZone                       // inherited by the activated agent
        environment["TIME_TRACKER_DATA_DIR"] = dataDirectory.path
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        daemon.environment = environment
        let output = Pipe()
        daemon.standardOutput = output
        daemon.standardError = FileHandle.nullDevice
        try daemon.run()
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            data.append(chunk)
        }
        address = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !address.isEmpty else { throw BusError(name: BusError.failed, message: "dbus-daemon printed no address") }
    }

    /// The environment every timectl of the test runs with.
    func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["DBUS_SESSION_BUS_ADDRESS"] = address
        environment["TZ"] = TestBus.timeZone
        environment["TIME_TRACKER_DATA_DIR"] = dataDirectory.path
        environment.removeValue(forKey: "NO_COLOR")
        environment.removeValue(forKey: "TIMECTL_NOW")
        environment.removeValue(forKey: "TIMECTL_CLOCK_OFFSET")
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// Runs timectl to its end (killed after `timeout` seconds).
    @discardableResult
    func timectl(_ arguments: String..., env: [String: String] = [:], timeout: TimeInterval = 20) throws -> Result {
        try runProgram(Binaries.timectl, arguments, environment: environment(env), timeout: timeout)
    }

    /// The process id of the agent, when one owns the name.
    func agentPID() -> pid_t? {
        guard let bus = try? BusConnection(address: address),
              let reply = try? bus.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                        interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                                        arguments: [.string("io.github.timetracker.Time1")]),
              let pid = reply.first?.uint32Value else { return nil }
        bus.close()
        return pid_t(pid)
    }

    /// Stops the agent (SIGTERM) and waits until its name is gone.
    func stopAgent() {
        guard let pid = agentPID() else { return }
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(5)
        while agentPID() != nil && Date() < deadline { usleep(20_000) }
    }

    func stop() {
        stopAgent()
        if daemon.isRunning {
            daemon.terminate()
            daemon.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: root)
    }

    deinit { stop() }
}

/// Runs a program to its end.
func runProgram(_ path: String, _ arguments: [String], environment: [String: String], timeout: TimeInterval = 20) throws -> Result {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    process.environment = environment
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    // Read both pipes while it runs so a large output cannot block it.
    let outData = LockedData(), errData = LockedData()
    let group = DispatchGroup()
    for (pipe, sink) in [(out, outData), (err, errData)] {
        group.enter()
        DispatchQueue.global().async {
            sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
    }
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(5_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    group.wait()
    return Result(status: process.terminationStatus,
                  stdout: String(decoding: outData.get(), as: UTF8.self),
                  stderr: String(decoding: errData.get(), as: UTF8.self))
}

final class LockedData: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
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
        process.executableURL = URL(fileURLWithPath: Binaries.timectl)
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
