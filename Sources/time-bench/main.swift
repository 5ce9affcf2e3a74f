import CGLib
import DBusKit
import Glibc
import TimeCore

// time-bench: measures Time at several history sizes (see scripts/bench.sh, which runs it).
//   time-bench [--quick] [--sizes 1000,20000,100000] [--window SECONDS] [--json] [--work DIR] [--import-only]

struct Options {
    var sizes = [1000, 20_000, 100_000]
    var window: Double = 60
    var json = false
    var work = "/tmp/time-bench"
    /// Only the import measurements (`--import-only`).
    var importOnly = false
    /// Only the sync measurements (`--sync-only`).
    var syncOnly = false
    /// Only the core's rows: every kind of change and the roll-forward, no agent (`--changes-only`).
    var changesOnly = false
    /// Only the report rows, over D-Bus (`--reports-only`).
    var reportsOnly = false
    /// Only enabling sync and joining in the agent (`--sync-agent-only`).
    var syncAgentOnly = false
    /// Only the durable path against its floor, five runs (`--durable-only`, DurablePathBench.swift).
    var durableOnly = false
}

func parseOptions() -> Options {
    var options = Options()
    var arguments = Array(CommandLine.arguments.dropFirst())[...]
    while let argument = arguments.popFirst() {
        switch argument {
        case "--quick": options.sizes = [1000]; options.window = 5
        case "--json": options.json = true
        case "--import-only": options.importOnly = true
        case "--sync-only": options.syncOnly = true
        case "--changes-only": options.changesOnly = true
        case "--reports-only": options.reportsOnly = true
        case "--durable-only": options.durableOnly = true; options.sizes = [1000, 100_000]
        case "--sync-agent-only": options.syncOnly = true; options.syncAgentOnly = true
        case "--sizes": options.sizes = (arguments.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
        case "--window": options.window = Double(arguments.popFirst() ?? "") ?? options.window
        case "--work": options.work = arguments.popFirst() ?? options.work
        case "--profile-kind":
            let folder = arguments.popFirst() ?? "", metric = arguments.popFirst() ?? ""
            let count = Int(arguments.popFirst() ?? "") ?? 100
            runAndExit { try profileKind(folder: folder, metric: metric, count: count) }
        case "--profile-sync":
            let folder = arguments.popFirst() ?? "", syncFolder = arguments.popFirst() ?? ""
            let count = Int(arguments.popFirst() ?? "") ?? 100
            runAndExit { try profileSync(folder: folder, syncFolder: syncFolder, count: count) }
        case "--generate":
            let size = Int(arguments.popFirst() ?? "") ?? 0, folder = arguments.popFirst() ?? ""
            runAndExit { try generateForProfile(size: size, folder: folder) }
        case "--drive-pauses":
            let address = arguments.popFirst() ?? "", count = Int(arguments.popFirst() ?? "") ?? 100
            let fresh = arguments.first != "same"
            if !fresh { _ = arguments.popFirst() }
            runAndExit { try drivePauses(address: address, count: count, fresh: fresh) }
        case "--drive":
            let address = arguments.popFirst() ?? "", kind = arguments.popFirst() ?? "", count = Int(arguments.popFirst() ?? "") ?? 1
            runAndExit { try driveKind(address: address, kind: kind, count: count) }
        case "--crash-workload":
            // The write path the crash-state tests record (CrashWorkload.swift).
            let folder = arguments.popFirst() ?? "", acks = arguments.popFirst() ?? ""
            exit(runCrashWorkload(folder: folder, acks: acks, changes: Int(arguments.popFirst() ?? "") ?? 20))
        case "--crash-workload-sync":
            let folder = arguments.popFirst() ?? "", acks = arguments.popFirst() ?? ""
            exit(runCrashWorkloadWithSync(folder: folder, acks: acks, changes: Int(arguments.popFirst() ?? "") ?? 20))
        case "--help", "-h":
            print("usage: time-bench [--quick] [--sizes 1000,20000,100000] [--window SECONDS] [--json] [--work DIR] [--import-only] [--sync-only] [--sync-agent-only] [--changes-only] [--reports-only] [--durable-only]")
            print("       time-bench --profile-kind DATA-DIR METRIC N | --profile-sync DATA-DIR SYNC-DIR|- N   (for a profiler; - is sync off)")
            print("       time-bench --generate SIZE DIR/data-SIZE | --drive-pauses BUS-ADDRESS N [same] | --drive BUS-ADDRESS start|switch|stop|edit N   (scripts/profile-durable-path.sh)")
            exit(0)
        default:
            printError("unknown option \(argument) (see --help)")
            exit(2)
        }
    }
    return options
}

// MARK: Measuring

func printError(_ message: String) {
    var bytes = Array("time-bench: \(message)\n".utf8)
    _ = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

func monotonic() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func timed(_ count: Int, _ body: () throws -> Void) rethrows -> [Double] {
    var samples: [Double] = []
    for _ in 0..<count {
        let start = monotonic()
        try body()
        samples.append((monotonic() - start) * 1000)
    }
    return samples
}

// MARK: One history size

let busName = "io.github.timetracker.Time1", objectPath = "/io/github/timetracker/Time1", interface = "io.github.timetracker.Time1"

func call(_ connection: BusConnection, _ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
    try connection.call(destination: busName, path: objectPath, interface: interface, member: member,
                        arguments: arguments, timeoutMilliseconds: 30_000)
}

/// A history of `size` sessions (and the projects the measurements use) in a new data folder.
func generateHistory(size: Int, options: Options, log: (String) -> Void) throws {
    let data = options.work + "/data-\(size)"
    Files.remove(data)
    log("size \(size): generating the history")
    let home = try DataHome(directory: data)
    try History.generate(into: home.tracker, sessions: size, now: Int64(time(nil)) - 86400 * 7)
    try home.tracker.createProject(name: "Bench A", color: "", category: "")
    try home.tracker.createProject(name: "Bench B", color: "", category: "")
    // The days the change kinds touch years back hold eight sessions at every size, as a day of
    // the generated history does: at 1,000 sessions they lie before the history and would be
    // empty, and the rows would compare a full day with an empty one instead of the history's size.
    try History.fill(days: ChangeKindStore.touchedDays(now: Int64(time(nil))), into: home.tracker)
}

/// The rows of one size, after its history was generated and the change kinds measured (`rows`).
func measure(size: Int, options: Options, agentBinary: String, rows changeRows: [Row], log: (String) -> Void) throws -> [Row] {
    var rows = changeRows
    func add(_ metric: String, _ unit: String, _ samples: [Double]) { rows.append(Row(size: size, metric: metric, unit: unit, summary: Summary(samples))) }
    let data = options.work + "/data-\(size)"
    let now = Int64(time(nil))

    if options.reportsOnly { return try measureReports(size: size, options: options, agentBinary: agentBinary, data: data, now: now) }
    add("floor: one fdatasync of 4 KiB overwritten in place", "ms", try measureFlushFloor(folder: options.work))
    let starts = try measureRollForward(data: data, now: now)
    add("core start-up, store current", "ms", [starts.current])
    add("core start-up, rolling forward after lost commits", "ms", [starts.byDays])
    add("core start-up, rolling forward the whole state", "ms", [starts.wholeState])
    if options.changesOnly { return rows }

    // Let the kernel write back what the generation wrote, so that it does not compete with the measurements.
    sync()
    let bus = try PrivateBus(work: options.work)
    defer { bus.stop() }
    let client = try BusConnection(address: bus.address)
    defer { client.close() }

    log("size \(size): start to name owned")
    // A start after a session of use finds the store changed and archives it first (the usual
    // start at login); a start right after another finds it unchanged. Rounds 0–4 are the first
    // kind (the generation, then a change made by the round before), the rest the second.
    var archiving: [Double] = [], unchanged: [Double] = []
    for round in 0..<13 {
        let begin = monotonic()
        let agent = try Agent(binary: agentBinary, dataDirectory: data, address: bus.address)
        while (try? client.nameHasOwner(busName)) != true {
            if monotonic() - begin > 30 { throw BenchError("the agent did not take its name within 30 s") }
            // Polling faster would take the CPU (with dbus-daemon) from the agent being measured.
            usleep(2000)
        }
        if round < 5 { archiving.append((monotonic() - begin) * 1000) } else { unchanged.append((monotonic() - begin) * 1000) }
        if round < 4 {
            _ = try call(client, "StartProject", [.string("Bench A")])
            _ = try call(client, "Stop")
        }
        agent.stop()
        while (try? client.nameHasOwner(busName)) == true { usleep(1000) }
    }
    add("agent start to name owned, making a raw archive", "ms", archiving)
    add("agent start to name owned, store unchanged", "ms", unchanged)

    // The starts copied and removed archives of the whole store: let the disk finish with them
    // (write-back, discards) so that they do not compete with the changes measured next.
    sync()
    usleep(2_000_000)
    let agent = try Agent(binary: agentBinary, dataDirectory: data, address: bus.address)
    defer { agent.stop() }
    while (try? client.nameHasOwner(busName)) != true { usleep(1000) }

    log("size \(size): durable changes over D-Bus")
    let writtenBefore = agent.bytesWritten
    var changes = 0
    _ = try call(client, "StartProject", [.string("Bench A")])
    var pauses: [Double] = [], resumes: [Double] = [], switches: [Double] = [], stops: [Double] = []
    for _ in 0..<100 {
        pauses += try timed(1) { _ = try call(client, "Pause") }
        resumes += try timed(1) { _ = try call(client, "Resume") }
        switches += try timed(1) { _ = try call(client, "StartProject", [.string("Bench B")]) }
        stops += try timed(1) { _ = try call(client, "Stop") }
        _ = try call(client, "StartProject", [.string("Bench A")])
        changes += 5
    }
    _ = try call(client, "Stop")
    changes += 1
    add("floor: D-Bus round trip, Ping (the agent does nothing)", "ms", try timed(200) { _ = try ping(client) })
    add("D-Bus round trip, GetStatus (no change)", "ms", try timed(200) { _ = try call(client, "GetStatus") })
    add("D-Bus round trip: Pause", "ms", pauses)
    add("D-Bus round trip: Resume", "ms", resumes)
    add("D-Bus round trip: StartProject (switch)", "ms", switches)
    add("D-Bus round trip: Stop", "ms", stops)
    add("bytes written per change (store and snapshot)", "B", [Double(agent.bytesWritten - writtenBefore) / Double(changes)])
    let newestSnapshot = SnapshotKeeper.scan(data + "/snapshots").last.flatMap { Files.size($0.path) } ?? 0
    add("snapshot file of a timer change", "B", [Double(newestSnapshot)])

    log("size \(size): reports")
    let middle = CivilDate(dayNumber: Int((now - Int64(size / 8 / 2) * 86400) / 86400)).description
    add("WeeklyReport json, a week mid-history", "ms", try timed(50) { _ = try call(client, "WeeklyReport", [.string(middle), .string("json")]) })
    rows += try rangeReportRows(size: size, client: client, middle: middle)
    let week = try Week.parse(middle, now: now)
    add("ListSessions, one week", "ms", try timed(50) {
        _ = try call(client, "ListSessions", [.uint64(0), .int64(week.start), .int64(week.end)])
    })

    log("size \(size): idle (\(Int(options.window)) s) and running (\(Int(options.window)) s)")
    usleep(1_000_000)
    add("idle RSS", "MiB", [Double(agent.residentKiB) / 1024])
    var before = agent.voluntarySwitches
    usleep(UInt32(options.window * 1_000_000))
    add("wake-ups over the window, idle", "switches", [Double(agent.voluntarySwitches - before)])
    _ = try call(client, "StartProject", [.string("Bench A")])
    usleep(300_000)
    before = agent.voluntarySwitches
    usleep(UInt32(options.window * 1_000_000))
    add("wake-ups over the window, timer running", "switches", [Double(agent.voluntarySwitches - before)])
    _ = try call(client, "Stop")
    try measureTrayWakeUps(agent: agent, client: client, address: bus.address, window: options.window, add: add)
    try measureSyncWakeUps(agent: agent, client: client, work: options.work, window: options.window, add: add)
    return rows
}

// MARK: Main

let options = parseOptions()
let exe = (try? Files.read("/proc/self/exe")) != nil ? String(cString: realpath("/proc/self/exe", nil)) : CommandLine.arguments[0]
let agentBinary = Files.directoryName(exe) + "/time-agent"
guard Files.kind(agentBinary) == .regular else {
    printError("\(agentBinary) not found; build it first (swift build --product time-agent)")
    exit(1)
}
try? Files.makePrivateDirectory(options.work)
var rows: [Row] = []
do {
    var changeRows: [Int: [Row]] = [:]
    if options.durableOnly {
        rows = try measureDurablePath(options: options, agentBinary: agentBinary) { printError($0) }
    } else if options.reportsOnly {
        for size in options.sizes { try generateHistory(size: size, options: options) { printError($0) } }
        for size in options.sizes {
            rows += try measure(size: size, options: options, agentBinary: agentBinary, rows: []) { printError($0) }
        }
    } else if !options.syncOnly && !options.importOnly {
        for size in options.sizes { try generateHistory(size: size, options: options) { printError($0) } }
        printError("every kind of change at \(options.sizes.map(String.init).joined(separator: ", ")) sessions, taking turns")
        let now = Int64(time(nil))
        let stores = try options.sizes.map { try ChangeKindStore(size: $0, data: options.work + "/data-\($0)", now: now) }
        changeRows = try measureChangeKinds(stores: stores)
    }
    for size in options.sizes where !options.reportsOnly && !options.durableOnly {
        if options.syncOnly {
            if !options.syncAgentOnly { rows += try measureSync(size: size, options: options) { printError($0) } }
            rows += try measureSyncAgent(size: size, options: options, agentBinary: agentBinary) { printError($0) }
            continue
        }
        if !options.importOnly {
            rows += try measure(size: size, options: options, agentBinary: agentBinary, rows: changeRows[size] ?? []) { printError($0) }
        }
        if options.changesOnly { continue }
        rows += try measureImport(size: size, options: options) { printError($0) }
        if !options.importOnly {
            rows += try measureSync(size: size, options: options) { printError($0) }
            rows += try measureSyncAgent(size: size, options: options, agentBinary: agentBinary) { printError($0) }
        }
    }
} catch {
    printError("\(error)")
    exit(1)
}

if options.json {
    let json = JSON.array(rows.map { row in
        .object([("size", .int(Int64(row.size))), ("metric", .string(row.metric)), ("unit", .string(row.unit)),
                 ("median", .string(format(row.summary.median))), ("min", .string(format(row.summary.min))),
                 ("max", .string(format(row.summary.max))), ("samples", .int(Int64(row.summary.count))),
                 ("goal", .string(verdict(row, in: rows)))])
    })
    print(json.serialized)
} else {
    let width = max(44, rows.map(\.metric.count).max() ?? 0)
    func cell(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }
    print("sessions".padding(9) + "metric".padding(width + 1) + cell("median", 10) + cell("min", 10) + cell("max", 10) + "  unit     n    goal")
    for row in rows {
        print(String(row.size).padding(9) + row.metric.padding(width + 1) + cell(format(row.summary.median), 10)
              + cell(format(row.summary.min), 10) + cell(format(row.summary.max), 10) + "  " + row.unit.padding(9)
              + String(row.summary.count).padding(5) + verdict(row, in: rows))
    }
}

