
/// Sessions and their segments: typed reads and writes (ids never reused, ranges bounded by
/// the longest span, changed days noted for the snapshot).
extension Store {
    private static let sessionColumns = "id, project_id, start, end, unrecorded_seconds, note, coalesce(import_key, ''), coalesce(gid, ''), coalesce(focus, '')"

    /// `order` nil: in no order SQLite promises (no sort that an index does not give).
    private func sessions(where condition: String, _ values: [SQLValue], orderedBy order: String? = "start, id") throws -> [WorkSession] {
        let statement = try database.statement("SELECT \(Store.sessionColumns) FROM sessions WHERE \(condition)" + (order.map { " ORDER BY " + $0 } ?? ""))
        defer { statement.reset() }
        try statement.bind(values)
        var found: [WorkSession] = []
        while try statement.step() {
            let row = Row(statement: statement)
            var session = WorkSession(id: row.int(0), projectID: row.int(1), start: row.int(2), end: row.optionalInt(3),
                                      unrecordedSeconds: row.int(4), note: row.string(5), segments: [], importKey: row.string(6))
            session.globalID = row.string(7)
            session.focus = FocusSpan.spans(storeText: row.string(8))
            found.append(session)
        }
        return try withSegments(found)
    }

    private func withSegments(_ sessions: [WorkSession]) throws -> [WorkSession] {
        guard !sessions.isEmpty else { return sessions }
        var result = sessions
        if sessions.count == 1 {
            result[0].segments = try database.query(
                "SELECT start, end FROM segments WHERE session_id = ? ORDER BY start, id", .integer(sessions[0].id)
            ) { Segment(start: $0.int(0), end: $0.optionalInt(1)) }
            return result
        }
        let low = sessions.map(\.id).min()!, high = sessions.map(\.id).max()!
        // A day of the past edited today holds old ids and new ones: a range from one to the other
        // would read the segments of every session between them, so sparse ids are read one by one.
        if high - low >= 4 * Int64(sessions.count) {
            let statement = try database.statement("SELECT start, end FROM segments WHERE session_id = ? ORDER BY start, id")
            defer { statement.reset() }
            for offset in result.indices {
                statement.reset()
                try statement.bind([.integer(result[offset].id)])
                while try statement.step() {
                    let row = Row(statement: statement)
                    result[offset].segments.append(Segment(start: row.int(0), end: row.optionalInt(1)))
                }
            }
            return result
        }
        var index: [SessionID: Int] = [:]
        for (offset, session) in sessions.enumerated() { index[session.id] = offset }
        // Sessions read by a range of start mostly have neighbouring ids: one indexed range query.
        let statement = try database.statement(
            "SELECT session_id, start, end FROM segments WHERE session_id BETWEEN ? AND ? ORDER BY session_id, start, id")
        defer { statement.reset() }
        try statement.bind([.integer(low), .integer(high)])
        while try statement.step() {
            let row = Row(statement: statement)
            if let offset = index[row.int(0)] {
                result[offset].segments.append(Segment(start: row.int(1), end: row.optionalInt(2)))
            }
        }
        return result
    }

    public func session(id: SessionID) throws -> WorkSession? {
        try sessions(where: "id = ?", [.integer(id)]).first
    }

    /// Session `id` as the store holds it: the one a Stop or a switch just ended, or an edit just
    /// wrote, is kept.
    func finishedSession(id: SessionID) throws -> WorkSession? {
        if let ended = keptEnded(id) { return ended }
        if let edited = keptEditedSession, edited.value.id == id, holds(edited, of: Store.openSessionTables) { return edited.value }
        finishedSessionReads += 1
        return try session(id: id)
    }

    /// The open session, kept until sessions or segments are written (Store+KeptReads.swift).
    public func openSession() throws -> WorkSession? {
        try keptRead(&keptOpenSession, of: Store.openSessionTables) {
            openSessionReads += 1
            // Sorted here: in SQL the index on the open sessions gives no order, and a sort
            // there builds a temporary b-tree for the one row there is.
            let open = try sessions(where: "end IS NULL", [], orderedBy: nil)
            openSessionIsOnlyOne = open.count <= 1
            return open.min { ($0.start, $0.id) < ($1.start, $1.id) }
        }
    }

