/// Away from the desk: spans of a running session's time while the person was away, kept
/// (and counted) until they answer keep, discard or stop. Nothing is removed without an answer.
extension Tracker {
    /// One durable change with the sentence a person reads in the history (`timectl history`).
    @discardableResult
    func awayChange<T>(_ description: String, _ body: () throws -> T) throws -> T {
        try change {
            describeStep(description)
            return try body()
        }
    }

    // MARK: Reading

    /// Idle minutes that count as away; 0 turns idle detection off.
    public var awayMinutes: UInt32 { (try? store.awayMinutes()) ?? AwayState.defaultMinutes }

    /// When the current away span began; 0 when the person is present.
    public func awaySince() throws -> Int64 { try store.currentAwaySpan()?.start ?? 0 }

    /// The span still lasting (the person has not come back yet), if any.
    public func lastingAwaySpan() throws -> AwaySpan? { try store.currentAwaySpan() }

    /// Unanswered spans that count (one minute or longer, lasting or not), oldest first.
    public func pendingAway() throws -> [AwaySpan] {
        let now = clock.now()
        return try store.awaySpans().filter { $0.counts(at: now) }.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
    }

    /// The name of the project of a span's session ("" when the session is gone).
    public func projectName(of span: AwaySpan) -> String {
        guard let session = try? store.session(id: span.sessionID) else { return "" }
        return project(id: session.projectID)?.name ?? ""
    }

    // MARK: Settings

    public func setAwayMinutes(_ minutes: UInt32) throws {
        guard minutes <= AwayState.maximumMinutes else {
            throw TrackerError.invalidArgument("AwayMinutes must be between 0 (idle detection off) and \(AwayState.maximumMinutes) (a day); got \(minutes).")
        }
        guard minutes != awayMinutes else { return }
        let description = minutes == 0 ? "Turned idle detection off" : "Set away detection to \(minutes) idle minutes"
        try awayChange(description) { try store.setAwayMinutes(minutes) }
    }

    // MARK: Leaving and coming back

    /// The person left at `time` (clamped to the running segment's start). Nothing is recorded
    /// unless a session runs; while a span lasts, a second "left" changes nothing.
    /// Returns the span's start when one is (or already was) lasting.
    @discardableResult
    public func markAway(reason: AwayReason, at time: Int64) throws -> Int64? {
        if let current = try store.currentAwaySpan() { return current.start }
        guard let open = openSession, open.isRunning, let running = open.segments.last else { return nil }
        let start = min(max(time, running.start), max(clock.now(), running.start))
        let description = "Away from \(project(id: open.projectID)?.name ?? "the session") since \(LocalTime.clock(start)) (\(reason.phrase))"
        try awayChange(description) {
            try store.insertAwaySpan(AwaySpan(id: 0, sessionID: open.id, start: start, end: nil, reason: reason))
        }
        return start
    }

    /// The person is back at `time`. Returns the span that ended when it counts (one minute or
    /// longer): the one to ask about. No error when nobody was away.
    @discardableResult
    public func markBack(at time: Int64) throws -> AwaySpan? {
        guard var current = try store.currentAwaySpan() else { return nil }
        let end = max(time, current.start)
        current.end = end
        let counts = current.counts(at: end)
        let description = "Back at \(LocalTime.clock(end))"
        try awayChange(description) { try endAwaySpan(at: end) }
        return counts ? current : nil
    }

    /// Inside a change: the lasting span ends at `time` (pausing or stopping ends it there); a
    /// span shorter than a minute is forgotten.
    func endAwaySpan(at time: Int64) throws {
        guard let current = try store.currentAwaySpan() else { return }
        let end = max(time, current.start)
        if end - current.start < AwaySpan.minimumSeconds {
            try store.deleteAwaySpan(id: current.id)
        } else {
            try store.endAwaySpan(id: current.id, at: end)
        }
    }

    // MARK: Answering

    /// The pending span `id` (0: the newest by start, lasting or not).
    public func pendingAwaySpan(_ id: Int64) throws -> AwaySpan {
        let pending = try pendingAway()
        if id == 0, let newest = pending.last { return newest }
        if id != 0, let span = pending.first(where: { $0.id == id }) { return span }
        throw TrackerError.noSuchAway(pending.isEmpty
            ? "Nothing is waiting for an answer: no away time is pending."
            : "There is no pending away time with id \(id); list them with PendingAway (timectl away).")
    }

