import DBusKit
import Foundation

/// What went wrong in a test fixture, said plainly.
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A fresh temporary folder, removed by `remove()`.
public final class TemporaryDirectory {
    public let path: String
    public init(_ label: String = "time-test") {
        var template = Array("/tmp/\(label)-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }
    public func remove() { try? FileManager.default.removeItem(atPath: path) }
    public func file(_ name: String) -> String { path + "/" + name }
}

/// The package's build folder (where `swift build` put time-agent and timectl).
public enum Products {
    public static var directory: String {
        if let explicit = ProcessInfo.processInfo.environment["TIME_PRODUCTS_DIR"] { return explicit }
        // The test runner is .build/<triple>/debug/TimePackageTests.xctest, beside the executables.
        let runner = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: runner).deletingLastPathComponent().path
    }
    public static var agent: String { directory + "/time-agent" }
    public static var timectl: String { directory + "/timectl" }
    public static var fakeDesktop: String { directory + "/time-fake-desktop" }
}

/// The result of running a command to its end.
public struct CommandResult {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// Starting and waiting for helper processes.
public enum Command {
    /// Runs `tool` (a path, or a name looked up on PATH) to completion.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:],
                           stdin: String? = nil, timeout: Double = 30) throws -> CommandResult {
        let process = Process()
        configure(process, tool, arguments, environment: environment)
        // Output goes to files, so a chatty process can never stall on a full pipe.
        let scratch = TemporaryDirectory("time-run")
        defer { scratch.remove() }
        FileManager.default.createFile(atPath: scratch.file("out"), contents: nil)
        FileManager.default.createFile(atPath: scratch.file("err"), contents: nil)
        process.standardOutput = FileHandle(forWritingAtPath: scratch.file("out"))
        process.standardError = FileHandle(forWritingAtPath: scratch.file("err"))
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            input.fileHandleForWriting.write(Data(stdin.utf8))
            try? input.fileHandleForWriting.close()
        }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(2_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw FixtureError("\(tool) \(arguments.joined(separator: " ")) did not finish within \(timeout) s")
        }
        process.waitUntilExit()
        let out = (try? String(contentsOfFile: scratch.file("out"), encoding: .utf8)) ?? ""
        let err = (try? String(contentsOfFile: scratch.file("err"), encoding: .utf8)) ?? ""
        return CommandResult(status: process.terminationStatus, stdout: out, stderr: err)
    }

    /// Starts `tool` in the background; its output goes to `log` (a file path) when given.
    public static func start(_ tool: String, _ arguments: [String], environment: [String: String] = [:], log: String? = nil) throws -> Process {
        let process = Process()
        configure(process, tool, arguments, environment: environment)
        process.standardInput = FileHandle.nullDevice
        if let log {
            FileManager.default.createFile(atPath: log, contents: nil)
            let handle = FileHandle(forWritingAtPath: log)!
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        return process
    }

    static func configure(_ process: Process, _ tool: String, _ arguments: [String], environment: [String: String]) {
        if tool.hasPrefix("/") {
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool] + arguments
        }
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        process.environment = merged
    }

