import DBusKit
import Foundation
import TestSupport
import XCTest

// Shared pieces of the reliability suite (ReliabilityTests): sizes from the environment, a
// seeded random generator, the store's integrity check, and the interface as the checked-in
// introspection XML describes it.

/// The sizes of a reliability run. `scripts/test.sh` runs the quick defaults; `scripts/stress.sh`
/// exports the long ones.
enum StressSizes {
    static func value(_ name: String, _ quick: Int) -> Int {
        guard let text = ProcessInfo.processInfo.environment[name], let value = Int(text), value >= 0 else { return quick }
        return value
    }

    /// Calls of the load test, spread over `clients`.
    static var calls: Int { value("TIME_STRESS_CALLS", 2_000) }
    static var clients: Int { max(1, value("TIME_STRESS_CLIENTS", 50)) }
    /// kill -9 rounds of the fault test, and the clients writing during each.
    static var kills: Int { value("TIME_STRESS_KILLS", 10) }
    static var faultClients: Int { max(1, value("TIME_STRESS_FAULT_CLIENTS", 4)) }
    /// Calls per phase of the notification-server test (alive, dying, gone, back, hung).
    static var notificationCalls: Int { max(5, value("TIME_STRESS_NOTIFY_CALLS", 30)) }
    /// Times the session bus goes away under the agent.
    static var busRestarts: Int { max(1, value("TIME_STRESS_BUS_RESTARTS", 2)) }
    static var fuzzCalls: Int { value("TIME_STRESS_FUZZ_CALLS", 1_500) }

    /// The run's seed: `TIME_STRESS_SEED`, else a random one (always printed, so a failure can be replayed).
    static let seed: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["TIME_STRESS_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 1...UInt64(UInt32.max))
    }()

    /// A generator for one part of the run, derived from the run's seed; prints how to replay it.
    static func generator(_ part: String) -> SeededGenerator {
        print("reliability: \(part): seed=\(seed) (replay with TIME_STRESS_SEED=\(seed))")
        var mixed = seed
        for byte in part.utf8 { mixed = (mixed &* 0x100000001B3) ^ UInt64(byte) }
        return SeededGenerator(seed: mixed)
    }
}

/// SplitMix64: small, fast, and the same sequence for the same seed on every machine.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }

    mutating func chance(_ probability: Double) -> Bool { Double.random(in: 0..<1, using: &self) < probability }
    mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &self)] }
}

/// The agent's store, checked with the sqlite3 command-line tool's `PRAGMA integrity_check` on a
/// copy of `time.sqlite` and its `-wal` (so the check itself never touches the agent's files).
/// Call it while no agent runs on `dataDirectory`. Returns "ok" or what sqlite3 said.
func storeIntegrity(dataDirectory: String) throws -> String {
    let scratch = TemporaryDirectory("time-integrity")
    defer { scratch.remove() }
    let store = dataDirectory + "/time.sqlite"
    guard FileManager.default.fileExists(atPath: store) else { return "no store at \(store)" }
    for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: store + suffix) {
        try FileManager.default.copyItem(atPath: store + suffix, toPath: scratch.file("time.sqlite" + suffix))
    }
    let result = try Command.run("sqlite3", [scratch.file("time.sqlite"), "PRAGMA integrity_check;"], timeout: 60)
    let output = (result.stdout + result.stderr).trimmingCharacters(in: .whitespacesAndNewlines)
    return result.status == 0 ? output : "sqlite3 exited \(result.status): \(output)"
}

/// Trimmed the way the contract trims names: Unicode white space at both ends.
func contractTrimmed(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
    return String(scalars[first...last])
}

/// The error names a reply may carry: the contract's, and the standard ones for refusals
/// at the level of signatures and properties.
enum AllowedErrors {
    static let contract = ["NoSuchProject", "NoSuchCategory", "NoSuchSession", "NoCurrentSession", "AlreadyExists",
                           "InvalidArgument", "Overlap", "ReadOnly", "StorageFailure",
                           "NoSuchAway", "NothingToUndo", "NothingToRedo"].map { ContractError.prefix + $0 }
    static let standard = [BusError.invalidArgs, BusError.unknownMethod, BusError.propertyReadOnly, BusError.unknownProperty]
    static let all = Set(contract + standard)
}

