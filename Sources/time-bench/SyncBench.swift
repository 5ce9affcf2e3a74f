import DBusKit
import Glibc
import TimeCore

/// Sync (docs/sync.md) through the core with real verified snapshots: 10,000 records of another
/// device merged as one change into a store of `size` sessions, and a local change with sync on
/// (the change, then publishing it) beside the same change with sync off.
func measureSync(size: Int, options: Options, log: (String) -> Void) throws -> [Row] {
    var rows: [Row] = []
    func add(_ metric: String, _ unit: String, _ samples: [Double]) { rows.append(Row(size: size, metric: metric, unit: unit, summary: Summary(samples))) }
    let data = options.work + "/sync-data-\(size)"
    let folder = options.work + "/sync-folder-\(size)"
    Files.remove(data)
    Files.remove(data + "-off")
    Files.remove(folder)
    let now = Int64(time(nil))
    let device = SyncRecord.newID()
    // The stores and the engine live in this block: the restart below opens them anew.
    do {
        log("size \(size): sync: generating the history (twice: one store with sync, one without)")
        let home = try DataHome(directory: data)
        let plain = try DataHome(directory: data + "-off")
        for tracker in [home.tracker, plain.tracker] {
            try History.generate(into: tracker, sessions: size, now: now - 86400 * 7)
            try tracker.createProject(name: "Bench A", color: "", category: "")
            try tracker.startProject("Bench A")
        }
        log("size \(size): sync: publishing the history")
        let engine = try SyncEngine(tracker: home.tracker, folder: folder, device: device, deviceName: "bench",
                                    wallMilliseconds: now * 1000)
        if let limit = getenv("TIME_BENCH_OUTBOX").flatMap({ Int(String(cString: $0)) }) { engine.outboxLimit = limit }
        // The same change on both stores, one after the other, so that whatever else the machine does
        // weighs on both alike. The log is flushed every `outboxLimit` records and once after the
        // last change (the agent's timer): the last sample pays that flush, so that the mean and the
        // flush count hold every one. 400 samples, so that the log's flush (one change in 8) is
        // well inside what the trimmed mean keeps.
        func toggle(_ tracker: Tracker) throws {
            if try tracker.status().state == .running { try tracker.pause() } else { try tracker.resume() }
        }
        var off: [Double] = [], on: [Double] = []
        var offFlushes = 0, onFlushes = 0
        let flushesBefore = engine.logFlushes
        let samples = 400
        var changes = 0  // on the sync store, the untimed ones too (for the log's flushes per change)
        for index in 0..<samples {
            // A session of a working day has a few segments, not hundreds: every 100 changes the
            // timer starts a new one on both stores (untimed).
            if index > 0 && index % 100 == 0 {
                for tracker in [plain.tracker, home.tracker] {
                    try tracker.stop()
                    try tracker.startProject("Bench A")
                }
                try engine.publish(wallMilliseconds: Int64(time(nil)) * 1000)
                changes += 2
            }
            changes += 1
            var before = flushCount()
            var start = monotonic()
            try toggle(plain.tracker)
            off.append((monotonic() - start) * 1000)
            offFlushes += (flushCount() ?? 0) - (before ?? 0)
            before = flushCount()
            start = monotonic()
            try toggle(home.tracker)
            try engine.publish(wallMilliseconds: Int64(time(nil)) * 1000)
            if index == samples - 1 { try engine.flushLog() }
            on.append((monotonic() - start) * 1000)
            onFlushes += (flushCount() ?? 0) - (before ?? 0)
        }
        add("core: durable change, sync off", "ms", off)
        add("core: durable change, sync on (change + publish)", "ms", on)
        // The mean holds the log's batch flushes, which the median does not see; the slowest 1% of
        // each (the machine's own stalls, tens of milliseconds on this shared machine) is left out.
        add("core: durable change, sync off, mean of the fastest 99%", "ms", [trimmedMean(off)])
        add("core: durable change, sync on, mean of the fastest 99% (with the log's batch flushes)", "ms", [trimmedMean(on)])
        add("sync: log flushes per local change", "", [Double(engine.logFlushes - flushesBefore) / Double(changes)])
        if flushCount() != nil {
            add("flushes per change: durable change, sync off", "", [Double(offFlushes) / Double(samples)])
            // Not under "flushes per change" (whose goal is one): with sync the log's batch flushes count too.
            add("sync: flushes per local change (slot and log)", "", [Double(onFlushes) / Double(samples)])
        }
        try plain.tracker.stop()

        log("size \(size): sync: another device writes 10,000 records")
        let other = try SyncLogWriter(layout: SyncLayout(folder: folder), device: SyncRecord.newID())
        let project = SyncRecord.newID()
        var drafts = [SyncDraft(kind: .project, id: project, operation: .create,
                                fields: ["name": .string("Elsewhere"), "color": .string("#3465a4"), "category": .string(""), "archived": .bool(false)])]
        for index in 0..<9_999 {
            let start = now - 86400 * 30 - Int64(index) * 3600
            drafts.append(SyncDraft(kind: .session, id: SyncRecord.newID(), operation: .create, fields: [
                "project": .string(project), "start": .int(start), "end": .int(start + 1800), "note": .string("from elsewhere \(index)"),
                "segments": .array([.array([.int(start), .int(start + 1800)])]), "unrecorded": .int(0), "origin": .string(other.device)]))
        }
        try other.append(drafts, wallMilliseconds: now * 1000 + 1)
        var merged = 0
        add("sync: merge 10,000 incoming records (one change)", "ms", try timed(1) { merged = try engine.merge(wallMilliseconds: now * 1000 + 2) })
        guard merged == 10_000 else { throw BenchError("merged \(merged) of 10,000 records") }
        try home.tracker.stop()
        try engine.stop()
    }

    // A restart with sync on and nothing new: the merged state is the one the store kept.
    var readAtStart = -1
    add("sync: core start-up with sync on, nothing new (store opened, sync started)", "ms", try timed(1) {
        let home = try DataHome(directory: data)
        let engine = try SyncEngine(tracker: home.tracker, folder: folder, device: device, deviceName: "bench", wallMilliseconds: now * 1000 + 3)
        readAtStart = engine.readAtStart
    })
    guard readAtStart == 0 else { throw BenchError("a restart with nothing new read \(readAtStart) records") }
    Files.remove(data)
    Files.remove(data + "-off")
    Files.remove(folder)
    return rows
}

