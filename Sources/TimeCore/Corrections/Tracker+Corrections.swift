/// The timer told what should have happened earlier (contract: "Fixing what was forgotten"):
/// start, switch, pause, resume and stop at a given time, and the open session's start, project
/// and note. Each is one change through the gate (one snapshot, one undo step) whose sentence
/// says both sides. Segments stay exact: a correction cuts or extends segments, never a total;
/// an away span inside time a correction removed goes with it.
extension Tracker {
    /// The session's project as a step's sentence names it (StepDescription's words).
    func name(_ session: WorkSession) -> String { project(id: session.projectID)?.name ?? "project #\(session.projectID)" }
    func clockText(_ time: Int64) -> String { LocalTime.clock(time) }
    private static let adjustHint = "give the option adjust (timectl's --adjust)"

    // MARK: Start and switch

    /// `StartProjectAt`: as `startProject`, as if called at `given`.
    @discardableResult
    public func startProject(_ reference: String, at given: Int64, adjust: Bool = false) throws -> SessionID {
        let project = try resolveProject(reference)
        let start = try GivenTime.checked(given, "the start", now: now)
        if let open = openSession, open.projectID == project.id {
            if start < open.start {
                try moveStart(of: open, to: start, adjust: adjust, projectID: nil, note: nil)
            } else if !open.isRunning {
                try resume(at: start)
            }
            return open.id
        }
        if let open = openSession, open.start >= start {
            throw TrackerError.overlap(
                "Starting \(project.name) at \(clockText(start)) would overlap \(name(open)), open since \(clockText(open.start)) (session \(open.id)); an open session that began later is never shortened to nothing, so choose a time after \(clockText(open.start)), or change its start first with EditSession (timectl edit current --start TIME).")
        }
        let overlapped = try completedSessions(overlappingFrom: start, except: openSession?.id)
        let rule = OverlapRule(start: start, adjust: adjust) { [unowned self] in self.project(id: $0)?.name ?? "project #\($0)" }
        try rule.check(overlapped, adjustHint: Tracker.adjustHint)
        return try change {
            var sentence = "Started \(project.name) at \(clockText(start))"
            // A focus phase paused with the open session goes on from its pause or from start,
            // whichever is later (a pause after start is cut away with the session's end).
            let pausedSince = openSession.flatMap { $0.isRunning ? nil : $0.segments.last?.end }
            if let open = openSession {
                try complete(open, endingAt: start)
                sentence += "; \(name(open)) ended \(clockText(start))"
            }
            sentence += try shorten(overlapped, toEndAt: start)
            let session = WorkSession(id: 0, projectID: project.id, start: start, end: nil, unrecordedSeconds: 0,
                                      note: "", segments: [Segment(start: start, end: nil)])
            let id = try store.insertSession(session)
            openSession = try store.session(id: id)
            try focusSessionResumed(at: max(start, pausedSince ?? start))
            describeStep(sentence)
            return id
        }
    }

    // MARK: Pause, resume, stop

    /// `PauseAt`: the running segment ends at `given` (not before it began). Already paused: the
    /// pause begins at `given` instead (the last segment's end moves there).
    public func pause(at given: Int64) throws {
        guard let open = openSession else { throw TrackerError.idle }
        let at = try GivenTime.checked(given, "the pause", now: now)
        guard let last = open.segments.last else { throw noSegments(open) }
        guard at >= last.start else {
            throw TrackerError.invalidArgument(
                "\(name(open))'s current stretch began at \(clockText(last.start)); the pause cannot begin before it (\(clockText(at))). To change when the session began, give it a new start with EditSession (timectl edit current --start TIME).")
        }
        if last.end == at { return }
        try change {
            var updated = open
            updated.segments[updated.segments.count - 1].end = at
            try store.updateSession(updated, previous: open, segmentsChanged: true)
            try fitAwaySpans(of: updated)
            if open.isRunning { try focusSessionPaused(at: at) } else { try focusPauseMoved(from: last.end ?? at, to: at) }
            openSession = updated
            describeStep(open.isRunning ? "Paused \(name(open)) at \(clockText(at))"
                : "Paused \(name(open)) since \(clockText(at)) instead of \(clockText(last.end ?? at))")
        }
    }

