import Foundation

/// Polls `condition` like `wait(seconds:)`, but a timeout is an error naming `what`: for a step
/// that the rest of a test cannot go on without.
public func waitFor(_ what: String, seconds: Double, _ condition: () throws -> Bool) throws {
    guard try wait(seconds: seconds, condition) else { throw FixtureError("timed out waiting for \(what)") }
}
