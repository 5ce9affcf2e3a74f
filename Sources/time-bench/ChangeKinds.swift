import Glibc
import TimeCore

// Every kind of durable change, in the core (commit + verified snapshot, no bus), with the
// flushes each one costs, the floor of one in-place fdatasync, and the start-up roll-forward.
// Flushes are counted when scripts/bench.sh loads the crash recorder (LD_PRELOAD); otherwise
// those rows are left out.

/// fsync/fdatasync calls under the data folder so far, from the crash recorder when it is loaded.
func flushCount() -> Int? {
    guard let symbol = dlsym(nil, "time_crash_recorder_flushes") else { return nil }
    return Int(unsafeBitCast(symbol, to: (@convention(c) () -> UInt).self)())
}

/// One kind of change: `count` samples of `changesEach` changes, after `prepare`. As many as a
/// batch flush of chunks covers at most (SnapshotKeeper.carriedChanges), so that each kind's
/// flushes per change hold its share of those, not a whole one by chance.
struct ChangeKind {
    let metric: String
    var count = 64
    var changesEach = 1
    var prepare: (ChangeKindStore) throws -> Void = { _ in }
    let run: (ChangeKindStore, Int) throws -> Void
}

/// One size's store, opened for the change kinds, with what a kind keeps between its samples.
final class ChangeKindStore {
    let size: Int
    let home: DataHome
    var tracker: Tracker { home.tracker }
    let project: ProjectID
    /// The same day two years back at every size: inside the history at 20,000 and 100,000 sessions.
    let old: Int64
    var ids: [SessionID] = []

    init(size: Int, data: String, now: Int64) throws {
        self.size = size
        home = try DataHome(directory: data)
        project = try home.tracker.resolveProject("Bench A").id
        old = ChangeKindStore.oldDay(now: now) + 9 * 3600
    }

    /// The start (UTC) of the day two years back the edits touch.
    static func oldDay(now: Int64) -> Int64 { now - 2 * 365 * 86400 - (now % 86400) }

    /// The starts of every day the kinds touch years back: the edited day and the 64 new days.
    static func touchedDays(now: Int64) -> [Int64] {
        let day = oldDay(now: now)
        return [day] + (1...64).map { day - Int64($0) * 5 * 86400 }
    }

    func toggleTimer() throws {
        if try tracker.status().state == .running { try tracker.pause() } else { try tracker.resume() }
    }
}

var changeKinds: [ChangeKind] { [
    ChangeKind(metric: "durable change (pause or resume)", count: 200, prepare: { try $0.tracker.startProject("Bench A") }) { store, _ in
        try store.toggleTimer()
    },
    // Undo and redo of the newest step (a pause or resume), with the whole history kept in the store.
    ChangeKind(metric: "undo and redo of a timer change", count: 50) { store, _ in
        try store.tracker.undo()
        try store.tracker.redo()
    },
    ChangeKind(metric: "AddSession 30 min, 2 years back", prepare: { _ = try $0.tracker.stop() }) { store, i in
        store.ids.append(try store.tracker.addSession(project: store.project, start: store.old + Int64(i) * 600, duration: "30m", note: ""))
    },
    ChangeKind(metric: "EditSession, 2 years back") { store, i in
        try store.tracker.editSession(id: store.ids[i], changes: SessionChanges(duration: "25m"))
    },
    ChangeKind(metric: "SetNote, 2 years back") { store, i in try store.tracker.setNote(session: store.ids[i], note: "note \(i)") },
    ChangeKind(metric: "DeleteSession, 2 years back") { store, i in try store.tracker.deleteSession(id: store.ids[i]) },
    // A different day each: the chunks written pile up in the slots until their batch flush.
    ChangeKind(metric: "AddSession 30 min, a new day each, 2-3 years back") { store, i in
        _ = try store.tracker.addSession(project: store.project, start: store.old - Int64(i + 1) * 5 * 86400, duration: "30m", note: "")
    },
    ChangeKind(metric: "UpdateProject rename") { store, i in
        try store.tracker.updateProject(id: store.project, changes: ProjectChanges(name: i % 2 == 0 ? "Bench Renamed" : "Bench A"))
    },
    ChangeKind(metric: "DeleteCategory", prepare: { store in
        for i in 0..<64 { try store.tracker.addCategory("Bench category \(i)") }
    }) { store, i in try store.tracker.deleteCategory("Bench category \(i)") },
    ChangeKind(metric: "Pause or Resume", count: 100, prepare: { try $0.tracker.startProject("Bench A") }) { store, _ in
        try store.toggleTimer()
    },
    ChangeKind(metric: "StartProject (switch)") { store, i in try store.tracker.startProject(i % 2 == 0 ? "Bench B" : "Bench A") },
    ChangeKind(metric: "StartProject then Stop (two changes)", changesEach: 2) { store, _ in
        try store.tracker.startProject("Bench A")
        _ = try store.tracker.stop()
    },
] }

