/// SQL that puts the store's snapshot mark (wherever the last change wrote it: `snapshot_mark`,
/// or since schema v17 its undo step's row) into `snapshot_mark` alone, so that a test can then
/// set it by hand there, as a power cut or an older version would leave it.
let storeMarkInItsTable = """
    INSERT OR REPLACE INTO snapshot_mark(id, state, sequence)
        SELECT 1, state, sequence FROM (
            SELECT state, sequence FROM snapshot_mark WHERE id = 1
            UNION ALL SELECT mark_state, mark_sequence FROM undo_steps WHERE mark_sequence IS NOT NULL)
        ORDER BY sequence IS NULL, sequence DESC LIMIT 1;
    UPDATE undo_steps SET mark_state = NULL, mark_sequence = NULL WHERE mark_sequence IS NOT NULL;

    """

/// The same, then the undo steps' table as before v17 (a store faked back to an older version).
let withoutV17StepMarks = storeMarkInItsTable + """
    ALTER TABLE undo_steps DROP COLUMN mark_state;
    ALTER TABLE undo_steps DROP COLUMN mark_sequence;

    """
