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

/// Times `count` runs of `body` and counts the flushes they made.
func timedWithFlushes(_ count: Int, changesEach: Int = 1, _ body: (Int) throws -> Void) rethrows -> (samples: [Double], flushes: Double?) {
    let before = flushCount()
    var index = 0
    let samples = try timed(count) {
        try body(index)
        index += 1
    }
    guard let before, let after = flushCount() else { return (samples, nil) }
    return (samples, Double(after - before) / Double(count * changesEach))
}

func measureChangeKinds(_ tracker: Tracker, now: Int64, add: (String, String, [Double]) -> Void) throws {
    func row(_ metric: String, _ result: (samples: [Double], flushes: Double?)) {
        add("core: " + metric, "ms", result.samples)
        if let flushes = result.flushes { add("flushes per change: " + metric, "", [flushes]) }
    }
    let project = try tracker.resolveProject("Bench A").id
    // The same day two years back at every size: inside the history at 20,000 and 100,000 sessions.
    let old = now - 2 * 365 * 86400 - (now % 86400) + 9 * 3600
    var ids: [SessionID] = []
    row("AddSession 30 min, 2 years back", try timedWithFlushes(20) { i in
        ids.append(try tracker.addSession(project: project, start: old + Int64(i) * 1800, duration: "30m", note: ""))
    })
    row("EditSession, 2 years back", try timedWithFlushes(ids.count) { i in
        try tracker.editSession(id: ids[i], changes: SessionChanges(duration: "25m"))
    })
    row("SetNote, 2 years back", try timedWithFlushes(ids.count) { i in
        try tracker.setNote(session: ids[i], note: "note \(i)")
    })
    row("DeleteSession, 2 years back", try timedWithFlushes(ids.count) { i in
        try tracker.deleteSession(id: ids[i])
    })
    // A different day each: the chunks written pile up in the slots until their batch flush.
    row("AddSession 30 min, a new day each, 2-3 years back", try timedWithFlushes(64) { i in
        _ = try tracker.addSession(project: project, start: old - Int64(i + 1) * 5 * 86400, duration: "30m", note: "")
    })
    row("UpdateProject rename", try timedWithFlushes(20) { i in
        try tracker.updateProject(id: project, changes: ProjectChanges(name: i % 2 == 0 ? "Bench Renamed" : "Bench A"))
    })
    for i in 0..<20 { try tracker.addCategory("Bench category \(i)") }
    row("DeleteCategory", try timedWithFlushes(20) { i in try tracker.deleteCategory("Bench category \(i)") })
    try tracker.startProject("Bench A")
    row("Pause or Resume", try timedWithFlushes(100) { _ in
        if try tracker.status().state == .running { try tracker.pause() } else { try tracker.resume() }
    })
    row("StartProject (switch)", try timedWithFlushes(40) { i in try tracker.startProject(i % 2 == 0 ? "Bench B" : "Bench A") })
    row("StartProject then Stop (two changes)", try timedWithFlushes(20, changesEach: 2) { _ in
        try tracker.startProject("Bench A")
        _ = try tracker.stop()
    })
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
        try stale.database.execute("UPDATE meta SET value = 'not kept' WHERE key = 'snapshot_state'")
    }
    let wholeState = try start(expecting: "rolled forward")
    return (current, byDays, wholeState)
}
