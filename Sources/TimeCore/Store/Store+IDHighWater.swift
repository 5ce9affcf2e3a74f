/// Session and segment ids are never given twice, even after the row that had one was deleted: a
/// script holding an old id must not edit someone else's session, and the undo history names
/// segments by id (had a session's rewritten segments taken ids a deleted session freed, undoing
/// a step could find the record it means gone). SQLite alone would give the newest id again once
/// its row was deleted.
///
/// The highest id ever given is the highest in the table, or, once the row that had it is gone,
/// its counter in `meta` (`last_session_id`, `last_segment_id`). Since schema v18 a trigger
/// writes the counter when the row with the highest id is deleted, by whatever path: a delete, an
/// undo's changeset, sync, another connection. An insert writes nothing more than its row: the
/// counters were a `meta` page, one more WAL frame, in every start and every Resume.
enum IDHighWater {
    /// (table, its counter in `meta`).
    static let counters = [("sessions", "last_session_id"), ("segments", "last_segment_id")]

    /// The counter of `table` in `meta`.
    static func counter(of table: String) -> String { counters.first { $0.0 == table }!.1 }

    /// v18: the triggers. A multi-row delete fires per row: whichever order the rows go in, the
    /// one that leaves the table without a higher id writes it, and the counter never goes down.
    static let schemaV18 = counters.map { table, counter in
        """
        CREATE TRIGGER IF NOT EXISTS \(table)_high_water AFTER DELETE ON \(table)
        WHEN old.id > coalesce((SELECT max(id) FROM \(table)), 0)
        BEGIN
            INSERT INTO meta(key, value) VALUES('\(counter)', CAST(old.id AS TEXT))
            ON CONFLICT(key) DO UPDATE SET value = CAST(max(CAST(value AS INTEGER), old.id) AS TEXT);
        END;
        """
    }.joined(separator: "\n")
}

extension Store {
    /// A new session id (see `IDHighWater`).
    func nextSessionID() throws -> SessionID {
        try highWaterMark(of: "sessions") + 1
    }

    /// The highest segment id given so far (see `IDHighWater`).
    func highestSegmentID() throws -> Int64 {
        try highWaterMark(of: "segments")
    }

    /// The highest id `table` ever gave out: its counter in `meta`, or a higher id in the table.
    /// Read once, then kept: every insert through this connection is seen by the update hook
    /// (`WriteCounts.highestInserted`, imports' and sync's own ids too), and a delete cannot lower
    /// it; anything the hook does not see (a rollback, a truncation, a restore) counts as a
    /// rewrite, which reads it again, and so does another connection's commit (`forgetKeptReads`).
    private func highWaterMark(of table: String) throws -> Int64 {
        let counts = database.writeCounts
        let mark: Int64
        if let known = knownHighWater[table], known.rewrites == counts.rewrites {
            mark = max(known.id, counts.highestInserted[table] ?? 0)
        } else {
            let used = try meta(IDHighWater.counter(of: table)).flatMap { Int64($0) } ?? 0
            let highest = try database.queryFirst("SELECT max(id) FROM \(table)") { $0.optionalInt(0) } ?? nil
            mark = max(used, highest ?? 0)
        }
        knownHighWater[table] = (mark, counts.rewrites)
        return mark
    }
}
