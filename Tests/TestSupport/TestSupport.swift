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

/// A private session bus (`dbus-daemon --session`) for one test, optionally with D-Bus
/// activation files in its own service folder.
public final class PrivateBus {
    public let address: String
    public let directory: TemporaryDirectory
    public let serviceDirectory: String
    private let daemon: Process

    public init() throws {
        directory = TemporaryDirectory("time-bus")
        serviceDirectory = directory.file("services")
        try FileManager.default.createDirectory(atPath: serviceDirectory, withIntermediateDirectories: true)
        let config = directory.file("session.conf")
        try """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>session</type>
          <listen>unix:dir=\(directory.path)</listen>
          <servicedir>\(serviceDirectory)</servicedir>
          <policy context="default">
            <allow send_destination="*" eavesdrop="true"/>
            <allow eavesdrop="true"/>
            <allow own="*"/>
          </policy>
          <limit name="max_completed_connections">1000</limit>
          <limit name="max_connections_per_user">1000</limit>
        </busconfig>
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let addressFile = directory.file("address")
        daemon = try Command.start("dbus-daemon", ["--config-file=\(config)", "--nofork", "--nopidfile", "--print-address=1"],
                                   log: addressFile)
        var found = ""
        wait(seconds: 10) {
            found = (try? String(contentsOfFile: addressFile, encoding: .utf8))?.split(separator: "\n").first.map(String.init) ?? ""
            return found.hasPrefix("unix:")
        }
        guard found.hasPrefix("unix:") else { throw FixtureError("dbus-daemon did not start") }
        address = found
    }

    /// The environment that points a child process at this bus.
    public var environment: [String: String] { ["DBUS_SESSION_BUS_ADDRESS": address] }

    /// A client connection to this bus.
    public func connect() throws -> BusConnection { try BusConnection(address: address) }

    /// Installs an activation file so the bus starts `exec` on the first call to `name`.
    public func installService(name: String, exec: String) throws {
        try "[D-BUS Service]\nName=\(name)\nExec=\(exec)\n".write(toFile: serviceDirectory + "/\(name).service", atomically: true, encoding: .utf8)
        // The daemon re-reads its service folders when told to.
        _ = try? Command.run("dbus-send", ["--bus=\(address)", "--dest=org.freedesktop.DBus", "--type=method_call",
                                           "/org/freedesktop/DBus", "org.freedesktop.DBus.ReloadConfig"])
    }

    public func stop() {
        Command.stop(daemon)
        directory.remove()
    }

    public var processIdentifier: Int32 { daemon.processIdentifier }
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

/// An X display (Xvfb) with dunst as the notification server, on a given bus.
public final class NotificationDesktop {
    public let display: String
    public let directory: TemporaryDirectory
    private let xvfb: Process
    private var dunst: Process?
    private let bus: PrivateBus
    /// What the dmenu script picks from dunst's context menu (a substring of the wanted line).
    public let menuChoiceFile: String

    public init(bus: PrivateBus) throws {
        self.bus = bus
        directory = TemporaryDirectory("time-desktop")
        menuChoiceFile = directory.file("choice")
        var number = 90 + Int(getpid() % 400)
        var started: Process?
        for _ in 0..<20 {
            if !FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") && !FileManager.default.fileExists(atPath: "/tmp/.X\(number)-lock") {
                let candidate = try Command.start("Xvfb", [":\(number)", "-screen", "0", "1024x768x24", "-nolisten", "tcp"])
                if wait(seconds: 5, { FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(number)") }) && candidate.isRunning {
                    started = candidate
                    break
                }
                Command.stop(candidate)
            }
            number += 1
        }
        guard let started else { throw FixtureError("Xvfb could not start") }
        xvfb = started
        display = ":\(number)"
        try startDunst()
    }

    public var environment: [String: String] { bus.environment.merging(["DISPLAY": display]) { $1 } }

    /// Starts (or restarts) dunst with a config whose context menu picks `menuChoiceFile`'s line.
    public func startDunst() throws {
        let script = directory.file("pick.sh")
        try """
        #!/bin/sh
        choice=$(cat '\(menuChoiceFile)' 2>/dev/null)
        grep -m1 -F -- "$choice"
        """.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let config = directory.file("dunstrc")
        try """
        [global]
            font = DejaVu Sans 11
            geometry = "500x5-10+10"
            width = 500
            origin = top-right
            offset = 10x10
            markup = full
            format = "<b>%s</b>\\n%b"
            dmenu = \(script)
            show_indicators = no
            idle_threshold = 0
        [urgency_low]
            background = "#222222"
            foreground = "#ffffff"
            timeout = 0
        [urgency_normal]
            background = "#285577"
            foreground = "#ffffff"
            timeout = 0
        [urgency_critical]
            background = "#900000"
            foreground = "#ffffff"
            timeout = 0
        """.write(toFile: config, atomically: true, encoding: .utf8)
        dunst = try Command.start("dunst", ["-config", config], environment: environment, log: directory.file("dunst.log"))
        let client = try bus.connect()
        defer { client.close() }
        guard wait(seconds: 10, { (try? client.nameHasOwner("org.freedesktop.Notifications")) == true }) else {
            throw FixtureError("dunst did not take org.freedesktop.Notifications")
        }
    }

    public func stopDunst() {
        if let dunst { Command.stop(dunst) }
        dunst = nil
    }

    /// Runs dunstctl against this desktop.
    public func dunstctl(_ arguments: [String]) throws -> CommandResult {
        try Command.run("dunstctl", arguments, environment: environment)
    }

    /// Picks the context-menu line containing `label` of the newest notification (its action).
    public func invokeAction(_ label: String) throws {
        try label.write(toFile: menuChoiceFile, atomically: true, encoding: .utf8)
        _ = try dunstctl(["context"])
    }

    /// Saves a screenshot of the whole display as PNG.
    public func screenshot(to path: String) throws {
        let result = try Command.run("import", ["-window", "root", path], environment: environment)
        guard result.status == 0 else { throw FixtureError("import failed: \(result.stderr)") }
    }

    public func stop() {
        stopDunst()
        Command.stop(xvfb)
        directory.remove()
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
