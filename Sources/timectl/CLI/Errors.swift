/// Exit statuses of timectl.
enum ExitStatus: Int32 {
    case success = 0
    /// The agent refused the action (its message goes to stderr).
    case refused = 1
    /// Bad usage: unknown command or option, missing or malformed argument.
    case usage = 2
    /// No agent could be reached (no bus, the name has no owner and cannot be activated, no reply).
    case unreachable = 3
}

/// Bad usage; reported with a hint to `--help` and exit status 2.
struct UsageError: Error {
    var message: String
    var commandPath: [String] = []
}

/// The agent (or timectl on its behalf) refused the action: exit status 1.
struct RefusedError: Error {
    var message: String
    /// The agent's error name without the interface prefix (`NoSuchProject`); "" when timectl refused.
    var name = ""
}

/// No agent to talk to: exit status 3.
struct UnreachableError: Error {
    var message: String
}
