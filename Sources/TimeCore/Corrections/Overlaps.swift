/// Which sessions overlap which: two sessions overlap when their wall-clock spans share time
/// (`a.start < b.end && b.start < a.end`; an open session reaches up to now, a session of 0
/// seconds overlaps nothing). Times typed by hand are never refused for an overlap, but it is
/// said: `ListSessions`' `overlaps`, timectl's warning, the window's mark, `Report`'s `overlapping`.
public enum Overlaps {
    /// The span a session covers, open ones up to `now`.
    static func span(_ session: WorkSession, now: Int64) -> (start: Int64, end: Int64) {
        (session.start, session.end ?? max(now, session.start))
    }

    /// For each session of `sessions`, the ids (ascending) of the sessions of `candidates` it
    /// overlaps; sessions without overlaps are left out. One sort and one sweep.
    public static func map(_ sessions: [WorkSession], among candidates: [WorkSession], now: Int64) -> [SessionID: [SessionID]] {
        let wanted = Set(sessions.map(\.id))
        var byID: [SessionID: WorkSession] = [:]
        for session in sessions + candidates { byID[session.id] = session }
        let ordered = byID.values.map { (id: $0.id, span: span($0, now: now)) }
            .filter { $0.span.end > $0.span.start }
            .sorted { ($0.span.start, $0.id) < ($1.span.start, $1.id) }
        var result: [SessionID: Set<SessionID>] = [:]
        var active: [(id: SessionID, end: Int64)] = []
        for item in ordered {
            active.removeAll { $0.end <= item.span.start }
            for other in active {
                if wanted.contains(item.id) { result[item.id, default: []].insert(other.id) }
                if wanted.contains(other.id) { result[other.id, default: []].insert(item.id) }
            }
            active.append((item.id, item.span.end))
        }
        return result.mapValues { $0.sorted() }
    }

    /// How many of `sessions` overlap another of them.
    public static func count(_ sessions: [WorkSession], now: Int64) -> Int {
        map(sessions, among: [], now: now).count
    }
}

extension Tracker {
    /// The overlaps of `sessions` with any session of the store (`ListSessions`' `overlaps`).
    public func overlaps(of sessions: [WorkSession]) throws -> [SessionID: [SessionID]] {
        let now = clock.now()
        let spans = sessions.map { Overlaps.span($0, now: now) }
        guard let from = spans.map(\.start).min(), let to = spans.map(\.end).max() else { return [:] }
        let candidates = try store.sessions(overlapping: from, min(to, Int64.max - 1) + 1)
        return Overlaps.map(sessions, among: candidates, now: now)
    }

    /// Completed sessions whose end lies after `start` and that began before now: those a session
    /// of this device open from `start` would overlap (`except`: the open session itself).
    func completedSessions(overlappingFrom start: Int64, except: SessionID?) throws -> [WorkSession] {
        let now = clock.now()
        return try store.sessions(overlapping: start, min(max(now, start), Int64.max - 1) + 1)
            .filter { !$0.isOpen && $0.id != except && $0.end! > start && $0.end! > $0.start }
    }
}