/// A method or property of the agent's interface, read from `dbus/io.github.timetracker.Time1.xml`.
struct InterfaceDescription {
    struct MethodSpec { let name: String; let inArgs: [(name: String, type: String)] }
    struct PropertySpec { let name: String; let type: String; let writable: Bool }
    var methods: [MethodSpec] = []
    var properties: [PropertySpec] = []

    static var xmlPath: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("dbus/io.github.timetracker.Time1.xml").path
    }

    /// The members of `interface` in the checked-in XML (a line-oriented reading of the format
    /// the agent writes: one element per line).
    static func load(interface: String = AgentProcess.interface) throws -> InterfaceDescription {
        let xml = try String(contentsOfFile: xmlPath, encoding: .utf8)
        func attribute(_ name: String, _ line: Substring) -> String? {
            guard let range = line.range(of: " \(name)=\"") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != "\"" })
        }
        var description = InterfaceDescription()
        var inside = false
        var method: (name: String, args: [(String, String)])?
        for raw in xml.split(separator: "\n") {
            let line = raw.drop { $0 == " " }
            if line.hasPrefix("<interface ") { inside = attribute("name", line) == interface; continue }
            guard inside else { continue }
            if line.hasPrefix("</interface>") { inside = false }
            if line.hasPrefix("<method "), let name = attribute("name", line) {
                method = (name, [])
                if line.hasSuffix("/>") { description.methods.append(MethodSpec(name: name, inArgs: [])); method = nil }
            } else if line.hasPrefix("<arg "), method != nil, attribute("direction", line) != "out",
                      let type = attribute("type", line) {
                method!.args.append((attribute("name", line) ?? "", type))
            } else if line.hasPrefix("</method>"), let done = method {
                description.methods.append(MethodSpec(name: done.name, inArgs: done.args.map { (name: $0.0, type: $0.1) }))
                method = nil
            } else if line.hasPrefix("<property "), let name = attribute("name", line), let type = attribute("type", line) {
                description.properties.append(PropertySpec(name: name, type: type, writable: attribute("access", line) == "readwrite"))
            }
        }
        guard !description.methods.isEmpty, !description.properties.isEmpty else {
            throw FixtureError("no methods or properties of \(interface) in \(xmlPath)")
        }
        return description
    }
}

/// A short, replayable rendering of a call's arguments (huge strings are summarized).
func describe(_ values: [DBusValue]) -> String {
    "(" + values.map(describe).joined(separator: ", ") + ")"
}

func describe(_ value: DBusValue) -> String {
    switch value {
    case .string(let text):
        if text.utf8.count > 200 {
            return "<\(text.utf8.count) bytes: \(String(reflecting: String(text.prefix(20))))…>"
        }
        return String(reflecting: text)
    case .array(let element, let items):
        if items.count > 20 { return "a\(element)[\(items.count) items: \(items.prefix(3).map(describe).joined(separator: ", "))…]" }
        return "a\(element)[" + items.map(describe).joined(separator: ", ") + "]"
    case .dictionary(let key, let valueType, let entries):
        if entries.count > 20 { return "a{\(key)\(valueType)}[\(entries.count) entries: \(entries.prefix(3).map { describe($0.0) + ": " + describe($0.1) }.joined(separator: ", "))…]" }
        return "{" + entries.map { describe($0.0) + ": " + describe($0.1) }.joined(separator: ", ") + "}"
    case .variant(let inner): return "<\(inner.signature)>" + describe(inner)
    case .structure(let fields): return "(" + fields.map(describe).joined(separator: ", ") + ")"
    default: return "\(value.signature):\(value)"
    }
}

/// The process id of whoever owns `name` on the bus of `client`.
func ownerPID(of name: String, client: BusConnection) throws -> Int32 {
    let owner = try client.getNameOwner(name)
    guard let pid = try client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                    member: "GetConnectionUnixProcessID", arguments: [.string(owner)]).first?.uint32Value else {
        throw FixtureError("no process id for \(name)")
    }
    return Int32(pid)
}

/// Whether process `pid` is gone (a zombie nobody reaped counts as gone).
func processIsGone(_ pid: Int32) -> Bool {
    guard kill(pid, 0) == 0 else { return true }
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    guard let close = stat.range(of: ")", options: .backwards) else { return true }
    return stat[close.upperBound...].dropFirst().first == "Z"
}
