/// The one validator for every time a person gives to the timer (contract: "Fixing what was
/// forgotten"): `StartProjectAt`, `PauseAt`, `ResumeAt`, `StopAt` and the open session's new
/// start. The D-Bus methods, timectl and the window all end here, so the rules are the same
/// everywhere; the clients only parse what people type.
public enum GivenTime {
    /// A time this far ahead of the agent's clock still counts as now (a clock a little ahead, a
    /// typed "now" that took a moment to arrive); further ahead is the future.
    public static let futureGrace: Int64 = 5
    /// How far back a correction of the timer may reach; older times are edits of the past.
    public static let longestBack: Int64 = 24 * 3600

    /// `time` if it is a time the timer can be given now, clamped to `now` inside the grace;
    /// otherwise `InvalidArgument` saying why and what to use instead. `what` names the time
    /// in the sentence ("the start", "the pause").
    public static func checked(_ time: Int64, _ what: String, now: Int64) throws -> Int64 {
        guard time >= 0 && time <= Tracker.latestTime else {
            throw TrackerError.invalidArgument("The time given for \(what) (\(time)) is not a time between 1970 and 9999 (Unix seconds).")
        }
        if time > now + futureGrace {
            throw TrackerError.invalidArgument(
                "The time given for \(what) (\(GivenTime.shown(time, now: now))) is in the future; give a time up to now.")
        }
        if time < now - longestBack {
            // A timer left running over a weekend is the common case: say the way that works.
            let stopping = what == "the end"
                ? " To end a session left running longer, stop it now and then give it its duration with EditSession (timectl stop, then timectl edit ID --duration 8h)." : ""
            throw TrackerError.invalidArgument(
                "The time given for \(what) (\(GivenTime.shown(time, now: now))) is more than 24 hours ago; for the past, enter a completed session with AddSession (timectl add) or change one with EditSession (timectl edit).\(stopping)")
        }
        return min(time, now)
    }

    /// `09:00`, or `2026-06-01 09:00` when it is not on today's local date.
    public static func shown(_ time: Int64, now: Int64) -> String {
        LocalTime.date(of: time) == LocalTime.date(of: now) ? LocalTime.clock(time) : "\(LocalTime.date(of: time)) \(LocalTime.clock(time))"
    }

    /// A completed session as an `Overlap` message names it: `Email 2026-06-01 08:30–09:20 (session 12)`.
    static func named(_ session: WorkSession, project: String) -> String {
        let end = session.end.map { LocalTime.clock($0) } ?? "now"
        return "\(project) \(LocalTime.date(of: session.start)) \(LocalTime.clock(session.start))–\(end) (session \(session.id))"
    }
}

/// What a correction would do to the completed sessions it reaches into: each one that ends after
/// the new start either refuses the correction (`Overlap`) or, with `adjust`, ends at the new
/// start instead. A session that began at or after the new start is never shortened to nothing
/// or removed: `Overlap` even with `adjust`.
struct OverlapRule {
    let start: Int64
    let adjust: Bool
    let projectName: (ProjectID) -> String

    /// Throws `Overlap` unless `overlapped` may be shortened (with `adjust`) or is empty.
    func check(_ overlapped: [WorkSession], adjustHint: String) throws {
        guard !overlapped.isEmpty else { return }
        let names = overlapped.map { GivenTime.named($0, project: projectName($0.projectID)) }.joined(separator: "; ")
        let later = overlapped.filter { $0.start >= start }
        let at = LocalTime.clock(start)
        if !later.isEmpty {
            let latest = overlapped.compactMap(\.end).max() ?? start
            throw TrackerError.overlap(
                "Starting at \(at) would overlap \(names); a session that began at or after \(at) is never shortened or removed, so choose a time from \(LocalTime.clock(latest)) on, or edit that session first with EditSession (timectl edit SESSION).")
        }
        guard adjust else {
            let latest = overlapped.compactMap(\.end).max() ?? start
            throw TrackerError.overlap(
                "Starting at \(at) would overlap \(names); \(adjustHint) to end \(overlapped.count == 1 ? "it" : "them") at \(at) instead, or choose a time from \(LocalTime.clock(latest)) on.")
        }
    }
}
