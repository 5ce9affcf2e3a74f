/// Which kept snapshot the store's last commit goes with: its state (the payload's SHA-256) and
/// sequence number, written by every change in its own transaction (SnapshotKeeper.record), read
/// at a start to roll a store that lost its last commits forward (SnapshotKeeper+RollForward).
/// Schema v15 keeps them in a table of one row of their own: in `meta` they fired the settings'
/// sync triggers and took three times as long, before every reply. Since v17 a change that writes
/// an undo step writes its mark in the step's row instead (`markForStep`), whose page it writes
/// anyway: one WAL frame fewer per change. The mark is the one with the highest sequence of the
/// two places (sequences only grow: every change's is at least its predecessor's); a mark set
/// apart from a change (a restore, a roll-forward) goes into `snapshot_mark` and takes the steps'
/// marks out when one of them is higher.
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

    /// SQL that leaves the store's mark (wherever the last change wrote it) in `snapshot_mark`
    /// alone: for a store whose mark is then set by hand (the bench's and the tests' power cuts).
    public static let gatheredIntoItsTable = """
        INSERT OR REPLACE INTO snapshot_mark(id, state, sequence) SELECT 1, state, sequence FROM (\(newest));
        \(stepMarksCleared);

        """

    /// The store's mark: the one of highest sequence in `snapshot_mark` and the undo steps' rows.
    static let newest = """
        SELECT state, sequence FROM (
            SELECT state, sequence FROM snapshot_mark WHERE id = 1
            UNION ALL SELECT mark_state, mark_sequence FROM undo_steps WHERE mark_sequence IS NOT NULL)
        ORDER BY sequence IS NULL, sequence DESC LIMIT 1
        """

    /// Takes the marks out of the undo steps' rows.
    static let stepMarksCleared = "UPDATE undo_steps SET mark_state = NULL, mark_sequence = NULL WHERE mark_sequence IS NOT NULL"

    /// v17: the mark's columns in the undo steps' table.
    static let schemaV17 = """
        ALTER TABLE undo_steps ADD COLUMN mark_state TEXT;
        ALTER TABLE undo_steps ADD COLUMN mark_sequence INTEGER;
        """
}

extension Store {
    /// The mark of the last commit; empty when no commit named a snapshot yet.
    public func snapshotMark() throws -> SnapshotMark {
        try database.queryFirst(SnapshotMark.newest) {
            SnapshotMark(state: $0.optionalString(0), sequence: $0.optionalInt(1).map { Int($0) })
        } ?? SnapshotMark()
    }

    /// Writes the mark of the change being made: in its undo step's row if the step written
    /// since `markForStep` was set took it, else in `snapshot_mark`.
    func setSnapshotMark(_ mark: SnapshotMark) throws {
        if markTakenByStep == mark { return }
        try database.run("INSERT OR REPLACE INTO snapshot_mark(id, state, sequence) VALUES(1, ?, ?)",
                         mark.state.map(SQLValue.text) ?? .null, mark.sequence.map { SQLValue.integer(Int64($0)) } ?? .null)
        // A mark set below a step's (a restore of an older state): the steps' marks no longer count.
        let highestInSteps = try database.queryFirst("SELECT max(mark_sequence) FROM undo_steps") { $0.optionalInt(0) } ?? nil
        if let highestInSteps, highestInSteps > Int64(mark.sequence ?? -1) {
            try database.run(SnapshotMark.stepMarksCleared)
        }
    }

    /// The mark's values for the undo step's `INSERT` (NULLs when no mark waits), and a note that
    /// the step took it.
    func takeMarkForStep() -> (state: SQLValue, sequence: SQLValue) {
        guard let mark = markForStep else { return (.null, .null) }
        markTakenByStep = mark
        return (mark.state.map(SQLValue.text) ?? .null, mark.sequence.map { SQLValue.integer(Int64($0)) } ?? .null)
    }
}