    /// `ResumeAt`: a new running segment begins at `given` (not before the pause began). Already
    /// running after a pause: the running stretch begins at `given` instead.
    public func resume(at given: Int64) throws {
        guard let open = openSession else { throw TrackerError.idle }
        let at = try GivenTime.checked(given, "the resume", now: now)
        guard let last = open.segments.last else { throw noSegments(open) }
        let pauseBegan: Int64
        if open.isRunning {
            guard open.segments.count >= 2, let previousEnd = open.segments[open.segments.count - 2].end else {
                throw TrackerError.invalidArgument(
                    "\(name(open)) has run since \(clockText(open.start)) without a pause, so there is no resume to move; to change when it started, give it a new start with EditSession (timectl edit current --start TIME).")
            }
            pauseBegan = previousEnd
        } else {
            pauseBegan = last.end ?? open.start
        }
        guard at >= pauseBegan else {
            throw TrackerError.invalidArgument(
                "\(name(open)) was paused at \(clockText(pauseBegan)); it cannot resume before that (\(clockText(at))).")
        }
        if open.isRunning && last.start == at { return }
        try change {
            var updated = open
            if open.isRunning {
                updated.segments[updated.segments.count - 1].start = at
                try store.updateSession(updated, previous: open, segmentsChanged: true)
                try fitAwaySpans(of: updated)
                try focusResumeMoved(from: last.start, to: at)
                describeStep("Resumed \(name(open)) at \(clockText(at)) instead of \(clockText(last.start))")
            } else {
                try store.openSegment(of: open.id, at: at)
                try focusSessionResumed(at: at)
                describeStep("Resumed \(name(open)) at \(clockText(at))")
            }
            openSession = try store.session(id: open.id)
        }
    }

    /// `StopAt`: the open session is completed at `given` (not before it began): segments after
    /// it are cut, a segment spanning it ends there.
    @discardableResult
    public func stop(at given: Int64) throws -> SessionID {
        guard let open = openSession else { throw TrackerError.idle }
        let end = try GivenTime.checked(given, "the end", now: now)
        guard end >= open.start else {
            throw TrackerError.invalidArgument(
                "\(name(open)) began at \(clockText(open.start)); it cannot end before it began (\(clockText(end))). To change when it began, give it a new start with EditSession (timectl edit current --start TIME).")
        }
        try change {
            try complete(open, endingAt: end)
            try focusSessionStopped()
        }
        return open.id
    }

    // MARK: The open session's start, project and note

    /// `EditSession` on the open session: `start` (moves its first segment's start; never past
    /// that segment's end, or now while it runs), `project`, `note`; `duration` is refused.
    func editOpenSession(_ open: WorkSession, changes: SessionChanges) throws {
        if changes.duration != nil {
            throw TrackerError.invalidArgument(
                "Session \(open.id) is still open, so it has no duration to set; end it at the time it should have ended with StopAt (timectl stop --at TIME), or, more than 24 hours back, stop it now and then give it its duration.")
        }
        let projectID = try changes.projectID.map { try project(withID: $0).id }
        let note = try changes.note.map { try TextInput.normalizedNote($0) }
        if let given = changes.start {
            try moveStart(of: open, to: try GivenTime.checked(given, "the start", now: now), adjust: changes.adjust,
                          projectID: projectID, note: note)
            return
        }
        var updated = open
        if let projectID { updated.projectID = projectID }
        if let note { updated.note = note }
        guard updated != open else { return }
        try change {
            try store.updateSession(updated, previous: open, segmentsChanged: false)
            openSession = updated
            if updated.projectID != open.projectID { describeStep("Moved the open session from \(name(open)) to \(name(updated))") }
        }
    }

