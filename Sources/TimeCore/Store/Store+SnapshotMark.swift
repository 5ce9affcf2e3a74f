/// Which kept snapshot the store's last commit goes with: its state (the payload's SHA-256) and
/// sequence number, written by every change in its own transaction (SnapshotKeeper.record), read
/// at a start to roll a store that lost its last commits forward (SnapshotKeeper+RollForward).
/// Schema v15 keeps them in a table of one row of their own: in `meta` they fired the settings'
/// sync triggers and took three times as long, before every reply.
public struct SnapshotMark: Equatable {
    public var state: String?
    public var sequence: Int?

    static let schema = """
        CREATE TABLE snapshot_mark(
            id INTEGER PRIMARY KEY CHECK (id = 1),
            state TEXT,
            sequence INTEGER);
        INSERT INTO snapshot_mark(id, state, sequence)
            SELECT 1, (SELECT value FROM meta WHERE key = 'snapshot_state'),
                   CAST((SELECT value FROM meta WHERE key = 'snapshot_sequence') AS INTEGER)
            WHERE EXISTS (SELECT 1 FROM meta WHERE key IN ('snapshot_state', 'snapshot_sequence'));
        DELETE FROM meta WHERE key IN ('snapshot_state', 'snapshot_sequence');
        """
    static let table = "snapshot_mark"
}

extension Store {
    /// The mark of the last commit; empty when no commit named a snapshot yet.
    public func snapshotMark() throws -> SnapshotMark {
        try database.queryFirst("SELECT state, sequence FROM snapshot_mark WHERE id = 1") {
            SnapshotMark(state: $0.optionalString(0), sequence: $0.optionalInt(1).map { Int($0) })
        } ?? SnapshotMark()
    }

    func setSnapshotMark(_ mark: SnapshotMark) throws {
        try database.run("INSERT OR REPLACE INTO snapshot_mark(id, state, sequence) VALUES(1, ?, ?)",
                         mark.state.map(SQLValue.text) ?? .null, mark.sequence.map { SQLValue.integer(Int64($0)) } ?? .null)
    }
}