    /// Session `id`, open, as the store holds it now: through `openSession()` when it is the
    /// store's open session, so that the snapshot's payload finds it kept.
    func openSession(id: SessionID) throws -> WorkSession? {
        if let open = try openSession(), open.id == id { return open }
        return try session(id: id)
    }

    /// Sessions overlapping [from, to): the open one included, `project` 0 meaning all.
    public func sessions(overlapping from: Int64, _ to: Int64, project: ProjectID = 0) throws -> [WorkSession] {
        let earliest = from.subtractingSaturated(try longestSpan())
        var found = try sessions(
            where: "start >= ? AND start < ? AND (end IS NULL OR end > ? OR (end = start AND start >= ?)) AND (? = 0 OR project_id = ?)",
            [.integer(earliest), .integer(to), .integer(from), .integer(from), .integer(project), .integer(project)])
        // An open session that began before the window (however long ago) still overlaps it.
        if let open = try openSession(), open.start < earliest, project == 0 || open.projectID == project {
            found.insert(open, at: 0)
        }
        return found
    }

    /// Completed sessions that began in a UTC period ("YYYY", "YYYY-MM" or "YYYY-MM-DD"), by id,
    /// from `firstID` on; with `leavingOut`, without those that began on that day from that id
    /// on (a snapshot keeps them itself). One snapshot chunk.
    func completedSessions(inPeriod period: String, fromID firstID: Int64 = .min,
                           leavingOut inline: (day: String, firstID: Int64)? = nil) throws -> [WorkSession] {
        let (start, end) = Store.periodBounds(period)
        var condition = "start >= ? AND start < ? AND end IS NOT NULL AND id >= ?"
        var values: [SQLValue] = [.integer(start), .integer(end), .integer(firstID)]
        if let inline {
            let (dayStart, dayEnd) = Store.periodBounds(inline.day)
            if dayStart < end && dayEnd > start {
                condition += " AND NOT (start >= ? AND start < ? AND id >= ?)"
                values += [.integer(dayStart), .integer(dayEnd), .integer(inline.firstID)]
            }
        }
        return try sessions(where: condition, values).sorted { $0.id < $1.id }
    }

    /// The ids of the completed sessions that began in a UTC period, in order.
    func completedSessionIDs(inPeriod period: String) throws -> [Int64] {
        let (start, end) = Store.periodBounds(period)
        return try database.query("SELECT id FROM sessions WHERE start >= ? AND start < ? AND end IS NOT NULL ORDER BY id",
                                  .integer(start), .integer(end)) { $0.int(0) }
    }

    /// The finished sessions of one UTC day with ids from `firstID` on, by id: what the snapshot
    /// keeps inline. Those are the newest sessions, so when few sessions were made since the first
    /// of them, the range of ids is read (`+start` keeps SQLite off the index on start, which would
    /// read every session of the day); otherwise (sessions added to other days since, an import)
    /// the day is read by its index as `completedSessions(inPeriod:fromID:)` does.
    func completedSessions(ofDay day: String, fromID firstID: Int64) throws -> [WorkSession] {
        guard firstID != .max else { return [] }
        let newest = try database.queryFirst("SELECT max(id) FROM sessions") { $0.optionalInt(0) } ?? nil
        guard let newest, newest.subtractingReportingOverflow(firstID).partialValue < 4 * Int64(SnapshotKeeper.inlineBlock) else {
            return try completedSessions(inPeriod: day, fromID: firstID)
        }
        let (start, end) = Store.periodBounds(day)
        // Ordered by id, or SQLite would walk the whole index on start to give the start order.
        return try sessions(where: "id >= ? AND +start >= ? AND +start < ? AND end IS NOT NULL",
                            [.integer(firstID), .integer(start), .integer(end)], orderedBy: "id")
    }