    /// Answers a pending span: `keep`, `discard` or `stop`. A lasting span ends now first.
    /// Returns the span as it was answered (with its end).
    @discardableResult
    public func resolveAway(id: Int64, choice raw: String) throws -> AwaySpan {
        guard let choice = AwayChoice(rawValue: raw.trimmingWhitespace().lowercased()) else {
            throw TrackerError.invalidArgument("\"\(raw.prefix(40))\" is not an answer for away time; use keep, discard or stop.")
        }
        var span = try pendingAwaySpan(id)
        let now = clock.now()
        span.end = max(span.end ?? now, span.start)
        let session = try store.session(id: span.sessionID)
        let name = session.flatMap { project(id: $0.projectID)?.name } ?? "the session"
        let minutes = AwayText.duration(span.seconds(at: now))
        let range = "\(LocalTime.clock(span.start))–\(LocalTime.clock(span.end!))"
        let description: String
        switch choice {
        case .keep: description = "Kept \(minutes) away from \(name) (\(range))"
        case .discard: description = "Discarded \(minutes) away from \(name) (\(range))"
        case .stop: description = "Stopped \(name) at \(LocalTime.clock(span.start)) (away since then)"
        }
        try awayChange(description) {
            try store.deleteAwaySpan(id: span.id)
            guard let session else { return }
            switch choice {
            case .keep: break
            case .discard: try cut(span.start, span.end!, from: session)
            case .stop: try stopSession(session, at: span.start)
            }
        }
        return span
    }

    /// The interval [from, to] leaves the session's segments; a running segment that reached
    /// past `to` goes on running from `to`.
    private func cut(_ from: Int64, _ to: Int64, from session: WorkSession) throws {
        var updated = session
        updated.segments = AwayCut.segments(session.segments, removing: from, to)
        guard updated.segments != session.segments else { return }
        try store.updateSession(updated, previous: session, segmentsChanged: true)
        if updated.isOpen { openSession = updated }
    }

    /// The session ends at `time`: an open one is completed there, a completed one's end moves
    /// back there; later segments are cut, and its later spans are answered with it.
    private func stopSession(_ session: WorkSession, at time: Int64) throws {
        var updated = session
        updated.segments = AwayCut.segments(session.segments, endingAt: time)
        updated.end = max(time, session.start)
        // Focus phases that ended while the person was away were not worked: they go too.
        updated.focus = session.focus.filter { $0.end <= time }
        try store.updateSession(updated, previous: session, segmentsChanged: true)
        for later in try store.awaySpans() where later.sessionID == session.id {
            try store.deleteAwaySpan(id: later.id)
        }
        if session.isOpen {
            openSession = nil
            try focusSessionStopped()  // as Stop does: the cycle ends
        }
    }
}

/// The segment arithmetic of discard and stop, pure so that it can be tested on its own.
public enum AwayCut {
    /// `segments` without [from, to]; an open segment that began before `to` goes on from `to`.
    public static func segments(_ segments: [Segment], removing from: Int64, _ to: Int64) -> [Segment] {
        var result: [Segment] = []
        for segment in segments {
            let end = segment.end ?? Int64.max
            if end <= from || segment.start >= to {
                result.append(segment)
                continue
            }
            if segment.start < from { result.append(Segment(start: segment.start, end: from)) }
            if segment.end == nil {
                result.append(Segment(start: max(to, segment.start), end: nil))
            } else if end > to {
                result.append(Segment(start: to, end: end))
            }
        }
        return result
    }

    /// `segments` ending at `time`: later ones removed, one that spans it closed there.
    public static func segments(_ segments: [Segment], endingAt time: Int64) -> [Segment] {
        segments.compactMap { segment in
            if segment.start >= time { return nil }
            if let end = segment.end, end <= time { return segment }
            return Segment(start: segment.start, end: time)
        }
    }
}

/// Durations as the away texts show them.
public enum AwayText {
    /// "42 min", "1 h 05 min".
    public static func duration(_ seconds: Int64) -> String {
        let minutes = max(0, seconds) / 60
        if minutes < 60 { return "\(minutes) min" }
        let rest = minutes % 60
        return "\(minutes / 60) h \(rest < 10 ? "0" : "")\(rest) min"
    }
}
