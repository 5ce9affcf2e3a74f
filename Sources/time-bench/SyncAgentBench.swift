import DBusKit
import Glibc
import TimeCore

/// Enabling sync on a history of `size` sessions, then a second device joining the folder that
/// holds it, each in a real agent over D-Bus (issue 21, part 3): how long it takes, the agent's
/// peak memory above what it held idle just before (goal ≤ 64 MiB), and `GetStatus` answered
/// meanwhile, one call every 10 ms (goal: the slowest within 50 ms).
func measureSyncAgent(size: Int, options: Options, agentBinary: String, log: (String) -> Void) throws -> [Row] {
    var rows: [Row] = []
    func add(_ metric: String, _ unit: String, _ samples: [Double]) { rows.append(Row(size: size, metric: metric, unit: unit, summary: Summary(samples))) }
    let first = options.work + "/sync-agent-a-\(size)", second = options.work + "/sync-agent-b-\(size)"
    let folder = options.work + "/sync-agent-folder-\(size)"
    for path in [first, second, folder] { Files.remove(path) }
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

    for (data, name, what) in [(first, "bench-a", "enabling sync"), (second, "bench-b", "joining the folder")] {
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
    for path in [first, second, folder] { Files.remove(path) }
    return rows
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