    /// Whether session `id` exists, is finished and began in a UTC period.
    func isCompleted(_ id: SessionID, inPeriod period: String) throws -> Bool {
        let (start, end) = Store.periodBounds(period)
        if let ended = keptEnded(id) { return ended.start >= start && ended.start < end }
        return try database.queryFirst("SELECT 1 FROM sessions WHERE id = ? AND start >= ? AND start < ? AND end IS NOT NULL",
                                       .integer(id), .integer(start), .integer(end)) { _ in true } ?? false
    }

    public func allSessions() throws -> [WorkSession] {
        try sessions(where: "1", []).sorted { $0.id < $1.id }
    }

    /// Every UTC month ("YYYY-MM") that holds a completed session.
    func monthsWithCompletedSessions() throws -> [String] {
        let starts = try database.query(
            "SELECT DISTINCT start / 86400 - (start < 0 AND start % 86400 != 0) FROM sessions WHERE end IS NOT NULL") { $0.int(0) }
        return Array(Set(starts.map { CivilDate.utcMonthKey($0 * 86400) })).sorted()
    }

    /// The UTC instants where a period ("YYYY", "YYYY-MM" or "YYYY-MM-DD") begins and ends.
    static func periodBounds(_ period: String) -> (Int64, Int64) {
        // A day's key (`YYYY-MM-DD`), as every change names today's, read from its digits in place:
        // splitting it made an array and three strings (a few µs of a Stop).
        if let day = CivilDate(dayKey: period) {
            let first = Int64(day.dayNumber) * 86400
            return (first, first + 86400)
        }
        let parts = period.split(separator: "-")
        let year = Int(parts[0])!
        if parts.count == 3, let month = Int(parts[1]), let day = Int(parts[2]) {
            let first = Int64(CivilDate(year: year, month: month, day: day).dayNumber) * 86400
            return (first, first + 86400)
        }
        guard parts.count == 2, let month = Int(parts[1]) else {
            return (Int64(CivilDate(year: year, month: 1, day: 1).dayNumber) * 86400,
                    Int64(CivilDate(year: year + 1, month: 1, day: 1).dayNumber) * 86400)
        }
        let first = CivilDate(year: year, month: month, day: 1)
        let next = month == 12 ? CivilDate(year: year + 1, month: 1, day: 1) : CivilDate(year: year, month: month + 1, day: 1)
        return (Int64(first.dayNumber) * 86400, Int64(next.dayNumber) * 86400)
    }

    func insertSession(_ session: WorkSession, keepingID: Bool = false) throws -> SessionID {
        let id = keepingID ? session.id : try nextSessionID()
        let globalID = session.globalID.isEmpty ? SyncRecord.newID() : session.globalID
        var stored = session
        stored.id = id
        stored.globalID = globalID
        let insert = {
            try self.database.run("INSERT INTO sessions(id, project_id, start, end, unrecorded_seconds, note, import_key, gid, focus) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                  .integer(id), .integer(session.projectID), .integer(session.start),
                                  session.end.map(SQLValue.integer) ?? .null, .integer(session.unrecordedSeconds), .text(session.note),
                                  session.importKey.isEmpty ? .null : .text(session.importKey), .text(globalID),
                                  FocusSpan.storeValue(session.focus))
            try self.insertSegments(session.segments, of: id)
        }
        if session.isOpen, zip(session.segments, session.segments.dropFirst()).allSatisfy({ $0.start <= $1.start }) {
            // A start: the new session is the open one, kept as written when the store was known
            // to hold none (its segments in the order a read gives them: by start, then id).
            try followingOpenSession(from: nil, to: stored, rows: 1 + UInt64(session.segments.count), insert)
        } else {
            try insert()
        }
        try noteSpan(of: session)
        markChanged(stored)
        return id
    }