    /// Stops a process: SIGTERM, then SIGKILL after `grace` seconds.
    public static func stop(_ process: Process, grace: Double = 5) {
        guard process.isRunning else { return }
        process.terminate()
        if !wait(seconds: grace, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// Polls `condition` until it holds or `seconds` pass; true when it held.
@discardableResult
public func wait(seconds: Double, interval: Double = 0.02, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    repeat {
        if try condition() { return true }
        usleep(UInt32(interval * 1_000_000))
    } while Date() < deadline
    return try condition()
}

/// A time-agent process on a private bus with its own data folder.
public final class AgentProcess {
    public static let busName = "io.github.timetracker.Time1"
    public static let path = "/io/github/timetracker/Time1"
    public static let interface = "io.github.timetracker.Time1"

    public let process: Process
    public let dataDirectory: String
    public let log: String

    /// Starts the agent and waits until it owns its bus name.
    public init(bus: PrivateBus, dataDirectory: String, arguments: [String] = ["--no-notifications"],
                environment: [String: String] = [:], waitForName: Bool = true) throws {
        self.dataDirectory = dataDirectory
        log = dataDirectory + ".log"
        var env = bus.environment
        env["TZ"] = env["TZ"] ?? "Europe/Berlin"
        // Never the machine's own logind: a test that wants one passes its private system bus.
        env["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/time-test-system-bus"
        for (key, value) in environment { env[key] = value }
        process = try Command.start(Products.agent, ["--data-dir", dataDirectory] + arguments, environment: env, log: log)
        if waitForName {
            let client = try bus.connect()
            defer { client.close() }
            let owned = wait(seconds: 15) { (try? client.nameHasOwner(AgentProcess.busName)) == true || !process.isRunning }
            guard owned, process.isRunning else {
                throw FixtureError("time-agent did not take its bus name; its log: \(logText)")
            }
        }
    }

    public var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
    public var pid: Int32 { process.processIdentifier }

    public func terminate() { Command.stop(process) }

    public func kill9() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

extension BusConnection {
    /// Calls a method of the agent.
    @discardableResult
    public func agent(_ method: String, _ arguments: [DBusValue] = [], timeout: Int32 = 10_000) throws -> [DBusValue] {
        try call(destination: AgentProcess.busName, path: AgentProcess.path, interface: AgentProcess.interface,
                 member: method, arguments: arguments, timeoutMilliseconds: timeout)
    }

    /// Reads one property of the agent.
    public func agentProperty(_ name: String) throws -> DBusValue {
        let reply = try call(destination: AgentProcess.busName, path: AgentProcess.path, interface: "org.freedesktop.DBus.Properties",
                             member: "Get", arguments: [.string(AgentProcess.interface), .string(name)], timeoutMilliseconds: 10_000)
        guard let value = reply.first?.variantValue else { throw FixtureError("Get \(name) returned no variant") }
        return value
    }
}

/// Records every message on a bus that matches `rule`, as dbus-monitor prints them.
public final class BusMonitor {
    private let process: Process
    public let output: String

    public init(bus: PrivateBus, rule: String, output: String) throws {
        self.output = output
        process = try Command.start("dbus-monitor", ["--address", bus.address, rule], log: output)
        usleep(300_000)
    }

    public var text: String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
    public func stop() { Command.stop(process) }
}

// MARK: - Notification tests: the wire as dbus-monitor prints it, a hung server, screenshots

/// One message as dbus-monitor printed it: the header line and the argument lines below it.
public struct MonitoredMessage {
    /// "method call", "method return", "signal" or "error".
    public let kind: String
    public let header: String
    public let lines: [String]

    /// The member named in the header (`member=Notify`), "" for replies and errors.
    public var member: String { field("member") }
    public var interface: String { field("interface") }
    public var serial: String { field("serial") }
    public var text: String { ([header] + lines).joined(separator: "\n") }

    private func field(_ name: String) -> String {
        guard let range = header.range(of: " \(name)=") else { return "" }
        let rest = header[range.upperBound...]
        return String(rest.prefix { $0 != " " && $0 != ";" })
    }

    /// Splits dbus-monitor's output into messages (a multi-line string argument stays inside its message).
    public static func parse(_ output: String) -> [MonitoredMessage] {
        let kinds = ["method call", "method return", "signal", "error"]
        var messages: [MonitoredMessage] = []
        var current: (kind: String, header: String, lines: [String])?
        for line in output.components(separatedBy: "\n") {
            if let kind = kinds.first(where: { line.hasPrefix($0 + " time=") }) {
                if let current { messages.append(MonitoredMessage(kind: current.kind, header: current.header, lines: current.lines)) }
                current = (kind, line, [])
            } else if current != nil {
                current!.lines.append(line)
            }
        }
        if let current { messages.append(MonitoredMessage(kind: current.kind, header: current.header, lines: current.lines)) }
        return messages
    }

    /// The value printed after `variant` for the dictionary key `key` (e.g. `byte 0`, `string "paused"`).
    public func variantValue(forKey key: String) -> String? {
        for (index, line) in lines.enumerated() where line.trimmingCharacters(in: .whitespaces) == "string \"\(key)\"" {
            guard index + 1 < lines.count else { return nil }
            let next = lines[index + 1].trimmingCharacters(in: .whitespaces)
            guard next.hasPrefix("variant") else { continue }
            return next.dropFirst("variant".count).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// The keys of the dictionary entries in this message, in order (e.g. the properties a
    /// PropertiesChanged signal names).
    public var dictionaryKeys: [String] {
        var keys: [String] = []
        for (index, line) in lines.enumerated() where line.trimmingCharacters(in: .whitespaces) == "dict entry(" {
            guard index + 1 < lines.count else { continue }
            let next = lines[index + 1].trimmingCharacters(in: .whitespaces)
            if next.hasPrefix("string \""), next.hasSuffix("\"") { keys.append(String(next.dropFirst(8).dropLast())) }
        }
        return keys
    }
}

/// A `Notify` call (org.freedesktop.Notifications) read back from dbus-monitor's output.
public struct NotifyCall {
    public let message: MonitoredMessage
    public let appName: String
    public let appIcon: String
    public let replacesID: UInt32
    public let summary: String
    public let body: String
    /// (key, label) pairs, in the order sent.
    public let actions: [(key: String, label: String)]
    public let expireTimeout: Int32?

    public init?(_ message: MonitoredMessage) {
        guard message.kind == "method call", message.member == "Notify" else { return nil }
        self.message = message
        let lines = message.lines
        func string(_ line: String) -> String? {
            let trimmed = line.drop { $0 == " " }
            guard trimmed.hasPrefix("string \""), trimmed.hasSuffix("\"") else { return nil }
            return String(trimmed.dropFirst(8).dropLast())
        }
        guard lines.count > 6, let app = string(lines[0]), let summary = string(lines[3]) else { return nil }
        appName = app
        appIcon = string(lines[2]) ?? ""
        replacesID = UInt32(lines[1].trimmingCharacters(in: .whitespaces).dropFirst("uint32 ".count)) ?? 0
        self.summary = summary
        // The body may span several lines: everything up to the actions array.
        guard let actionsStart = lines.firstIndex(of: "   array [") else { return nil }
        let bodyText = lines[4..<actionsStart].joined(separator: "\n")
        guard bodyText.hasPrefix("   string \""), bodyText.hasSuffix("\"") else { return nil }
        body = String(bodyText.dropFirst(11).dropLast())
        var strings: [String] = []
        var index = actionsStart + 1
        while index < lines.count, lines[index] != "   ]" {
            if let value = string(lines[index]) { strings.append(value) }
            index += 1
        }
        actions = stride(from: 0, to: strings.count - 1, by: 2).map { (strings[$0], strings[$0 + 1]) }
        expireTimeout = lines.last(where: { $0.hasPrefix("   int32 ") }).flatMap { Int32($0.dropFirst("   int32 ".count)) }
    }

    /// A hint's value as dbus-monitor prints it, e.g. `byte 0`, `boolean true`, `string "x"`.
    public func hint(_ name: String) -> String? { message.variantValue(forKey: name) }
    public var actionKeys: [String] { actions.map(\.key) }
}

extension BusMonitor {
    /// Every message recorded so far.
    public var messages: [MonitoredMessage] { MonitoredMessage.parse(text) }

    /// Every `Notify` call recorded so far.
    public var notifyCalls: [NotifyCall] { messages.compactMap(NotifyCall.init) }

    /// Waits until dbus-monitor has become a monitor (it prints the NameLost of its own name then).
    @discardableResult
    public func waitUntilListening(seconds: Double = 10) -> Bool {
        wait(seconds: seconds) { text.contains("member=NameLost") }
    }
}

/// A notification server that owns `org.freedesktop.Notifications` on a bus and never answers
/// anything: a small libdbus program compiled with gcc when the fixture starts.
public final class HungNotificationServer {
    public static let source = """
    #include <dbus/dbus.h>
    #include <unistd.h>
    int main(void) {
        DBusError e; dbus_error_init(&e);
        DBusConnection *c = dbus_bus_get(DBUS_BUS_SESSION, &e);
        if (!c) return 1;
        if (dbus_bus_request_name(c, "org.freedesktop.Notifications", DBUS_NAME_FLAG_DO_NOT_QUEUE, &e)
            != DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER) return 2;
        for (;;) pause(); /* never reads, never replies */
    }
    """

    public let process: Process
    private let directory: TemporaryDirectory

    /// Compiles the server and starts it on `bus`; returns once it owns the name.
    public convenience init(bus: PrivateBus) throws {
        try self.init(busAddress: bus.address)
    }

    /// The same on the bus at `busAddress`.
    public init(busAddress: String) throws {
        directory = TemporaryDirectory("time-hung")
        let source = directory.file("hung.c"), binary = directory.file("hung")
        try Self.source.write(toFile: source, atomically: true, encoding: .utf8)
        let flags = try Command.run("pkg-config", ["--cflags", "--libs", "dbus-1"])
        guard flags.status == 0 else { throw FixtureError("pkg-config dbus-1 failed: \(flags.stderr)") }
        let compile = try Command.run("gcc", [source, "-o", binary]
                                      + flags.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init),
                                      timeout: 60)
        guard compile.status == 0 else { throw FixtureError("gcc failed: \(compile.stderr)") }
        process = try Command.start(binary, [], environment: ["DBUS_SESSION_BUS_ADDRESS": busAddress])
        let client = try BusConnection(address: busAddress)
        defer { client.close() }
        guard wait(seconds: 10, { (try? client.nameHasOwner("org.freedesktop.Notifications")) == true }) else {
            Command.stop(process)
            directory.remove()
            throw FixtureError("the hung notification server did not take org.freedesktop.Notifications")
        }
    }

    public func stop() {
        Command.stop(process)
        directory.remove()
    }
}

/// Where a test leaves files worth keeping (screenshots, wire logs): `$TIME_TEST_OUTPUT/<label>`,
/// else a folder under the system's temporary directory. Never removed by the tests.
public func testOutputDirectory(_ label: String) throws -> String {
    let base = ProcessInfo.processInfo.environment["TIME_TEST_OUTPUT"].flatMap { $0.isEmpty ? nil : $0 }
        ?? (NSTemporaryDirectory() + "time-test-output")
    let path = base + "/" + label
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The number of distinct colours in an image (ImageMagick's `%k`); 1 means blank.
public func imageColourCount(_ path: String) throws -> Int {
    let result = try Command.run("convert", [path, "-format", "%k", "info:"])
    guard result.status == 0, let count = Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw FixtureError("convert could not read \(path): \(result.stderr)")
    }
    return count
}
