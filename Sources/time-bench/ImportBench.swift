import Glibc
import TimeCore

/// Importing Timewarrior intervals through the core with real verified snapshots: `size`
/// intervals into an empty store, and 1,000 into the store that already holds them (the cost
/// must follow the records imported, not the store).
func measureImport(size: Int, options: Options, log: (String) -> Void) throws -> [Row] {
    var rows: [Row] = []
    let folder = options.work + "/timewarrior-\(size)"
    let data = options.work + "/import-\(size)"
    Files.remove(data)
    try? Files.makePrivateDirectory(folder)
    log("size \(size): writing \(size) Timewarrior intervals")
    let now = Int64(time(nil)) - 86400
    try writeTimewarrior(count: size, endingBefore: now, into: folder)
    try writeTimewarrior(count: 1000, endingBefore: now - Int64(size) * 7200 - 86400, into: folder + "-more")

    let home = try DataHome(directory: data)
    log("size \(size): importing them")
    var summary = try home.tracker.importData(format: "timewarrior", path: folder, dryRun: true)
    let whole = try timed(1) { summary = try home.tracker.importData(format: "timewarrior", path: folder, dryRun: false) }
    guard summary.sessions == size else { throw BenchError("imported \(summary.sessions) of \(size) intervals") }
    rows.append(Row(size: size, metric: "import \(size) Timewarrior intervals (one change)", unit: "ms", summary: Summary(whole)))
    let again = try timed(1) { summary = try home.tracker.importData(format: "timewarrior", path: folder, dryRun: false) }
    guard summary.skipped == size else { throw BenchError("a re-import did not skip everything") }
    rows.append(Row(size: size, metric: "re-import them (all skipped)", unit: "ms", summary: Summary(again)))
    let more = try timed(1) { summary = try home.tracker.importData(format: "timewarrior", path: folder + "-more", dryRun: false) }
    guard summary.sessions == 1000 else { throw BenchError("imported \(summary.sessions) of 1000 more intervals") }
    rows.append(Row(size: size, metric: "import 1,000 more into that store", unit: "ms", summary: Summary(more)))
    Files.remove(data)
    return rows
}

/// `count` intervals of 1 h every `spacing` seconds back from `end`, tagged with one of
/// `projects` projects ("Project N") and a tag.
func writeTimewarrior(count: Int, endingBefore end: Int64, into folder: String, spacing: Int64 = 7200, projects: Int = 20) throws {
    try? Files.makePrivateDirectory(folder)
    var text = ""
    text.reserveCapacity(count * 70)
    for index in 0..<count {
        let start = end - Int64(index + 1) * spacing
        text += "inc \(stamp(start)) - \(stamp(start + 3600)) # \"Project \(index % projects + 1)\" billable\n"
    }
    // One file: Timewarrior's files are named by month, but the reader infers nothing from names.
    try Files.writeDurably(Array(text.utf8), to: "\(folder)/2000-01.data")
}

private func stamp(_ time: Int64) -> String {
    var seconds = time_t(time)
    var parts = tm()
    gmtime_r(&seconds, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
}
