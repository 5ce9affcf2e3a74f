import Glibc

/// Wall-clock marks along the path of one request, for scripts/profile-durable-path.sh
/// (docs/durable-path.md): each part is the time from the mark before it to its own. Off unless
/// `TIME_PATH_TRACE` names a file: a mark then costs one test of a constant. On, a mark costs one
/// clock_gettime and the parts' medians and means are written to that file at exit.
/// Everything runs on the agent's one main-loop thread.
public enum PathTrace {
    public static let enabled = getenv("TIME_PATH_TRACE") != nil

    nonisolated(unsafe) private static var last: UInt64 = 0
    nonisolated(unsafe) private static var began: UInt64 = 0
    nonisolated(unsafe) private static var calls: [String] = []
    /// The time this request spent in flushes (parts named "… fdatasync"), for `<file>.calls`.
    nonisolated(unsafe) private static var flushed: UInt64 = 0
    nonisolated(unsafe) private static var active = false
    nonisolated(unsafe) private static var order: [String] = []
    nonisolated(unsafe) private static var samples: [String: [UInt64]] = [:]

    /// A request starts (its message was taken off the connection).
    @inline(__always) public static func begin() {
        if enabled { active = true; last = clock(); began = last; flushed = 0 }
    }

    /// The reply is on its way: the whole path from `begin`, per method, beside the parts; and a
    /// line in `<file>.calls` (method, begin, reply: CLOCK_MONOTONIC ns, the clock every process
    /// shares; then the ns spent flushing) so that a client's own times can be matched with it
    /// (scripts/durable-split.py).
    /// (`method` is read only when tracing: off, a mark costs one test of a constant.)
    @inline(__always) public static func replied(_ method: @autoclosure () -> String) {
        if enabled && active { recordReply(method()) }
    }

    private static func recordReply(_ method: String) {
        let now = clock(), part = "= begin to reply: " + method
        if samples[part] == nil { order.append(part) }
        samples[part, default: []].append(now - began)
        calls.append("\(method)\t\(began)\t\(now)\t\(flushed)\n")
        last = clock()
    }

    /// The part that ended now; nothing outside a request.
    @inline(__always) public static func mark(_ part: StaticString) {
        if enabled && active { record(part.description) }
    }

    /// The request's path ended (after the work that follows the reply).
    @inline(__always) public static func end() {
        if enabled && active { record("(rest of the handler)"); active = false }
    }

    private static func clock() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    private static func record(_ part: String) {
        let now = clock()
        if samples[part] == nil { order.append(part) }
        samples[part, default: []].append(now - last)
        if part.hasSuffix("fdatasync") { flushed += now - last }
        // The bookkeeping above is not counted in the next part.
        last = clock()
    }

    /// Writes one line per part, in the order first seen: name, count, median and mean in µs.
    public static func write() {
        guard enabled, let path = getenv("TIME_PATH_TRACE") else { return }
        var text = "part\tcount\tmedian_us\tmean_us\n"
        for part in order {
            let values = samples[part, default: []].sorted()
            guard !values.isEmpty else { continue }
            let median = Double(values[values.count / 2]) / 1000
            let mean = Double(values.reduce(0, +)) / Double(values.count) / 1000
            text += "\(part)\t\(values.count)\t\(rounded(median))\t\(rounded(mean))\n"
        }
        // Appended: a bench starts one agent per run, and all its runs are matched at once.
        if let file = fopen(String(cString: path) + ".calls", "a") {
            calls.forEach { fputs($0, file) }
            fclose(file)
        }
        guard let file = fopen(path, "w") else { return }
        fputs(text, file)
        fclose(file)
    }

    private static func rounded(_ value: Double) -> String { String((value * 10).rounded() / 10) }
}
