@testable import TimeCore

/// SQL that puts the store's snapshot mark (wherever the last change wrote it: `snapshot_mark`,
/// or since schema v17 its undo step's row) into `snapshot_mark` alone, so that a test can then
/// set it by hand there, as a power cut or an older version would leave it.
let storeMarkInItsTable = SnapshotMark.gatheredIntoItsTable

/// The same, then the undo steps' table as before v17 (a store faked back to an older version).
let withoutV17StepMarks = storeMarkInItsTable + """
    ALTER TABLE undo_steps DROP COLUMN mark_state;
    ALTER TABLE undo_steps DROP COLUMN mark_sequence;

    """
