/// The store's away spans and the away setting (schema v5).
extension Store {
    private static let awayColumns = "id, session_id, start, end, reason"

    private func awaySpans(where condition: String, _ values: [SQLValue]) throws -> [AwaySpan] {
        let statement = try database.statement("SELECT \(Store.awayColumns) FROM away_spans WHERE \(condition) ORDER BY id")
        defer { statement.reset() }
        try statement.bind(values)
        var found: [AwaySpan] = []
        while try statement.step() {
            let row = Row(statement: statement)
            found.append(AwaySpan(id: row.int(0), sessionID: row.int(1), start: row.int(2), end: row.optionalInt(3),
                                  reason: AwayReason(rawValue: row.string(4)) ?? .manual))
        }
        return found
    }

    /// Every unanswered span, by id.
    public func awaySpans() throws -> [AwaySpan] { try awaySpans(where: "1", []) }

    /// The span still lasting, if any; kept until away spans are written (Store+KeptReads.swift).
    func currentAwaySpan() throws -> AwaySpan? {
        try keptRead(&keptAwaySpan, of: ["away_spans"]) { try awaySpans(where: "end IS NULL", []).last }
    }

    func lastAwayID() throws -> Int64 {
        let kept = try meta("last_away_id").flatMap { Int64($0) } ?? 0
        let highest = try database.queryFirst("SELECT max(id) FROM away_spans") { $0.optionalInt(0) } ?? nil
        return max(kept, highest ?? 0)
    }

    func setLastAwayID(_ id: Int64) throws { try setMeta("last_away_id", String(id)) }

    /// Inserts a span; id 0 takes the next unused id. Returns the id.
    @discardableResult
    func insertAwaySpan(_ span: AwaySpan) throws -> Int64 {
        let id = span.id == 0 ? try lastAwayID() + 1 : span.id
        try database.run("INSERT INTO away_spans(id, session_id, start, end, reason) VALUES(?, ?, ?, ?, ?)",
                         .integer(id), .integer(span.sessionID), .integer(span.start),
                         span.end.map(SQLValue.integer) ?? .null, .text(span.reason.rawValue))
        if span.id == 0 { try setLastAwayID(id) }
        return id
    }

    func endAwaySpan(id: Int64, at end: Int64) throws {
        try database.run("UPDATE away_spans SET end = ? WHERE id = ?", .integer(end), .integer(id))
    }

    func deleteAwaySpan(id: Int64) throws {
        try database.run("DELETE FROM away_spans WHERE id = ?", .integer(id))
    }

    func awayMinutes() throws -> UInt32 {
        try meta("away_minutes").flatMap { UInt32($0) } ?? AwayState.defaultMinutes
    }

    func setAwayMinutes(_ minutes: UInt32) throws { try setMeta("away_minutes", String(minutes)) }

    /// The away part of the data state.
    public func awayState() throws -> AwayState {
        AwayState(minutes: try awayMinutes(), lastID: try lastAwayID(), spans: try awaySpans())
    }

    /// Writes a restored away state into a store being rebuilt (ids kept).
    func restoreAway(_ state: AwayState) throws {
        try database.execute("DELETE FROM away_spans")
        database.noteRewrite()  // (a truncation: the update hook does not see it)
        for span in state.spans { try insertAwaySpan(span) }
        try setAwayMinutes(state.minutes)
        try setLastAwayID(state.lastID)
    }
}