    /// New segment ids continue from the highest ever given (IDHighWater).
    func insertSegments(_ segments: [Segment], of id: SessionID) throws {
        guard !segments.isEmpty else { return }
        var segmentID = try highestSegmentID()
        for segment in segments {
            segmentID += 1
            try database.run("INSERT INTO segments(id, session_id, start, end) VALUES(?, ?, ?, ?)",
                             .integer(segmentID), .integer(id), .integer(segment.start), segment.end.map(SQLValue.integer) ?? .null)
        }
    }

    /// Rewrites a session row; segments too when `segmentsChanged`.
    func updateSession(_ session: WorkSession, previous: WorkSession, segmentsChanged: Bool) throws {
        let update = {
            try self.database.run("UPDATE sessions SET project_id = ?, start = ?, end = ?, unrecorded_seconds = ?, note = ? WHERE id = ?",
                                  .integer(session.projectID), .integer(session.start), session.end.map(SQLValue.integer) ?? .null,
                                  .integer(session.unrecordedSeconds), .text(session.note), .integer(session.id))
        }
        if previous.isOpen, session.isOpen, session.id == previous.id {
            // The open session's row edited (a note added, its project or start moved): the kept
            // copy takes the columns written rather than being read again.
            try followingOpenSession(session.id, update) { kept in
                kept.projectID = session.projectID
                kept.start = session.start
                kept.unrecordedSeconds = session.unrecordedSeconds
                kept.note = session.note
                return true
            }
        } else {
            try update()
        }
        if session.focus != previous.focus { try updateFocus(of: session) }
        if segmentsChanged {
            try database.run("DELETE FROM segments WHERE session_id = ?", .integer(session.id))
            try insertSegments(session.segments, of: session.id)
        }
        try noteSpan(of: session)
        markChanged(previous)
        markChanged(session)
    }

    /// Stop (and a switch): the open session's row takes its end, the only column that changes,
    /// so that its other indexes and its project's key are left alone. `done` is `open` ended.
    func endOpenSession(_ done: WorkSession, previous open: WorkSession) throws {
        guard let end = done.end else { return }
        try followingTheEnd(of: open.id, at: end) {
            try database.run("UPDATE sessions SET end = ? WHERE id = ?", .integer(end), .integer(done.id))
        }
        try noteSpan(of: done)
        markChanged(done)
    }

    /// Pause: the running segment of the open session ends.
    func closeRunningSegment(of id: SessionID, at time: Int64) throws {
        try followingOpenSession(id, {
            try database.run("UPDATE segments SET end = ? WHERE session_id = ? AND end IS NULL", .integer(time), .integer(id))
        }, { session in
            guard let last = session.segments.indices.last, session.segments[last].end == nil,
                  session.segments.dropLast().allSatisfy({ $0.end != nil }) else { return false }
            session.segments[last].end = time
            return true
        })
    }

    /// Resume: a new running segment begins.
    func openSegment(of id: SessionID, at time: Int64) throws {
        try followingOpenSession(id, { try insertSegments([Segment(start: time, end: nil)], of: id) }, { session in
            // Read back, the new segment comes last (segments are read by start, then id) unless
            // one begins later.
            guard session.segments.allSatisfy({ $0.end != nil && $0.start <= time }) else { return false }
            session.segments.append(Segment(start: time, end: nil))
            return true
        })
    }

    func deleteSession(_ session: WorkSession) throws {
        try database.run("DELETE FROM sessions WHERE id = ?", .integer(session.id))
        markChanged(session)
    }

    /// The project of the most recently started session: what Toggle starts from idle.
    func lastUsedProjectID() throws -> ProjectID? {
        try database.queryFirst("SELECT project_id FROM sessions ORDER BY start DESC, id DESC LIMIT 1") { $0.int(0) }
    }

    /// The longest wall-clock span of any completed session, which bounds range queries.
    func longestCompletedSpan() throws -> Int64 {
        try database.queryFirst("SELECT max(end - start) FROM sessions WHERE end IS NOT NULL") { $0.int(0) } ?? 0
    }
}