/// Wake-ups of an idle agent with sync on (inotify on the folder, nothing else): the goal is 0.
func measureSyncWakeUps(agent: Agent, client: BusConnection, work: String, window: Double,
                        add: (String, String, [Double]) -> Void) throws {
    let folder = work + "/sync-idle"
    Files.remove(folder)
    _ = try call(client, "EnableSync", [.string(folder), .string("bench")])
    usleep(500_000)
    let before = agent.voluntarySwitches
    usleep(UInt32(window * 1_000_000))
    add("wake-ups over the window, idle, sync on", "switches", [Double(agent.voluntarySwitches - before)])
    _ = try call(client, "DisableSync")
}

/// The mean of all but the slowest 1% of the samples.
func trimmedMean(_ samples: [Double]) -> Double {
    let kept = samples.sorted().prefix(max(1, samples.count * 99 / 100))
    return kept.reduce(0, +) / Double(kept.count)
}

/// A local change with sync on costs at most 1.2× the same change with sync off.
func syncChangeVerdict(_ row: Row, in rows: [Row]) -> String {
    let base = row.metric.hasSuffix("(change + publish)") ? "core: durable change, sync off" : "core: durable change, sync off, mean of the fastest 99%"
    guard let off = rows.first(where: { $0.size == row.size && $0.metric == base })?.summary.median, off > 0 else { return "" }
    let ratio = row.summary.median / off
    return ratio <= 1.2 ? "ok (\(format(ratio))× of sync off, goal ≤ 1.2×)" : "MISSED (\(format(ratio))× of sync off, goal ≤ 1.2×)"
}
