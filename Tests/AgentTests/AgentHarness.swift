import CGLib
import DBusKit
import Foundation
import TestSupport
import XCTest

/// The contract's error names, spelled out as a client sees them.
enum ContractError {
    static let prefix = "io.github.timetracker.Time1.Error."
    static let noSuchProject = prefix + "NoSuchProject"
    static let noSuchCategory = prefix + "NoSuchCategory"
    static let noSuchSession = prefix + "NoSuchSession"
    static let noCurrentSession = prefix + "NoCurrentSession"
    static let alreadyExists = prefix + "AlreadyExists"
    static let invalidArgument = prefix + "InvalidArgument"
    static let readOnly = prefix + "ReadOnly"
    static let storageFailure = prefix + "StorageFailure"
}

/// One private bus, one data folder, one agent on them, and a client connection.
final class AgentHarness {
    let bus: PrivateBus
    let data: TemporaryDirectory
    private(set) var agent: AgentProcess
    let client: BusConnection
    let arguments: [String]
    let environment: [String: String]

    var dataDirectory: String { data.file("data") }

    /// `prepare` runs on the data folder before the agent first starts.
    init(arguments: [String] = ["--no-notifications"], environment: [String: String] = [:],
         dataDirectory: String? = nil, prepare: ((String) throws -> Void)? = nil) throws {
        bus = try PrivateBus()
        data = TemporaryDirectory("time-agent-e2e")
        self.arguments = arguments
        self.environment = environment
        let directory = dataDirectory ?? data.file("data")
        try prepare?(directory)
        do {
            agent = try AgentProcess(bus: bus, dataDirectory: directory, arguments: arguments, environment: environment)
            client = try bus.connect()
        } catch {
            bus.stop()
            data.remove()
            throw error
        }
    }

    /// Stops the agent with SIGTERM and starts a new one on the same data folder.
    /// With `environment`, the agent starts again with that instead (another build, say, through a test switch).
    func restart(environment other: [String: String]? = nil) throws {
        agent.terminate()
        agent = try AgentProcess(bus: bus, dataDirectory: agent.dataDirectory, arguments: arguments, environment: other ?? environment)
    }

    /// Kills the agent with SIGKILL (no shutdown at all) and starts a new one on the same data.
    func crashAndRestart() throws {
        agent.kill9()
        agent = try AgentProcess(bus: bus, dataDirectory: agent.dataDirectory, arguments: arguments, environment: environment)
    }

    func stopAgent() { agent.terminate() }

    func tearDown() {
        client.close()
        agent.terminate()
        bus.stop()
        data.remove()
    }

    @discardableResult
    func call(_ method: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try client.agent(method, arguments)
    }

    func property(_ name: String) throws -> DBusValue { try client.agentProperty(name) }

    func allProperties() throws -> [String: DBusValue] {
        let reply = try client.call(destination: AgentProcess.busName, path: AgentProcess.path,
                                    interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                                    arguments: [.string(AgentProcess.interface)], timeoutMilliseconds: 10_000)
        guard let values = reply.first?.variantDictionary else { throw FixtureError("GetAll returned \(reply)") }
        return values
    }

    func setProperty(_ name: String, _ value: DBusValue) throws {
        _ = try client.call(destination: AgentProcess.busName, path: AgentProcess.path,
                            interface: "org.freedesktop.DBus.Properties", member: "Set",
                            arguments: [.string(AgentProcess.interface), .string(name), .variant(value)],
                            timeoutMilliseconds: 10_000)
    }

    func status() throws -> [String: DBusValue] {
        guard let status = try call("GetStatus").first?.variantDictionary else { throw FixtureError("GetStatus returned no a{sv}") }
        return status
    }

    func state() throws -> String { try status()["state"]?.stringValue ?? "?" }

    @discardableResult
    func createProject(_ name: String, color: String = "", category: String = "") throws -> UInt64 {
        guard let id = try call("CreateProject", [.string(name), .string(color), .string(category)]).first?.uint64Value else {
            throw FixtureError("CreateProject returned no id")
        }
        return id
    }

    @discardableResult
    func start(_ project: String) throws -> UInt64 {
        guard let id = try call("StartProject", [.string(project)]).first?.uint64Value else {
            throw FixtureError("StartProject returned no id")
        }
        return id
    }

    func projects() throws -> [[String: DBusValue]] {
        try (call("ListProjects").first?.arrayValue ?? []).compactMap(\.variantDictionary)
    }

