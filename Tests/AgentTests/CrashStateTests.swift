import DBusKit
import Foundation
import TestSupport
import TimeCore
import XCTest

/// The crash-state explorer: the write path runs under the crash recorder, then the real recovery
/// (DataHome, as the agent starts) runs on sampled states a power cut could leave after each file
/// operation. Every state must open, not read-only, to the last acknowledged state or a later one.
///
/// Sizes come from the environment: TIME_CRASH_CHANGES (changes made, default 30) and
/// TIME_CRASH_STATES (states checked, default 400); scripts/stress.sh runs the long form.
/// TIME_CRASH_SEED replays a run; the seed is always printed.
final class CrashStateTests: XCTestCase {
    struct Outcome {
        var checked = 0
        var failures: [String] = []
    }

    static var environment: [String: String] { ProcessInfo.processInfo.environment }
    static func size(_ name: String, _ fallback: Int) -> Int { environment[name].flatMap { Int($0) } ?? fallback }

    static var seed: UInt64 {
        if let text = environment["TIME_CRASH_SEED"], let seed = UInt64(text) { return seed }
        return UInt64.random(in: 1..<UInt64(UInt32.max))
    }

    /// Records the core's write path (time-bench --crash-workload) under `root`.
    /// With `sync`, the workload with sync on (--crash-workload-sync), which is given the whole
    /// recorded folder (data and sync folder in it) rather than the data folder.
    func record(root: String, changes: Int, plantedFault: String? = nil, sync: Bool = false) throws -> RecordedRun {
        let log = root + "/operations.log"
        var environment = [
            "LD_PRELOAD": Products.directory + "/libtime-crash-recorder.so",
            "TIME_CRASH_ROOT": root + "/disk",
            "TIME_CRASH_LOG": log,
        ]
        if let plantedFault { environment["TIME_CRASH_SKIP_FLUSH"] = plantedFault }
        try FileManager.default.createDirectory(atPath: root + "/disk", withIntermediateDirectories: false)
        let arguments = sync ? ["--crash-workload-sync", root + "/disk"] : ["--crash-workload", root + "/disk/data"]
        let result = try Command.run(Products.directory + "/time-bench", arguments + [log, String(changes)],
                                     environment: environment, timeout: 120)
        XCTAssertEqual(result.status, 0, "the workload failed: \(result.stderr)")
        return try RecordedRun(log: log, root: root + "/disk")
    }

    /// Replays the run and checks `budget` crash states; stops at the first `stopAfter` failures.
    /// `judge` says whether a recovered state is allowed after the last acknowledgment (nil: none yet);
    /// by default: its fingerprint is the last acknowledged one or a later one.
    /// `inspect`, when given, checks a state instead of `check` (it gets the state's folder, the
    /// allowed fingerprints and the crash point, and returns the problem or nil).
    func explore(_ run: RecordedRun, budget: Int, seed: UInt64, scratch: String, stopAfter: Int = 1,
                 judge: ((DataState, Int?) -> Bool)? = nil, inspect: ((String, Set<String>?, Int) -> String?)? = nil) throws -> Outcome {
        var random = SeededGenerator(seed: seed)
        var outcome = Outcome()
        let points = run.operations.count + 1
        // How many states each crash point gets: the budget spread evenly, the rest on random points.
        var statesAt = [Int](repeating: budget / points, count: points)
        for _ in 0..<(budget % points) { statesAt[Int.random(in: 0..<points, using: &random)] += 1 }
        var model = CrashModel()
        var stateNumber = 0
        for point in 0..<points {
            if point > 0 { model.replay(run.operations[point - 1]) }
            guard statesAt[point] > 0 else { continue }
            // Where a crash has one outcome, one state; else the two extremes when there is room,
            // and random subsets (unflushed writes kept, lost, reordered or torn) for the rest.
            let count = model.hasPending ? statesAt[point] : 1
            let choices: [CrashModel.Choice] = (0..<count).map { k in
                if count >= 3 && k == 0 { return .flushedOnly }
                if count >= 3 && k == 1 { return .everything }
                let roll = Int.random(in: 0..<10, using: &random)
                return roll < 2 ? .flushedOnly : roll < 3 ? .everything : .random
            }
            for choice in choices {
                stateNumber += 1
                let directory = scratch + "/state-\(stateNumber)"
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
                var stateRandom = SeededGenerator(seed: seed &+ UInt64(stateNumber) &* 0x9E37_79B9)
                try model.materialize(choice, into: directory, using: &stateRandom)
                recoveredFingerprint = nil
                var problem = inspect.map { $0(directory, run.allowedStates(after: point), point) }
                    ?? check(directory: directory + "/data", allowed: run.allowedStates(after: point),
                             judge: judge.map { judge in { judge($0, run.acknowledgments.lastIndex { $0.afterOperations <= point }) } })
                if problem != nil, let found = recoveredFingerprint {
                    let match = run.acknowledgments.firstIndex { $0.fingerprint == found }
                    problem! += match.map { " (it holds acknowledged change \($0))" } ?? " (a state never acknowledged)"
                }
                outcome.checked += 1
                if let problem {
                    // The state as the power cut left it, before the recovery ran on it, for a closer look.
                    var again = SeededGenerator(seed: seed &+ UInt64(stateNumber) &* 0x9E37_79B9)
                    try FileManager.default.createDirectory(atPath: directory + "-as-left", withIntermediateDirectories: false)
                    try model.materialize(choice, into: directory + "-as-left", using: &again)
                    outcome.failures.append("crash after operation \(point) of \(points - 1), state \(stateNumber) (\(choice.rawValue)): \(problem); kept in \(directory) (as the power cut left it: \(directory)-as-left)")
                    if outcome.failures.count >= stopAfter { return outcome }
                } else {
                    try? FileManager.default.removeItem(atPath: directory)
                }
            }
        }
        return outcome
    }

