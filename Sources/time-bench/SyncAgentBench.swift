import DBusKit
import Glibc
import TimeCore

/// Enabling sync on a history of `size` sessions, then a second and a third device joining the
/// folder that holds it, each in a real agent over D-Bus (issue 21, part 3), and the third one
/// rebuilding its merged state once its kept state is lost (issue 30, part 4): how long it takes,
/// the agent's peak memory above what it held idle (goal ≤ 64 MiB), and `GetStatus` answered
/// meanwhile, one call every 10 ms (goal: the slowest within 50 ms).
func measureSyncAgent(size: Int, options: Options, agentBinary: String, log: (String) -> Void) throws -> [Row] {
    var rows: [Row] = []
    func add(_ metric: String, _ unit: String, _ samples: [Double]) { rows.append(Row(size: size, metric: metric, unit: unit, summary: Summary(samples))) }
    let first = options.work + "/sync-agent-a-\(size)", second = options.work + "/sync-agent-b-\(size)"
    let third = options.work + "/sync-agent-c-\(size)"
    let folder = options.work + "/sync-agent-folder-\(size)"
    for path in [first, second, third, folder] { Files.remove(path) }
    log("size \(size): sync in the agent: generating the history")
    var expected = 0
    do {
        let home = try DataHome(directory: first)
        try History.generate(into: home.tracker, sessions: size, now: Int64(time(nil)) - 86400 * 7)
        expected = try home.tracker.store.allSessions().count
    }
    sync()
    let bus = try PrivateBus(work: options.work)
    defer { bus.stop() }
    let client = try BusConnection(address: bus.address)
    defer { client.close() }

    /// Start to name owned, 5 times: the first start archives the store (it changed), the others find it unchanged.
    func starts(_ data: String) throws -> [Double] {
        try (0..<5).map { _ in
            let begin = monotonic()
            let agent = try Agent(binary: agentBinary, dataDirectory: data, address: bus.address)
            while (try? client.nameHasOwner(busName)) != true { usleep(2000) }
            let took = (monotonic() - begin) * 1000
            agent.stop()
            while (try? client.nameHasOwner(busName)) == true { usleep(1000) }
            return took
        }
    }
    log("size \(size): sync in the agent: starts with sync off")
    let off = try starts(first)
    add("sync: agent start to name owned, sync off, store unchanged", "ms", Array(off.dropFirst()))

    for (data, name, what) in [(first, "bench-a", "enabling sync"), (second, "bench-b", "joining the folder"),
                               (third, "bench-c", "a third device joining")] {
        log("size \(size): sync in the agent: \(what)")
        let agent = try Agent(binary: agentBinary, dataDirectory: data, address: bus.address)
        defer {
            agent.stop()
            while (try? client.nameHasOwner(busName)) == true { usleep(1000) }
        }
        while (try? client.nameHasOwner(busName)) != true { usleep(2000) }
        usleep(1_000_000)
        let idle = agent.residentKiB
        agent.resetPeakMemory()
        let began = monotonic()
        _ = try call(client, "EnableSync", [.string(folder), .string(name)])
        // Done when the store says so, read beside the agent (WAL readers do not wait for it):
        // the history is published (`sync_published`), or every session is merged.
        let store = try SQLiteDatabase(path: data + "/time.sqlite", mode: .readOnly)
        func done() -> Bool {
            let published = (try? store.queryFirst("SELECT value FROM meta WHERE key = 'sync_published'") { $0.string(0) }) ?? nil
            let sessions = (try? store.queryFirst("SELECT count(*) FROM sessions") { $0.int(0) }) ?? nil
            return data == first ? !(published ?? "").isEmpty : sessions == Int64(expected)
        }
        var latencies: [Double] = []
        var checked = monotonic(), finished = false
        while !finished {
            latencies += try timed(1) { _ = try call(client, "GetStatus") }
            usleep(10_000)
            if monotonic() - checked > 0.1 { (checked, finished) = (monotonic(), done()) }
            if monotonic() - began > 600 { throw BenchError("\(what) did not finish within 10 minutes") }
        }
        add("sync: \(what) in the agent", "s", [monotonic() - began])
        add("sync: \(what): peak RSS above the idle agent's", "MiB", [Double(agent.peakResidentKiB - idle) / 1024])
        add("sync: \(what): GetStatus round trip meanwhile", "ms", latencies)
        add("sync: \(what): GetStatus calls slower than 50 ms", "calls", [Double(latencies.filter { $0 > 50 }.count)])
    }
    // Issue 21, part 4: the merged state kept makes every start read more (quick_check, the raw archive).
    log("size \(size): sync in the agent: starts with sync on")
    let on = try starts(second)
    add("sync: agent start to name owned, sync on, store unchanged", "ms", Array(on.dropFirst()))
    // What the second device holds is the whole history.
    let joined = try DataHome(directory: second).tracker.store.allSessions().count
    guard joined == expected else { throw BenchError("the joining device holds \(joined) of \(expected) sessions") }
    rows += try measureRebuild(size: size, data: third, client: client, address: bus.address, agentBinary: agentBinary, log: log)
    for path in [first, second, third, folder] { Files.remove(path) }
    return rows
}

