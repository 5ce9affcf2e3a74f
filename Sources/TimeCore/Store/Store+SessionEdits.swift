/// A finished session edited (EditSession) writes only what changed. Its row's columns that
/// changed, not all five: SQLite rewrites every index on a column named in an UPDATE's SET, and
/// checks the project's key whenever `project_id` is named, so a new duration (its end alone)
/// leaves the index on starts and the project alone. Its segments changed in place, keeping their
/// ids, as far as the old and the new line up, rather than all deleted and written again under
/// new ids: one row updated instead of a delete (with its high-water trigger) and an insert at the
/// table's end, one page fewer in the WAL, and a smaller undo step.
extension Store {
    /// `previous`: the session as the store holds it, read in the same call (its segments are
    /// checked against the store's; when they differ, all are written again). `session`: the
    /// same session edited, finished, its segments in order (by start; an edit shifts them all
    /// alike or makes one).
    func editFinishedSession(_ session: WorkSession, previous: WorkSession) throws {
        guard session.id == previous.id, !session.isOpen, !previous.isOpen else {
            // Not an edit of one finished session: the whole row and every segment written.
            return try updateSession(session, previous: previous, segmentsChanged: true)
        }
        var assignments: [String] = []
        var values: [SQLValue] = []
        func set(_ column: String, _ value: SQLValue, changed: Bool) {
            guard changed else { return }
            assignments.append(column + " = ?")
            values.append(value)
        }
        set("project_id", .integer(session.projectID), changed: session.projectID != previous.projectID)
        set("start", .integer(session.start), changed: session.start != previous.start)
        set("end", session.end.map(SQLValue.integer) ?? .null, changed: session.end != previous.end)
        set("unrecorded_seconds", .integer(session.unrecordedSeconds), changed: session.unrecordedSeconds != previous.unrecordedSeconds)
        set("note", .text(session.note), changed: session.note != previous.note)
        if !assignments.isEmpty {
            // One statement per set of columns, prepared once and kept like every other.
            let statement = try database.statement("UPDATE sessions SET " + assignments.joined(separator: ", ") + " WHERE id = ?")
            try statement.bind(values + [.integer(session.id)])
            while try statement.step() {}
            statement.reset()
        }
        if session.focus != previous.focus { try updateFocus(of: session) }
        if session.segments != previous.segments { try editSegments(of: session, from: previous.segments) }
        try noteSpan(of: session)
        markChanged(previous)
        markChanged(session)
        // Kept as written, for the snapshot of the change that wrote it (`finishedSession`): its
        // day's chunk then reads nothing back (SnapshotKeeper+KeptDay.swift).
        let after = database.writeCounts
        keptEditedSession = KeptRead(value: session, writes: after.of(Store.openSessionTables), rewrites: after.rewrites)
    }

    private func editSegments(of session: WorkSession, from previous: [Segment]) throws {
        let stored = try database.query("SELECT id, start, end FROM segments WHERE session_id = ? ORDER BY start, id",
                                        .integer(session.id)) { (id: $0.int(0), segment: Segment(start: $0.int(1), end: $0.optionalInt(2))) }
        // In place only where the rows read back come in the new order: one segment, or all of
        // them shifted alike (ties at one second keep the order of their ids).
        let shift = session.segments.first.flatMap { new in previous.first.map { new.start - $0.start } } ?? 0
        let shiftedAlike = session.segments.count == previous.count && zip(previous, session.segments).allSatisfy {
            $1.start == $0.start + shift && $1.end == $0.end.map { $0 + shift }
        }
        guard stored.map(\.segment) == previous, session.segments.count <= 1 || shiftedAlike else {
            try database.run("DELETE FROM segments WHERE session_id = ?", .integer(session.id))
            try insertSegments(session.segments, of: session.id)
            return
        }
        for (old, new) in zip(stored, session.segments) where old.segment != new {
            if old.segment.start == new.start {
                try database.run("UPDATE segments SET end = ? WHERE id = ?", new.end.map(SQLValue.integer) ?? .null, .integer(old.id))
            } else {
                try database.run("UPDATE segments SET start = ?, end = ? WHERE id = ?",
                                 .integer(new.start), new.end.map(SQLValue.integer) ?? .null, .integer(old.id))
            }
        }
        for old in stored.dropFirst(session.segments.count) {
            try database.run("DELETE FROM segments WHERE id = ?", .integer(old.id))
        }
        try insertSegments(Array(session.segments.dropFirst(stored.count)), of: session.id)
    }
}