    /// The real start-up recovery on one crash state; nil when it opened to an allowed state.
    /// The fingerprint of the state the last check opened to.
    var recoveredFingerprint: String?

    func check(directory: String, allowed: Set<String>?, judge: ((DataState) -> Bool)? = nil) -> String? {
        recoveredFingerprint = nil
        let home: DataHome
        do { home = try DataHome(directory: directory) } catch { return "the agent could not start: \(error)" }
        guard let allowed else { return nil }
        if home.status.state == .readOnly { return "it opened read-only: \(home.status.message)" }
        guard let state = try? DataState(store: home.tracker.store) else { return "the recovered store could not be read" }
        recoveredFingerprint = state.fingerprint
        if let judge { return judge(state) ? nil : "it opened to a state that lost an acknowledged change" }
        return allowed.contains(state.fingerprint) ? nil : "it opened to a state older than the last acknowledged one (or never acknowledged)"
    }

    func testEveryCrashStateOfTheCoreWritePathRecoversWhatWasAcknowledged() throws {
        let seed = CrashStateTests.seed
        let changes = CrashStateTests.size("TIME_CRASH_CHANGES", 30), budget = CrashStateTests.size("TIME_CRASH_STATES", 400)
        let scratch = TemporaryDirectory("time-crash")
        let run = try record(root: scratch.path, changes: changes)
        XCTAssertGreaterThan(run.acknowledgments.count, changes, "every change was acknowledged")
        let outcome = try explore(run, budget: budget, seed: seed, scratch: scratch.path)
        print("crash states: \(outcome.checked) checked after \(run.operations.count) file operations and \(run.acknowledgments.count) acknowledged changes, seed=\(seed) (replay with TIME_CRASH_SEED=\(seed))")
        XCTAssertEqual(outcome.failures, [], "seed \(seed)")
        if outcome.failures.isEmpty { scratch.remove() }
    }

    /// The explorer catches a planted fault: the snapshot files are never flushed, so a crash can lose an acknowledged change.
    func testThePlantedFaultOfAnUnflushedWriteIsCaught() throws {
        let seed = CrashStateTests.seed
        let scratch = TemporaryDirectory("time-crash-fault")
        defer { scratch.remove() }
        let run = try record(root: scratch.path, changes: 12, plantedFault: CrashStateTests.plantedFault)
        let outcome = try explore(run, budget: 400, seed: seed, scratch: scratch.path)
        print("planted fault (\(CrashStateTests.plantedFault) never flushed): \(outcome.checked) crash states checked, first failure: \(outcome.failures.first ?? "none"), seed=\(seed)")
        XCTAssertFalse(outcome.failures.isEmpty, "the explorer must catch a write path that skips a flush (seed \(seed))")
    }