/// The third device's kept state lost (its file removed: the token no longer matches), so that its
/// next start rebuilds the merged state from the folder's three devices, in batches: how long,
/// the peak memory above the same agent idle (a start with nothing to do just before), and
/// `GetStatus` answered meanwhile from the moment the agent owns its name.
func measureRebuild(size: Int, data: String, client: BusConnection, address: String, agentBinary: String,
                    log: (String) -> Void) throws -> [Row] {
    func stopped(_ agent: Agent) {
        agent.stop()
        while (try? client.nameHasOwner(busName)) == true { usleep(1000) }
    }
    func started(_ agent: Agent) { while (try? client.nameHasOwner(busName)) != true { usleep(2000) } }
    log("size \(size): sync in the agent: rebuilding the merged state")
    var agent = try Agent(binary: agentBinary, dataDirectory: data, address: address)
    started(agent)
    usleep(1_000_000)
    let idle = agent.residentKiB
    stopped(agent)
    let kept = data + "/time-sync.sqlite"
    let store = try SQLiteDatabase(path: data + "/time.sqlite", mode: .readOnly)
    for suffix in ["", "-wal", "-shm"] { Files.remove(kept + suffix) }
    let began = monotonic()
    agent = try Agent(binary: agentBinary, dataDirectory: data, address: address)
    defer { stopped(agent) }
    // Done once the merged state's file holds every device's records and no rebuild is under way.
    let expected = try lineCount(ofDevicesIn: try syncRoot(of: store))
    func done() -> Bool {
        guard let file = try? SQLiteDatabase(path: kept, mode: .readOnly) else { return false }
        let rebuilding = (try? file.queryFirst("SELECT 1 FROM sync_kept WHERE key = 'rebuilding'") { _ in true }) ?? nil
        let applied = (try? file.queryFirst("SELECT coalesce(sum(applied_through - 1), 0) FROM sync_devices") { $0.int(0) }) ?? nil
        return rebuilding == nil && (applied ?? 0) >= expected
    }
    var latencies: [Double] = []
    var checked = monotonic(), finished = false
    started(agent)
    while !finished {
        latencies += try timed(1) { _ = try call(client, "GetStatus") }
        usleep(10_000)
        if monotonic() - checked > 0.1 { (checked, finished) = (monotonic(), done()) }
        if monotonic() - began > 600 { throw BenchError("rebuilding did not finish within 10 minutes") }
    }
    let what = "rebuilding the merged state (kept state lost, three devices)"
    return [
        Row(size: size, metric: "sync: \(what) in the agent", unit: "s", summary: Summary([monotonic() - began])),
        Row(size: size, metric: "sync: \(what): peak RSS above the idle agent's", unit: "MiB",
            summary: Summary([Double(agent.peakResidentKiB - idle) / 1024])),
        Row(size: size, metric: "sync: \(what): GetStatus round trip meanwhile", unit: "ms", summary: Summary(latencies)),
        Row(size: size, metric: "sync: \(what): GetStatus calls slower than 50 ms", unit: "calls",
            summary: Summary([Double(latencies.filter { $0 > 50 }.count)])),
    ]
}

/// The sync folder a store's positions name (`<folder>/time-tracker`).
private func syncRoot(of store: SQLiteDatabase) throws -> String {
    guard let text = try store.queryFirst("SELECT value FROM meta WHERE key = 'sync_positions'", row: { $0.string(0) }),
          let root = (try? JSON.parse(Array(text.utf8)))?["root"]?.stringValue else { throw BenchError("no sync positions") }
    return root
}

/// Every record line of every device's change files in a sync folder's root.
private func lineCount(ofDevicesIn root: String) throws -> Int64 {
    var lines: Int64 = 0
    for device in Files.list(root) where SyncLayout.isDeviceID(device) {
        for name in Files.list(root + "/" + device) where SyncLayout.changeFileNumber(name) != nil {
            lines += Int64(try Files.read(root + "/" + device + "/" + name).reduce(0) { $0 + ($1 == 10 ? 1 : 0) })
        }
    }
    return lines
}

extension Agent {
    /// The most memory the process has held since the last reset (`VmHWM`).
    var peakResidentKiB: Int { statusField("/proc/\(pid)/status", "VmHWM") ?? 0 }

    /// Starts `VmHWM` over from what the process holds now (Linux: `clear_refs` 5).
    func resetPeakMemory() {
        let fd = open("/proc/\(pid)/clear_refs", O_WRONLY)
        guard fd >= 0 else { return }
        _ = write(fd, "5", 1)
        close(fd)
    }
}

/// The goals of enabling and joining in the agent (issue 21): memory and answering while it works,
/// and a start with sync on within 1.2× of one with sync off.
func syncAgentVerdict(_ row: Row, in rows: [Row]) -> String {
    if row.metric == "sync: agent start to name owned, sync on, store unchanged" && row.size == 100_000 {
        guard let off = rows.first(where: { $0.size == row.size && $0.metric == "sync: agent start to name owned, sync off, store unchanged" })?
            .summary.median, off > 0 else { return "" }
        let ratio = row.summary.median / off
        return ratio <= 1.2 ? "ok (\(format(ratio))× of sync off, goal ≤ 1.2×)" : "MISSED (\(format(ratio))× of sync off, goal ≤ 1.2×)"
    }
    if row.metric.hasSuffix("peak RSS above the idle agent's") && row.size == 100_000 {
        return row.summary.max <= 64 ? "ok (≤ 64)" : "MISSED (goal ≤ 64)"
    }
    if row.metric.hasSuffix("GetStatus round trip meanwhile") && row.size == 100_000 {
        return row.summary.max <= 50 ? "ok (slowest ≤ 50)" : "MISSED (slowest \(format(row.summary.max)), goal ≤ 50)"
    }
    return ""
}
