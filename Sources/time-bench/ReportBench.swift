import DBusKit
import Glibc
import TimeCore

/// The report rows: a month's and a year's `Report` over D-Bus, mid-history (goals in `verdict`).
let reportMonthMetric = "Report json, a month mid-history (by day)"
let reportYearMetric = "Report json, a year mid-history (by month)"

/// A month's and a year's Report around the middle of the history, over D-Bus.
func rangeReportRows(size: Int, client: BusConnection, middle: String) throws -> [Row] {
    let reportOptions = DBusValue.vardict(["format": .string("json")])
    return [
        Row(size: size, metric: reportMonthMetric, unit: "ms",
            summary: Summary(try timed(50) { _ = try call(client, "Report", [.string(String(middle.prefix(7))), reportOptions]) })),
        Row(size: size, metric: reportYearMetric, unit: "ms",
            summary: Summary(try timed(20) { _ = try call(client, "Report", [.string(String(middle.prefix(4))), reportOptions]) })),
    ]
}

/// `--reports-only`: an agent on the history, and the report rows alone.
func measureReports(size: Int, options: Options, agentBinary: String, data: String, now: Int64) throws -> [Row] {
    let bus = try PrivateBus(work: options.work)
    defer { bus.stop() }
    let client = try BusConnection(address: bus.address)
    defer { client.close() }
    let agent = try Agent(binary: agentBinary, dataDirectory: data, address: bus.address)
    defer { agent.stop() }
    while (try? client.nameHasOwner(busName)) != true { usleep(1000) }
    let middle = CivilDate(dayNumber: Int((now - Int64(size / 8 / 2) * 86400) / 86400)).description
    _ = try call(client, "Report", [.string(String(middle.prefix(7))), .vardict([:])]) // the first read warms the page cache
    return try rangeReportRows(size: size, client: client, middle: middle)
}