    func sessions(project: UInt64 = 0, from: Int64 = Int64.min, to: Int64 = Int64.max) throws -> [[String: DBusValue]] {
        try (call("ListSessions", [.uint64(project), .int64(from), .int64(to)]).first?.arrayValue ?? []).compactMap(\.variantDictionary)
    }

    /// The agent process is still there and still answers on the bus.
    func assertAlive(_ context: String = "", file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(agent.process.isRunning, "time-agent died \(context); its log: \(agent.logText)", file: file, line: line)
        XCTAssertNoThrow(try client.call(destination: AgentProcess.busName, path: AgentProcess.path,
                                         interface: "org.freedesktop.DBus.Peer", member: "Ping",
                                         arguments: [], timeoutMilliseconds: 5_000),
                         "time-agent does not answer Ping \(context)", file: file, line: line)
    }
}

/// Asserts that `body` throws a D-Bus error named `name`; returns its message.
@discardableResult
func assertBusError<T>(_ name: String, _ what: String = "", file: StaticString = #filePath, line: UInt = #line,
                       _ body: () throws -> T) -> String? {
    do {
        let result = try body()
        XCTFail("\(what): expected \(name), got the reply \(result)", file: file, line: line)
    } catch let error as BusError {
        XCTAssertEqual(error.name, name, "\(what): \(error.message)", file: file, line: line)
        XCTAssertFalse(error.message.isEmpty, "\(what): the error \(name) has no message for a person", file: file, line: line)
        return error.message
    } catch {
        XCTFail("\(what): expected \(name), got \(error)", file: file, line: line)
    }
    return nil
}

/// A client connection of its own, driven by its own GLib main context, that records every
/// `PropertiesChanged` the agent emits on its object.
final class PropertiesChangedRecorder {
    private let context: OpaquePointer
    let connection: BusConnection
    private(set) var signals: [[String: DBusValue]] = []
    private(set) var invalidated: [[String]] = []

    init(bus: PrivateBus) throws {
        context = g_main_context_new()
        connection = try bus.connect()
        connection.attachToMainContext(context)
        try connection.addMatch("type='signal',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='\(AgentProcess.path)'")
        connection.onSignal { [unowned self] message in
            guard message.isSignal(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"),
                  let arguments = try? message.arguments(), arguments.count == 3,
                  arguments[0].stringValue == AgentProcess.interface else { return }
            self.signals.append(arguments[1].variantDictionary ?? [:])
            self.invalidated.append(arguments[2].arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }

    /// Dispatches whatever arrived for `seconds`.
    func pump(seconds: Double) {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            while g_main_context_iteration(context, 0) != 0 {}
            usleep(2_000)
        } while Date() < deadline
    }

    /// Waits until at least `count` signals arrived (or 5 s passed), then keeps listening for
    /// `quiet` seconds so an extra signal would be seen too. Returns and forgets them.
    func take(atLeast count: Int = 1, quiet: Double = 0.3) -> [[String: DBusValue]] {
        let deadline = Date().addingTimeInterval(5)
        while signals.count < count && Date() < deadline { pump(seconds: 0.01) }
        pump(seconds: quiet)
        defer { signals = []; invalidated = [] }
        return signals
    }

    func close() {
        connection.close()
        while g_main_context_iteration(context, 0) != 0 {}
        g_main_context_unref(context)
    }
}

/// The summed voluntary context switches of every thread of `pid`, and the per-thread detail.
func voluntaryContextSwitches(of pid: Int32) -> (total: Int, threads: [String]) {
    let taskFolder = "/proc/\(pid)/task"
    var total = 0
    var threads: [String] = []
    for task in ((try? FileManager.default.contentsOfDirectory(atPath: taskFolder)) ?? []).sorted() {
        let status = (try? String(contentsOfFile: "\(taskFolder)/\(task)/status", encoding: .utf8)) ?? ""
        let comm = ((try? String(contentsOfFile: "\(taskFolder)/\(task)/comm", encoding: .utf8)) ?? "?")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
            let count = Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            total += count
            threads.append("\(task) \(comm): \(count)")
        }
    }
    return (total, threads)
}

/// Unix time now.
func unixNow() -> Int64 { Int64(Date().timeIntervalSince1970) }

/// The bytes of a file, or nil.
func fileBytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// An `a{sv}` as text with its keys sorted, for comparing whole states.
func canonical(_ dictionary: [String: DBusValue]) -> String {
    dictionary.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
}
