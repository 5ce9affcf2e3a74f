import DBusCore
import Glibc

/// What a command runs with: the clock, the terminal, the agent.
final class Context {
    /// Unix seconds. For tests: `TIMECTL_NOW` (Unix seconds) replaces the clock, and
    /// `TIMECTL_CLOCK_OFFSET` (seconds) moves the real clock.
    let now: Int64
    private let offset: Double
    /// 24-bit color in tables: stdout is a terminal and NO_COLOR is not set.
    let color: Bool
    private var client: AgentClient?

    init() {
        offset = Context.environment("TIMECTL_CLOCK_OFFSET").flatMap(Double.init) ?? 0
        if let text = Context.environment("TIMECTL_NOW"), let value = Int64(text) {
            now = value
        } else {
            now = Int64(time(nil)) + Int64(offset)
        }
        color = isatty(STDOUT_FILENO) == 1 && (Context.environment("NO_COLOR") ?? "").isEmpty
            && Context.environment("TERM") != "dumb"
    }

    /// Connects on first use.
    func agent() throws -> AgentClient {
        if let client { return client }
        let made = try AgentClient()
        client = made
        return made
    }

    /// The calls of a command run from a keyboard shortcut (toggle, start, stop, status …), in
    /// one round trip: spoken over the bus socket by `QuickCall` when timectl has no libdbus
    /// connection yet and the bus address is a Unix socket, else through `agent()` (which also
    /// reports a bus that cannot be reached). Each result is the reply or its error (`reply()`).
    func quickCalls(_ calls: [AgentCall]) throws -> [Result<[DBusValue], BusError>] {
        if client == nil, let results = QuickCall.session(calls) { return results }
        return try agent().callPipelined(calls)
    }

    /// One call of the Time1 interface through `quickCalls`.
    func quickCall(_ member: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try quickCalls([.agent(member, arguments)])[0].reply()
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    /// The current time with sub-second precision (for aligning the panel's minute ticks).
    func preciseNow() -> Double {
        if Context.environment("TIMECTL_NOW") != nil { return Double(now) }
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9 + offset
    }
}

/// Writes all of `text` to a file descriptor, unbuffered; false when it cannot (a closed pipe).
@discardableResult
func writeAll(_ fd: Int32, _ text: String) -> Bool {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if written < 0 {
            if errno == EINTR { continue }
            return false
        }
        bytes = bytes.dropFirst(written)
    }
    return true
}

/// Writes a line to stdout at once (panels read line by line); false when stdout is gone.
@discardableResult
func output(_ text: String) -> Bool {
    writeAll(STDOUT_FILENO, text.hasSuffix("\n") ? text : text + "\n")
}

/// Writes text to stdout as it is.
func fputsOut(_ text: String) {
    writeAll(STDOUT_FILENO, text)
}

func printError(_ text: String) {
    writeAll(STDERR_FILENO, "timectl: \(text)\n")
}