    /// The open session begins at `start` (its first segment's start moves there), with the
    /// overlap rule for an earlier start; with `projectID`/`note`, those change in the same step.
    private func moveStart(of open: WorkSession, to start: Int64, adjust: Bool, projectID: ProjectID?, note: String?) throws {
        guard let first = open.segments.first else { throw noSegments(open) }
        if let end = first.end, start > end {
            throw TrackerError.invalidArgument(
                "\(name(open))'s first stretch ended at \(clockText(end)); its start cannot move past that (\(clockText(start))).")
        }
        let overlapped = start < open.start ? try completedSessions(overlappingFrom: start, except: open.id) : []
        let rule = OverlapRule(start: start, adjust: adjust) { [unowned self] in self.project(id: $0)?.name ?? "project #\($0)" }
        try rule.check(overlapped, adjustHint: Tracker.adjustHint)
        var updated = open
        updated.start = start
        updated.segments[0].start = start
        if let projectID { updated.projectID = projectID }
        if let note { updated.note = note }
        guard updated != open else { return }
        try change {
            try store.updateSession(updated, previous: open, segmentsChanged: start != open.start)
            try fitAwaySpans(of: updated)
            openSession = updated
            let what = updated.projectID != open.projectID ? "\(name(updated)) (was \(name(open)))" : name(updated)
            let moved = start == open.start ? "\(what) still started at \(clockText(start))"
                : "\(what) started at \(clockText(start)) instead of \(clockText(open.start))"
            describeStep(moved + (try shorten(overlapped, toEndAt: start)))
        }
    }

    // MARK: Inside a change

    /// Completes `open` at `end`: later segments cut, one spanning it ends there; its away spans follow.
    private func complete(_ open: WorkSession, endingAt end: Int64) throws {
        var done = open
        done.segments = AwayCut.segments(open.segments, endingAt: end)
        if done.segments.isEmpty && !open.segments.isEmpty { done.segments = [Segment(start: end, end: end)] }
        done.end = end
        done.focus = open.focus.filter { $0.end <= end }   // a phase in cut time was not worked
        try store.updateSession(done, previous: open, segmentsChanged: true)
        try fitAwaySpans(of: done)
        openSession = nil
    }

    /// Each of `sessions` ends at `start` instead (segments after it cut, active time before it
    /// kept). Returns the sentence's part: `; Email ended 09:00 instead of 09:20`.
    private func shorten(_ sessions: [WorkSession], toEndAt start: Int64) throws -> String {
        var sentence = ""
        for session in sessions {
            var shortened = session
            shortened.segments = AwayCut.segments(session.segments, endingAt: start)
            shortened.end = start
            shortened.focus = session.focus.filter { $0.end <= start }
            try store.updateSession(shortened, previous: session, segmentsChanged: true)
            try fitAwaySpans(of: shortened)
            sentence += "; \(name(session)) ended \(clockText(start)) instead of \(clockText(session.end ?? start))"
        }
        return sentence
    }

    /// The session's away spans keep only time that is still active: a span wholly in removed
    /// time disappears, one partly in it shrinks to the active segments it touches, a lasting one
    /// of a session no longer running ends where the running stopped (under a minute: forgotten).
    private func fitAwaySpans(of session: WorkSession) throws {
        for span in try store.awaySpans() where span.sessionID == session.id {
            let spanEnd = span.end ?? Int64.max
            let touched = session.segments.filter { $0.start < spanEnd && ($0.end ?? Int64.max) > span.start }
            guard let first = touched.first, let last = touched.last else {
                try store.deleteAwaySpan(id: span.id)
                continue
            }
            let start = max(span.start, first.start)
            let end: Int64? = { () -> Int64? in
                switch (span.end, last.end) {
                case (nil, nil): return nil
                case (let a?, nil): return a
                case (nil, let b?): return b
                case (let a?, let b?): return min(a, b)
                }
            }()
            if let end, end - start < AwaySpan.minimumSeconds {
                try store.deleteAwaySpan(id: span.id)
            } else if start != span.start || end != span.end {
                try store.database.run("UPDATE away_spans SET start = ?, end = ? WHERE id = ?",
                                       .integer(start), end.map(SQLValue.integer) ?? .null, .integer(span.id))
            }
        }
    }

    private func noSegments(_ open: WorkSession) -> TrackerError {
        .invalidArgument("\(name(open))'s open session has no recorded stretches to correct; stop it (Stop) and edit it (EditSession).")
    }
}