    /// The agent's write path end to end: time-agent under the recorder on a private bus, changes
    /// over D-Bus (a category added each round, between timer changes), each acknowledged when its
    /// reply arrived, then a clean stop. A recovered state must hold every acknowledged category.
    func testEveryCrashStateOfTheAgentWritePathKeepsWhatWasAcknowledged() throws {
        let seed = CrashStateTests.seed
        let rounds = CrashStateTests.size("TIME_CRASH_CHANGES", 30) / 3, budget = CrashStateTests.size("TIME_CRASH_STATES", 400) / 2
        let scratch = TemporaryDirectory("time-crash-agent")
        let root = scratch.path + "/disk", log = scratch.path + "/operations.log"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
        let bus = try PrivateBus()
        defer { bus.stop() }
        let agent = try AgentProcess(bus: bus, dataDirectory: root + "/data", environment: [
            "LD_PRELOAD": Products.directory + "/libtime-crash-recorder.so", "TIME_CRASH_ROOT": root, "TIME_CRASH_LOG": log,
        ])
        let client = try bus.connect()
        let acks = open(log, O_WRONLY | O_APPEND | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(acks, 0)
        var acknowledged = 0
        func acknowledge(categories: Int) {
            let line = Array("A \(acknowledged) categories=\(categories)\n".utf8)
            _ = line.withUnsafeBytes { write(acks, $0.baseAddress, $0.count) }
            acknowledged += 1
        }
        do {
            defer { client.close(); close(acks) }
            try client.agent("CreateProject", [.string("Writing"), .string(""), .string("")])
            acknowledge(categories: 0)
            for round in 0..<rounds {
                try client.agent("AddCategory", [.string("C\(round)")])
                acknowledge(categories: round + 1)
                let timer: [(String, [DBusValue])] = round % 2 == 0 ? [("StartProject", [.string("Writing")]), ("Pause", [])]
                                                                    : [("Resume", []), ("Stop", [])]
                for (method, arguments) in timer {
                    try client.agent(method, arguments)
                    acknowledge(categories: round + 1)
                }
            }
        }
        agent.terminate()
        let run = try RecordedRun(log: log, root: root)
        let outcome = try explore(run, budget: budget, seed: seed, scratch: scratch.path) { state, last in
            guard let last else { return true }
            let acked = Int(run.acknowledgments[last].fingerprint.split(separator: "=").last ?? "") ?? 0
            let names = Set(state.categories.map(\.name).filter { $0.hasPrefix("C") })
            // Every acknowledged category, and the later ones only in the order they were added.
            return names.count >= acked && names == Set((0..<names.count).map { "C\($0)" })
        }
        print("crash states (agent): \(outcome.checked) checked after \(run.operations.count) file operations and \(run.acknowledgments.count) acknowledged changes, seed=\(seed) (replay with TIME_CRASH_SEED=\(seed))")
        XCTAssertEqual(outcome.failures, [], "seed \(seed)")
        if outcome.failures.isEmpty { scratch.remove() }
    }

    /// With sync on (the sync folder recorded too): after the real recovery and the start of sync
    /// on each crash state, the store is an acknowledged state or a later one, and this device's
    /// log holds every record acknowledged and every line written to it before the crash (another
    /// device may have read it), each exactly as written: no sequence number with another line.
    func testEveryCrashStateWithSyncOnKeepsTheAcknowledgedRecordsOfTheLog() throws {
        let seed = CrashStateTests.seed
        let changes = CrashStateTests.size("TIME_CRASH_CHANGES", 30), budget = CrashStateTests.size("TIME_CRASH_STATES", 400) / 2
        let scratch = TemporaryDirectory("time-crash-sync")
        let (run, outcome) = try exploreWithSync(scratch: scratch.path, changes: changes, budget: budget, seed: seed)
        XCTAssertGreaterThan(run.acknowledgments.count, changes, "every change was acknowledged")
        print("crash states (sync on): \(outcome.checked) checked after \(run.operations.count) file operations and \(run.acknowledgments.count) acknowledged changes, seed=\(seed) (replay with TIME_CRASH_SEED=\(seed))")
        XCTAssertEqual(outcome.failures, [], "seed \(seed)")
        if outcome.failures.isEmpty { scratch.remove() }
    }

    /// The explorer catches a sync log that is never flushed (the outbox is then emptied while
    /// the lines are still only in the page cache: a power cut loses acknowledged records).
    func testThePlantedFaultOfAnUnflushedSyncLogIsCaught() throws {
        let seed = CrashStateTests.seed
        let scratch = TemporaryDirectory("time-crash-sync-fault")
        defer { scratch.remove() }
        let (_, outcome) = try exploreWithSync(scratch: scratch.path, changes: 20, budget: 200, seed: seed, plantedFault: "/time-tracker/")
        print("planted fault (the sync log never flushed): \(outcome.checked) crash states checked, first failure: \(outcome.failures.first ?? "none"), seed=\(seed)")
        XCTAssertFalse(outcome.failures.isEmpty, "the explorer must catch a sync log that is never flushed (seed \(seed))")
    }

    /// Records the write path with sync on (time-bench --crash-workload-sync), then explores it.
    func exploreWithSync(scratch: String, changes: Int, budget: Int, seed: UInt64, plantedFault: String? = nil) throws -> (RecordedRun, Outcome) {
        let root = scratch + "/disk"
        let run = try record(root: scratch, changes: changes, plantedFault: plantedFault, sync: true)
        // Every line the run wrote to the log, by sequence number; then the states are checked
        // where the run was (the store and the outbox name the sync folder by its path).
        let written = CrashStateTests.ownLog(root + "/sync")
        XCTAssertGreaterThan(written.count, changes)
        // Which of those lines another device could have read by each crash point: the ones the
        // run had written to the file by then (flushed or not; Syncthing reads the page cache).
        let logPath = SyncLayout.changeFileName(1)
        let logFile = run.operations.compactMap { operation -> UInt64? in
            if case .create(let path, let inode) = operation, path.hasSuffix(CrashStateTests.crashDevice + "/" + logPath) { return inode }
            return nil
        }.first
        var visibleBytes = [0]
        for operation in run.operations {
            var end = visibleBytes.last!
            if case .write(let inode, let offset, let bytes) = operation, inode == logFile { end = max(end, offset + bytes.count) }
            visibleBytes.append(end)
        }
        let lineEnds = written.sorted { $0.key < $1.key }.reduce(into: [(Int64, Int)]()) { ends, entry in
            ends.append((entry.key, (ends.last?.1 ?? 0) + entry.value.count))
        }
        XCTAssertEqual(rename(root, scratch + "/final"), 0)
        let outcome = try explore(run, budget: budget, seed: seed, scratch: scratch, inspect: { state, allowed, point in
            guard rename(state, root) == 0 else { return "could not put the state in place" }
            defer { _ = rename(root, state) }
            let seen = lineEnds.last { $0.1 <= visibleBytes[point] }?.0 ?? 0
            return CrashStateTests.checkWithSync(root, allowed: allowed, written: written.filter { $0.key <= seen })
        })
        return (run, outcome)
    }

    /// The crash workload's device's records in a sync folder, by sequence number, as lines.
    static func ownLog(_ folder: String) -> [Int64: [UInt8]] {
        var reader = SyncLogReader(layout: SyncLayout(folder: folder))
        return Dictionary(reader.readNew(device: crashDevice).records.map { ($0.sequence, $0.lineBytes) }, uniquingKeysWith: { a, _ in a })
    }

    static let crashDevice = String(repeating: "c", count: 32)

    static func checkWithSync(_ root: String, allowed: Set<String>?, written: [Int64: [UInt8]]) -> String? {
        let home: DataHome
        do { home = try DataHome(directory: root + "/data") } catch { return "the agent could not start: \(error)" }
        guard let allowed else { return nil }
        if home.status.state == .readOnly { return "it opened read-only: \(home.status.message)" }
        let acknowledged = allowed.map { $0.split(separator: ";") }
        let fingerprints = Set(acknowledged.map { String($0[0]) })
        let records = acknowledged.compactMap { $0.last.flatMap { Int64($0.dropFirst("records=".count)) } }.min() ?? 0
        guard let state = try? DataState(store: home.tracker.store) else { return "the recovered store could not be read" }
        guard fingerprints.contains(state.fingerprint) else { return "it opened to a state older than the last acknowledged one (or never acknowledged)" }
        do {
            let engine = try SyncEngine(tracker: home.tracker, folder: root + "/sync", device: crashDevice, deviceName: "crash",
                                        wallMilliseconds: Int64(time(nil)) * 1000)
            try engine.stop()
        } catch { return "sync could not start: \(error)" }
        let recovered = ownLog(root + "/sync")
        if let missing = (1...max(1, records)).first(where: { records > 0 && recovered[$0] == nil }) {
            return "the log lost acknowledged record \(missing) of \(records)"
        }
        for (sequence, line) in recovered.sorted(by: { $0.key < $1.key }) where written[sequence].map({ $0 != line }) ?? false {
            return "record \(sequence) of the log is not the line written with that number before the crash"
        }
        if let lost = written.keys.sorted().first(where: { recovered[$0] == nil }) {
            return "record \(lost), written to the log before the crash, is gone after it"
        }
        return nil
    }

    /// Opens one kept crash state (TIME_CRASH_OPEN=folder) and says what the recovery did.
    func testOpenOneKeptState() throws {
        guard let folder = CrashStateTests.environment["TIME_CRASH_OPEN"] else { return }
        let home = try DataHome(directory: folder)
        let state = try DataState(store: home.tracker.store)
        print("opened \(folder): \(home.status), warnings \(home.warnings), \(state.categories.count) categories, \(state.projects.count) projects, \(state.sessions.count) sessions, fingerprint \(state.fingerprint)")
    }

    /// The file whose flushes the planted fault skips: the one that makes a change durable.
    static let plantedFault = "/snapshots/"
}
