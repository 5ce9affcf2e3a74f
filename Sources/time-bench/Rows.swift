// The rows time-bench prints: a series summarised, and the verdict of each against the goals.

/// Median, minimum and maximum of a series, in the unit of the samples.
struct Summary {
    let median: Double, min: Double, max: Double, count: Int
    init(_ samples: [Double]) {
        let sorted = samples.sorted()
        count = sorted.count
        median = sorted.isEmpty ? 0 : (sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2)
        min = sorted.first ?? 0
        max = sorted.last ?? 0
    }
}

struct Row {
    let size: Int
    let metric: String
    let unit: String
    let summary: Summary
}

/// The goals of the project (on a 2-core machine, medians), checked against the rows.
/// Returns a verdict for a row, or "" where there is no goal for it.
func verdict(_ row: Row, in rows: [Row]) -> String {
    let median = row.summary.median
    if case let agent = syncAgentVerdict(row, in: rows), !agent.isEmpty { return agent }
    if case let durable = durableVerdict(row), !durable.isEmpty { return durable }
    func atMost(_ limit: Double) -> String { median <= limit ? "ok (≤ \(format(limit)))" : "MISSED (goal ≤ \(format(limit)))" }
    switch row.metric {
    case "D-Bus round trip: Pause" where row.size == 100_000, "D-Bus round trip: Resume" where row.size == 100_000:
        let floor = ["floor: one fdatasync of 4 KiB overwritten in place", "floor: D-Bus round trip, Ping (the agent does nothing)"]
            .compactMap { metric in rows.first { $0.size == row.size && $0.metric == metric }?.summary.median }
        guard floor.count == 2 else { return "" }
        let sum = floor[0] + floor[1]
        return median <= 1.5 * sum ? "ok (\(format(median / sum))× the floor, goal ≤ 1.5×)" : "MISSED (\(format(median / sum))× the floor, goal ≤ 1.5×)"
    case let name where name.hasPrefix("D-Bus round trip") && row.size == 100_000:
        let base = rows.first { $0.size == 1000 && $0.metric == name }?.summary.median
        let flat = base.map { median <= 1.2 * $0 ? "flat (\(format(median / $0))× of 1,000)" : "NOT FLAT (\(format(median / $0))× of 1,000)" } ?? ""
        return atMost(1) + (flat.isEmpty ? "" : ", " + flat)
    case "core: durable change, sync on (change + publish)", "core: durable change, sync on, mean of the fastest 99% (with the log's batch flushes)":
        return syncChangeVerdict(row, in: rows)
    case let name where name.hasPrefix("flushes per change"):
        // SQLite's own checkpoint (every 1,000 pages) and the batch flush of chunks (SnapshotKeeper+Chunks) add one now and then.
        return median <= 1.1 ? "ok (goal 1, \(format(median)) with checkpoints)" : "MISSED (goal 1)"
    case let name where name.hasPrefix("core: ") && row.size > 1000:
        guard let base = rows.first(where: { $0.size == 1000 && $0.metric == name })?.summary.median else { return "" }
        return median <= 1.2 * base ? "flat (\(format(median / base))× of 1,000)" : "NOT FLAT (\(format(median / base))× of 1,000, goal ≤ 1.2×)"
    case "WeeklyReport json, a week mid-history" where row.size == 100_000: return atMost(5)
    case reportMonthMetric where row.size == 100_000:
        let base = rows.first { $0.size == 1000 && $0.metric == reportMonthMetric }?.summary.median
        let flat = base.map { median <= 1.2 * $0 ? "flat (\(format(median / $0))× of 1,000)" : "NOT FLAT (\(format(median / $0))× of 1,000, goal ≤ 1.2×)" } ?? ""
        return atMost(5) + (flat.isEmpty ? "" : ", " + flat)
    case reportYearMetric:
        guard let month = rows.first(where: { $0.size == row.size && $0.metric == reportMonthMetric })?.summary.median else { return "" }
        return median <= 12 * month ? "ok (\(format(median / month))× a month, goal ≤ 12×)" : "MISSED (\(format(median / month))× a month, goal ≤ 12×)"
    case let name where name.hasPrefix("agent start to name owned") && row.size == 100_000: return atMost(100)
    case "idle RSS": return atMost(20)
    case let name where name.hasPrefix("wake-ups"): return median == 0 ? "ok (0)" : "MISSED (goal 0)"
    case trayTickMetric: return trayTickVerdict(median, window: options.window)
    default: return ""
    }
}

func format(_ value: Double) -> String {
    let rounded = (value * 1000).rounded() / 1000
    return value >= 100 ? String(Int(value.rounded())) : String(rounded)
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
