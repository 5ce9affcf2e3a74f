import DBusKit
import Glibc
import TimeCore

// The durable path against its physical floor (docs/durable-path.md; `time-bench --durable-only`,
// `scripts/bench.sh --durable-only`): each acknowledged change over D-Bus beside one in-place
// fdatasync of 4 KiB and one D-Bus Ping to the same agent, taken in turn in the same rounds, so
// that whatever else the machine does weighs on the change and its floor alike. Five runs (an
// agent started anew at each size in each), each run's medians; the rows give the median of the
// five run medians and their spread (min and max).
// Every timed call (the floor's Ping and fdatasync too) is preceded by an untimed Ping that
// settles the agent: it runs one main-loop thread, so the Ping is answered only once the agent
// finished everything before it, the previous change's work after its reply included
// (PropertiesChanged, the tray, the notification, the kept file). A change's time is then its own
// path to the reply, and the floor is the round trip without any work of the agent's.

let durableRuns = 5
let durableRounds = 60
let durableFloorMetric = "floor: fdatasync of 4 KiB + D-Bus Ping"
let durableCPUMetric = "agent CPU time per change (all the kinds above)"

/// The timed calls of one round, in order; a round begins with the timer idle.
let durableCalls = ["Pause", "Resume", "AddNote", "StartProject (switch)", "Stop", "EditSession, 2 years back"]

/// The ratio's goal: 2× for an edit years back, 1.5× for every other change.
func durableGoal(_ call: String) -> Double { call.hasPrefix("EditSession") ? 2 : 1.5 }

func measureDurablePath(options: Options, agentBinary: String, log: (String) -> Void) throws -> [Row] {
    for size in options.sizes where Files.kind(options.work + "/data-\(size)") != .directory {
        try generateHistory(size: size, options: options, log: log)
    }
    // metric → size → one median per run
    var runMedians: [String: [Int: [Double]]] = [:]
    for run in 1...durableRuns {
        for size in options.sizes {
            log("durable path: run \(run) of \(durableRuns), \(size) sessions")
            sync()
            let medians = try durableRun(size: size, options: options, agentBinary: agentBinary)
            for (metric, value) in medians { runMedians[metric, default: [:]][size, default: []].append(value) }
        }
    }
    var rows: [Row] = []
    for size in options.sizes {
        for metric in ["floor: fdatasync of 4 KiB in place", "floor: D-Bus Ping to the agent", durableFloorMetric]
            + durableCalls.map { "D-Bus round trip: " + $0 } + [durableCPUMetric] {
            rows.append(Row(size: size, metric: metric, unit: "ms", summary: Summary(runMedians[metric]?[size] ?? [])))
        }
        for call in durableCalls {
            let metric = "ratio to the floor: " + call
            rows.append(Row(size: size, metric: metric, unit: "×", summary: Summary(runMedians[metric]?[size] ?? [])))
        }
    }
    return rows
}

