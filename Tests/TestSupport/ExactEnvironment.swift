import Foundation

extension Command {
    /// Runs `tool` like `run`, but with exactly `environment`: nothing is inherited from the test
    /// process, so a variable left out of it (say NO_COLOR) is really unset for the tool.
    @discardableResult
    public static func run(_ tool: String, _ arguments: [String], exactEnvironment environment: [String: String],
                           timeout: Double = 30) throws -> CommandResult {
        let assignments = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return try run("/usr/bin/env", ["-i"] + assignments + [tool] + arguments, timeout: timeout)
    }
}
