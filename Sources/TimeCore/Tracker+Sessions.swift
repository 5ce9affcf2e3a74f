import Glibc

/// Sessions read, entered by hand, edited and deleted (past ones included): each change goes
/// through the change gate (Tracker.swift).
extension Tracker {
    private func existingSession(_ id: SessionID) throws -> WorkSession {
        guard let session = try store.session(id: id) else {
            throw TrackerError.noSuchSession("There is no session with id \(id); list them with ListSessions (timectl sessions).")
        }
        return session
    }

    public func session(id: SessionID) throws -> WorkSession { try existingSession(id) }

    /// Sessions overlapping [from, to); project 0 means all projects.
    public func sessions(project: ProjectID, from: Int64, to: Int64) throws -> [WorkSession] {
        if project != 0 { _ = try self.project(withID: project) }
        guard from <= to else {
            throw TrackerError.invalidArgument("The range is reversed: from (\(from)) is after to (\(to)).")
        }
        return try store.sessions(overlapping: from, to, project: project)
    }

    private func checkTime(_ time: Int64, _ what: String) throws {
        guard time >= 0 && time <= Tracker.latestTime else {
            throw TrackerError.invalidArgument("The \(what) \(time) is not a time between 1970 and 9999 (Unix seconds).")
        }
    }

    private func checkNotFuture(_ end: Int64) throws {
        guard end <= now else {
            throw TrackerError.invalidArgument("That session would end in the future; only past sessions can be entered or edited.")
        }
    }

    /// A completed past session entered by hand, stored as one exact segment.
    @discardableResult
    public func addSession(project id: ProjectID, start: Int64, duration: String, note rawNote: String) throws -> SessionID {
        let project = try project(withID: id)
        try checkTime(start, "start")
        let seconds = try DurationParser.seconds(from: duration)
        let note = try TextInput.normalizedNote(rawNote)
        try checkNotFuture(start + seconds)
        return try change {
            let session = WorkSession(id: 0, projectID: project.id, start: start, end: start + seconds, unrecordedSeconds: 0,
                                      note: note, segments: [Segment(start: start, end: start + seconds)])
            let id = try store.insertSession(session)
            return id
        }
    }

    /// Edits a session: a new start shifts every segment of a completed one; a new duration replaces them
    /// with one. The open session's own rules are in Tracker+Corrections.
    public func editSession(id: SessionID, changes: SessionChanges) throws {
        let original = try existingSession(id)
        if original.isOpen { return try editOpenSession(original, changes: changes) }
        var session = original
        if let projectID = changes.projectID { session.projectID = try project(withID: projectID).id }
        if let start = changes.start {
            try checkTime(start, "start")
            let shift = start - session.start
            session.start = start
            session.end = session.end! + shift
            session.segments = session.segments.map { Segment(start: $0.start + shift, end: $0.end.map { $0 + shift }) }
        }
        if let duration = changes.duration {
            let seconds = try DurationParser.seconds(from: duration)
            session.end = session.start + seconds
            session.unrecordedSeconds = 0
            session.segments = [Segment(start: session.start, end: session.start + seconds)]
        }
        if let note = changes.note { session.note = try TextInput.normalizedNote(note) }
        if changes.start != nil || changes.duration != nil {
            try checkTime(session.end!, "end")
            try checkNotFuture(session.end!)
        }
        guard session != original else { return }
        try change {
            try store.editFinishedSession(session, previous: original)
            describeEdit(of: session, from: original)
        }
    }

    /// Deletes a completed session; an open one must be stopped first.
    public func deleteSession(id: SessionID) throws {
        let session = try existingSession(id)
        guard !session.isOpen else {
            throw TrackerError.invalidArgument("Session \(id) is still open; stop it first (Stop, or timectl stop), then delete it.")
        }
        try change { try store.deleteSession(session) }
    }

    /// Replaces the note of any session; "" clears it.
    public func setNote(session id: SessionID, note raw: String) throws {
        let note = try TextInput.normalizedNote(raw)
        let session = try existingSession(id)
        guard session.note != note else { return }
        try change {
            var updated = session
            updated.note = note
            try store.updateSession(updated, previous: session, segmentsChanged: false)
            describeEdit(of: updated, from: session)
            if updated.isOpen { openSession = updated }
        }
    }

    /// Appends a line to the open session's note.
    public func addNote(_ text: String) throws {
        guard let open = openSession else { throw TrackerError.idle }
        let line = try TextInput.normalizedNote(text)
        guard !line.isEmpty else { throw TrackerError.invalidArgument("The note text is empty; nothing to add.") }
        let note = try TextInput.normalizedNote(open.note.isEmpty ? line : open.note + "\n" + line)
        try change {
            var updated = open
            updated.note = note
            try store.updateSession(updated, previous: open, segmentsChanged: false)
            describeEdit(of: updated, from: open)
            openSession = updated
        }
    }
}
