import Glibc
import DBusKit
import TimeCore

// Modes for a profiler (perf record, perf stat): one kind of change, nothing else, on a data
// folder a run left behind (`time-bench --work DIR` keeps DIR/data-<size>).

/// Runs `body`, then exits: 0, or 1 after printing its error.
func runAndExit(_ body: () throws -> Void) -> Never {
    do {
        try body()
    } catch {
        printError("\(error)")
        exit(1)
    }
    exit(0)
}

/// `count` samples of one kind of change (ChangeKinds.swift), named by its metric.
func profileKind(folder: String, metric: String, count: Int) throws {
    guard let kind = changeKinds.first(where: { $0.metric == metric }) else {
        throw BenchError("no kind of change named \"\(metric)\": \(changeKinds.map(\.metric).joined(separator: "; "))")
    }
    let store = try ChangeKindStore(size: 0, data: folder, now: Int64(time(nil)))
    try kind.prepare(store)
    for index in 0..<count { try kind.run(store, index % kind.count) }
}

/// The same device every run, so that a second run is a restart of the first.
let profilingDevice = String(repeating: "b", count: 32)

/// `count` pauses and resumes published to a sync folder, as SyncBench.swift times them; with
/// `syncFolder` "-" the same changes with sync off, to compare. As in the bench, a session is
/// stopped and a new one started every 100 changes, so that segments do not pile up in one.
func profileSync(folder: String, syncFolder: String, count: Int) throws {
    let store = try ChangeKindStore(size: 0, data: folder, now: Int64(time(nil)))
    let engine = syncFolder == "-" ? nil
        : try SyncEngine(tracker: store.tracker, folder: syncFolder, device: profilingDevice, deviceName: "profile",
                         wallMilliseconds: Int64(time(nil)) * 1000)
    for index in 0..<count {
        if index % 100 == 0 {
            if try store.tracker.status().state != .idle { try store.tracker.stop() }
            try store.tracker.startProject("Bench A")
        }
        try store.toggleTimer()
        try engine?.publish(wallMilliseconds: Int64(time(nil)) * 1000)
    }
    try engine?.flushLog()
}

/// A history of `size` sessions in `folder` (as the bench's, with its projects), for a profiler's
/// agent (scripts/profile-durable-path.sh).
func generateForProfile(size: Int, folder: String) throws {
    var options = Options()
    options.work = Files.directoryName(folder)
    guard Files.baseName(folder) == "data-\(size)" else { throw BenchError("the folder must be named data-\(size)") }
    try generateHistory(size: size, options: options) { printError($0) }
}

/// `count` Pause and Resume pairs sent to the agent on the bus at `address`, one at a time; for a
/// profiler attached to that agent. `fresh`: a new session is started first (the open one
/// stopped), so that it holds a few pauses as a person's does, not hundreds of segments; otherwise
/// the open session goes on and nothing but the pairs reaches the agent. Prints the medians.
func drivePauses(address: String, count: Int, fresh: Bool) throws {
    let client = try BusConnection(address: address)
    defer { client.close() }
    if fresh {
        _ = try? call(client, "Stop")
        _ = try call(client, "StartProject", [.string("Bench A")])
    }
    var pauses: [Double] = [], resumes: [Double] = []
    for _ in 0..<count {
        pauses += try timed(1) { _ = try call(client, "Pause") }
        resumes += try timed(1) { _ = try call(client, "Resume") }
    }
    if count > 0 { print("Pause \(format(Summary(pauses).median)) ms, Resume \(format(Summary(resumes).median)) ms (medians of \(count))") }
}

/// One kind of change sent `count` times, one at a time, to the agent at `address`
/// (scripts/profile-durable-path.sh --kind): "start" (StartProject of Bench A, from idle),
/// "switch" (StartProject of Bench B and Bench A in turn; a session must be open), "stop"
/// (Stop), "edit" (EditSession of a finished session two years back, 25 and 26 minutes in turn).
func driveKind(address: String, kind: String, count: Int) throws {
    let client = try BusConnection(address: address)
    defer { client.close() }
    var times: [Double] = []
    let old = kind == "edit" ? try oldSession(client) : 0
    for index in 0..<count {
        let (method, arguments): (String, [DBusValue])
        switch kind {
        case "start": (method, arguments) = ("StartProject", [.string("Bench A")])
        case "switch": (method, arguments) = ("StartProject", [.string(index % 2 == 0 ? "Bench B" : "Bench A")])
        case "stop": (method, arguments) = ("Stop", [])
        case "edit": (method, arguments) = ("EditSession", [.uint64(UInt64(old)), .vardict(["duration": .string(index % 2 == 0 ? "25m" : "26m")])])
        default: throw BenchError("no kind named \"\(kind)\": start, switch, stop or edit")
        }
        times += try timed(1) { _ = try call(client, method, arguments) }
    }
    if count > 0 { print("\(kind) \(format(Summary(times).median)) ms (median of \(count))") }
}

/// org.freedesktop.DBus.Peer.Ping to the agent: one round trip through the bus and the agent's
/// dispatch with no work of its own (the floor of a call).
func ping(_ connection: BusConnection) throws -> [DBusValue] {
    try connection.call(destination: busName, path: objectPath, interface: "org.freedesktop.DBus.Peer", member: "Ping",
                        arguments: [], timeoutMilliseconds: 30_000)
}