/// Every kind of change in the core at every size, the sizes taking turns sample by sample, so
/// that whatever the machine does meanwhile (its page cache and file system filling as the
/// benchmark runs) weighs on each size alike: the 1.2× goal compares sizes, not moments.
/// Returns each size's rows: the time of a change, and its flushes.
func measureChangeKinds(stores: [ChangeKindStore]) throws -> [Int: [Row]] {
    var rows: [Int: [Row]] = [:]
    for kind in changeKinds {
        for store in stores { try kind.prepare(store) }
        var samples = [[Double]](repeating: [], count: stores.count)
        var flushes = [Int](repeating: 0, count: stores.count)
        for index in 0..<kind.count {
            for (offset, store) in stores.enumerated() {
                let before = flushCount()
                samples[offset] += try timed(1) { try kind.run(store, index) }
                if let before, let after = flushCount() { flushes[offset] += after - before }
            }
        }
        for (offset, store) in stores.enumerated() {
            rows[store.size, default: []].append(Row(size: store.size, metric: "core: " + kind.metric, unit: "ms", summary: Summary(samples[offset])))
            if flushCount() != nil, kind.metric != "undo and redo of a timer change" {
                let perChange = Double(flushes[offset]) / Double(kind.count * kind.changesEach)
                rows[store.size, default: []].append(Row(size: store.size, metric: "flushes per change: " + kind.metric, unit: "",
                                                         summary: Summary([perChange])))
            }
        }
    }
    return rows
}

/// One fdatasync of a 4 KiB block overwritten in place: the floor of a durable change.
func measureFlushFloor(folder: String) throws -> [Double] {
    let path = folder + "/floor.tmp"
    let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw BenchError("could not create \(path)") }
    defer { close(fd); unlink(path) }
    var block = [UInt8](repeating: 0x2a, count: 4096)
    _ = block.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    _ = fsync(fd)
    return timed(200) {
        block[0] &+= 1
        _ = block.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        _ = fdatasync(fd)
    }
}

/// A start-up after a power cut took the store's last commits (an edit two years back and a timer
/// change): the store is put back as it was before them, so the start rolls it forward, by the
/// days they touched; and once more with no kept snapshot of the store's state, so the whole
/// state is restored (what every roll-forward cost before).
func measureRollForward(data: String, now: Int64) throws -> (current: Double, byDays: Double, wholeState: Double) {
    func start(expecting phrase: String?) throws -> Double {
        let begin = monotonic()
        let home = try DataHome(directory: data)
        let took = (monotonic() - begin) * 1000
        guard home.status.state == .ok else { throw BenchError("the store did not open: \(home.status.message)") }
        if let phrase, !home.warnings.contains(where: { $0.contains(phrase) }) {
            throw BenchError("the start did not roll forward as expected: \(home.warnings)")
        }
        return took
    }
    let store = data + "/time.sqlite"
    func loseTheLastCommits(round: Int64) throws {
        let before = try Files.read(store)      // closed cleanly: the store file is whole
        do {
            let home = try DataHome(directory: data)
            let old = now - 2 * 365 * 86400 - (now % 86400) + 14 * 3600 + round * 3600
            try home.tracker.addSession(project: try home.tracker.resolveProject("Bench A").id, start: old, duration: "30m", note: "lost")
            try home.tracker.startProject("Bench B")
        }
        try Files.writeDurably(before, to: store)
        for suffix in ["-wal", "-shm"] { Files.remove(store + suffix) }
    }
    let current = try start(expecting: nil)
    try loseTheLastCommits(round: 0)
    let byDays = try start(expecting: "the days they touched")
    try loseTheLastCommits(round: 1)
    do {
        let stale = try Store(path: store, create: false)
        try stale.database.execute(SnapshotMark.gatheredIntoItsTable + "UPDATE snapshot_mark SET state = 'not kept'")
    }
    let wholeState = try start(expecting: "rolled forward")
    return (current, byDays, wholeState)
}