/// One run at one size: a new agent on a new bus, `durableRounds` rounds; the medians by metric.
private func durableRun(size: Int, options: Options, agentBinary: String) throws -> [String: Double] {
    let data = options.work + "/data-\(size)"
    let bus = try PrivateBus(work: options.work)
    defer { bus.stop() }
    let client = try BusConnection(address: bus.address)
    defer { client.close() }
    let agent = try Agent(binary: agentBinary, dataDirectory: data, address: bus.address)
    defer { agent.stop() }
    let begin = monotonic()
    while (try? client.nameHasOwner(busName)) != true {
        if monotonic() - begin > 60 { throw BenchError("the agent did not take its name within 60 s") }
        usleep(2000)
    }
    _ = try? call(client, "Stop")
    let old = try oldSession(client)
    let floorFile = options.work + "/durable-floor.tmp"
    let fd = open(floorFile, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw BenchError("could not create \(floorFile)") }
    defer { close(fd); unlink(floorFile) }
    var block = [UInt8](repeating: 0x2a, count: 4096)
    _ = block.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    _ = fsync(fd)

    var samples: [String: [Double]] = [:]
    var cpuBefore: Double = 0
    func time(_ metric: String, _ body: () throws -> Void) rethrows {
        let start = monotonic()
        try body()
        let end = monotonic()
        samples[metric, default: []].append((end - start) * 1000)
        let call = metric.hasPrefix("D-Bus round trip: ") ? String(metric.dropFirst("D-Bus round trip: ".count)) : metric
        callLog?.write("\(size) sessions, " + call, start, end)
    }
    // Two rounds first, not counted: the first change after a start records the chunk tree.
    for round in -2..<durableRounds {
        let counted = round >= 0
        if round == 0 { cpuBefore = agent.cpuMilliseconds }
        func timedIf(_ metric: String, _ body: () throws -> Void) throws {
            _ = try ping(client)        // settles the agent (see the top of this file); not timed
            if counted { try time(metric, body) } else { try body() }
        }
        _ = try call(client, "StartProject", [.string("Bench A")])
        try timedIf("D-Bus round trip: Pause") { _ = try call(client, "Pause") }
        try timedIf("D-Bus round trip: Resume") { _ = try call(client, "Resume") }
        try timedIf("D-Bus round trip: AddNote") { _ = try call(client, "AddNote", [.string("bench note \(round)")]) }
        try timedIf("D-Bus round trip: StartProject (switch)") { _ = try call(client, "StartProject", [.string("Bench B")]) }
        try timedIf("D-Bus round trip: Stop") { _ = try call(client, "Stop") }
        let duration = round % 2 == 0 ? "25m" : "26m"
        try timedIf("D-Bus round trip: EditSession, 2 years back") {
            _ = try call(client, "EditSession", [.uint64(UInt64(old)), .vardict(["duration": .string(duration)])])
        }
        try timedIf("floor: D-Bus Ping to the agent") { _ = try ping(client) }
        try timedIf("floor: fdatasync of 4 KiB in place") {
            block[0] &+= 1
            _ = block.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            _ = fdatasync(fd)
        }
    }
    var medians = samples.mapValues { Summary($0).median }
    // Seven changes a round (the untimed StartProject included) and nine Pings (the timed one and
    // eight that settle; a few µs each): the agent's CPU time per change, which the other
    // processes on the machine do not lengthen as they do wall time.
    medians[durableCPUMetric] = (agent.cpuMilliseconds - cpuBefore) / Double(durableRounds * 7)
    let floor = (medians["floor: fdatasync of 4 KiB in place"] ?? 0) + (medians["floor: D-Bus Ping to the agent"] ?? 0)
    medians[durableFloorMetric] = floor
    for call in durableCalls {
        if let median = medians["D-Bus round trip: " + call], floor > 0 { medians["ratio to the floor: " + call] = median / floor }
    }
    return medians
}

/// `TIME_BENCH_CALL_LOG=FILE`: each timed call's metric, start and end (CLOCK_MONOTONIC ns), appended,
/// to be matched with the agent's own `TIME_PATH_TRACE` lines by scripts/durable-split.py.
nonisolated(unsafe) private let callLog = getenv("TIME_BENCH_CALL_LOG").flatMap { CallLog(path: String(cString: $0)) }

private final class CallLog {
    private let file: UnsafeMutablePointer<FILE>
    init?(path: String) {
        guard let file = fopen(path, "a") else { return nil }
        self.file = file
    }
    deinit { fclose(file) }
    func write(_ metric: String, _ start: Double, _ end: Double) {
        fputs("\(metric)\t\(UInt64(start * 1e9))\t\(UInt64(end * 1e9))\n", file)
        fflush(file)
    }
}

/// A completed session on the day two years back that every size holds (generateHistory fills it).
func oldSession(_ client: BusConnection) throws -> Int64 {
    let day = ChangeKindStore.oldDay(now: Int64(time(nil)))
    let reply = try call(client, "ListSessions", [.uint64(0), .int64(day), .int64(day + 86400)])
    for session in reply.first?.arrayValue ?? [] {
        if let entries = session.variantDictionary, entries["state"]?.stringValue == "completed", let id = entries["id"]?.uint64Value {
            return Int64(id)
        }
    }
    throw BenchError("no completed session two years back to edit")
}

/// The verdict of a ratio row at the largest size: ≤ 1.5× (2× for the edit years back).
func durableVerdict(_ row: Row) -> String {
    guard row.metric.hasPrefix("ratio to the floor: "), row.size == 100_000 else { return "" }
    let goal = durableGoal(String(row.metric.dropFirst("ratio to the floor: ".count)))
    let text = "\(format(row.summary.median))× (runs \(format(row.summary.min))–\(format(row.summary.max))×), goal ≤ \(format(goal))×"
    return row.summary.median <= goal ? "ok: " + text : "MISSED: " + text
}

extension Agent {
    /// Time the agent's threads spent on a CPU so far (/proc/PID/task/*/schedstat, nanoseconds), in ms.
    var cpuMilliseconds: Double {
        Files.list("/proc/\(pid)/task").reduce(0) { total, task in
            let text = String(decoding: (try? Files.read("/proc/\(pid)/task/\(task)/schedstat")) ?? [], as: UTF8.self)
            return total + (Double(text.split(separator: " ").first ?? "") ?? 0) / 1e6
        }
    }
}
