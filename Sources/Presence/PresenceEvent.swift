/// What the desktop says about the person: they left at a moment, or they are back.
public enum PresenceEvent: Equatable, Sendable {
    case left(reason: PresenceReason, at: Int64)
    case back(at: Int64)
}

public enum PresenceReason: String, Sendable {
    case suspend, lock, idle
}

/// The moments of the kernel's clocks, in nanoseconds; tests inject their own.
public protocol PresenceClock: AnyObject {
    func realtime() -> Int64
    func monotonic() -> Int64
    func boottime() -> Int64
}

/// Several sources may say "away" at once (locked, then suspended): the person left when the
/// first one said so, and is back only when none says so any more.
struct PresenceConditions {
    private(set) var active: [String: (reason: PresenceReason, since: Int64)] = [:]

    /// Returns the event to report, if the overall state changed.
    mutating func set(_ source: String, away: Bool, reason: PresenceReason, at time: Int64) -> PresenceEvent? {
        let wasAway = !active.isEmpty
        if away {
            if active[source] == nil { active[source] = (reason, time) }
        } else {
            active[source] = nil
        }
        if !wasAway, let first = active.values.min(by: { $0.since < $1.since }) {
            return .left(reason: first.reason, at: first.since)
        }
        if wasAway && active.isEmpty { return .back(at: time) }
        return nil
    }

    var isAway: Bool { !active.isEmpty }
}
