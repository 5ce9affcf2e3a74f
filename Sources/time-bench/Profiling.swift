import Glibc
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
