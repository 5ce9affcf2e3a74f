import CSQLite

/// One step of the undo history, as `History` lists it.
public struct HistoryStep: Equatable, Sendable {
    public var id: Int64
    /// When the change was made (Unix seconds).
    public var time: Int64
    public var description: String
    public var undone: Bool
}

/// The undo history, kept in the store itself (`undo_steps`), so it survives restarts and
/// crashes exactly as the data does: a step is written in the same transaction as its change.
///
/// Generic at the change gate: while a change runs, `ChangeRecording` records every row it
/// inserts, updates or deletes, in any table, as a changeset in SQLite's session-extension format;
/// that changeset is the step. Undo applies its inverse, redo the changeset again. A change of any
/// kind (settings, an import of 100,000 sessions, a table added later) is undoable without code of
/// its own.
///
/// Cost stays flat: a change writes one row here and removes what fell out of the newest
/// `kept`; nothing older is read or rewritten, and snapshots do not hold the history.
final class UndoHistory {
    static let table = "undo_steps"
    /// Tables whose rows are never part of a step: the history itself (add here any table that
    /// must not move back with an undo, such as an append-only log).
    static let untrackedTables: Set<String> = Set([table, SnapshotMark.table]).union(SyncStore.tables)
    static let kept = 100
    /// The steps past the newest `kept` are removed together, after the answer to every step whose
    /// id is a multiple of this (`trimIfDue`): the oldest step's page is then written once in so
    /// many changes, not by every one (a page is a frame of the WAL at the commit). With a tidy-up
    /// after each change the table holds fewer than `kept + trimEvery` steps after it; every reader
    /// sees the newest `kept` only.
    static let trimEvery: Int64 = 20
    /// Values in `meta` that only ever grow (the id high-water mark, the longest span bound):
    /// undo never takes them back, or a deleted session's (or segment's) id would be given out again.
    static let highWaterKeys: Set<String> = ["last_session_id", "last_segment_id", "longest_span"]

    /// Schema v7, as the table was made then.
    static let schemaV7 = """
        CREATE TABLE undo_steps(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            time INTEGER NOT NULL,
            description TEXT NOT NULL,
            undone INTEGER NOT NULL DEFAULT 0,
            changeset BLOB NOT NULL);
        """

    /// Schema v16: the table without AUTOINCREMENT, whose counter in `sqlite_sequence` was one
    /// more page written by every change. Ids still never come back: `finishStep` gives the step
    /// after undone ones an id past theirs, and the trim only removes the oldest.
    static let schemaV16 = """
        CREATE TABLE undo_steps_v16(
            id INTEGER PRIMARY KEY,
            time INTEGER NOT NULL,
            description TEXT NOT NULL,
            undone INTEGER NOT NULL DEFAULT 0,
            changeset BLOB NOT NULL);
        INSERT INTO undo_steps_v16(id, time, description, undone, changeset)
            SELECT id, time, description, undone, changeset FROM undo_steps;
        DROP TABLE undo_steps;
        ALTER TABLE undo_steps_v16 RENAME TO undo_steps;
        DELETE FROM sqlite_sequence WHERE name = 'undo_steps';
        """

    private let store: Store
    private var recording: ChangeRecording?
    /// The tables a step records and their keys, kept between changes.
    private lazy var recordedTables = TableKeys(database: database, excluding: UndoHistory.untrackedTables)
    /// False only when no step can be marked undone (none was undone since the last change
    /// removed them, and that change committed): the change then skips looking for them.
    private var mayHoldUndone = true
    /// The sentence given by the code making the change (`Tracker.describeStep`), made when the
    /// step is written; otherwise the step is described from its changeset.
    var givenDescription: (() -> String)?

    init(store: Store) { self.store = store }

    private var database: SQLiteDatabase { store.database }

    // MARK: Recording steps (inside the change gate's transaction)

    func beginStep() throws {
        finished = nil
        givenDescription = nil
        recording?.stop()
        recording = nil
        recording = try ChangeRecording(database: database, keys: recordedTables)
    }

    func abandonStep() {
        finished = nil
        recording?.stop()
        recording = nil
        givenDescription = nil
        // A rolled-back change brings back the undone steps it removed.
        mayHoldUndone = true
    }

    /// Ends the recording; a change that changed something becomes the newest step, and what
    /// could be redone is gone. Returns the step's id (nil when nothing changed).
    @discardableResult
    func finishStep(at time: Int64, describe: (Changeset) throws -> String) throws -> Int64? {
        guard let recording else { return nil }
        recording.stop()
        self.recording = nil
        let given = givenDescription
        givenDescription = nil
        let changeset = try recording.changeset()
        guard !changeset.isEmpty else { return nil }
        let description = try given?() ?? describe(changeset)
        // NULL: SQLite's id, one past the newest step's.
        var stepID = SQLValue.null
        var removedOthers = false
        if mayHoldUndone {
            // The undone steps go; the new one takes an id past theirs, so that no id is given
            // twice (the Stop notification's Undo names its step by id).
            let newest = try database.queryFirst("SELECT max(id) FROM undo_steps") { $0.optionalInt(0) } ?? nil
            try database.run("DELETE FROM undo_steps WHERE undone = 1")
            if database.changes > 0, let newest { stepID = .integer(newest + 1); removedOthers = true }
            mayHoldUndone = false
        }
        // The change's snapshot mark, when the keeper has one waiting, rides in the step's row.
        let mark = store.takeMarkForStep()
        try database.insertBlobRow(
            "INSERT INTO undo_steps(id, time, description, undone, mark_state, mark_sequence, changeset) VALUES(?, ?, ?, 0, ?, ?, ?)",
            [stepID, .integer(time), .text(description), mark.state, mark.sequence], blob: changeset.bytes)
        let id = database.lastInsertRowID
        if id % UndoHistory.trimEvery == 0 {
            if trimDue {
                // No tidy-up since the last step that made the trim due: a caller that never
                // tidies up still has the old steps removed, here, once in twice as many.
                removedOthers = try removeOldSteps() || removedOthers
                trimDue = false
            } else {
                trimDue = true
            }
        }
        if !removedOthers && !recordedTables.triggersWriteUnrecordedRows { finished = FinishedStep(id: id, changeset: changeset) }
        return id
    }

    /// Set by the step whose id is a multiple of `trimEvery`: the steps past the newest `kept` are
    /// then removed by `trimIfDue`, after the answer.
    private var trimDue = false

    /// Removes the steps past the newest `kept` when a step made that due, in a transaction of its
    /// own, after the answer to the change (`Tracker.tidyUp`): a history imported whole is one step
    /// holding every session it brought, and freeing its pages inside a change kept that change's
    /// answer waiting 40–100 ms. Nothing a person sees moves (every reader sees the newest `kept`),
    /// and a trim that fails loses nothing: it is tried again at the next tidy-up.
    func trimIfDue() throws {
        guard trimDue else { return }
        try store.begin()
        do {
            _ = try removeOldSteps()
            try store.commit()
        } catch {
            store.rollback()
            throw error
        }
        trimDue = false
    }

    /// Whether a step was removed.
    private func removeOldSteps() throws -> Bool {
        // Ids have gaps (undone steps that a change removed): count rows, not ids.
        try database.run("DELETE FROM undo_steps WHERE id < (SELECT id FROM undo_steps ORDER BY id DESC LIMIT 1 OFFSET ?)",
                         .integer(Int64(UndoHistory.kept - 1)))
        return database.changes > 0
    }

    /// The step the last `finishStep` wrote and what it recorded, when that row is all it wrote
    /// of the history (no undone or old steps removed) and its changeset holds every row the
    /// change wrote (no sync trigger noted a row beside it): its change can be taken back exactly.
    struct FinishedStep {
        let id: Int64
        let changeset: Changeset
    }
    private(set) var finished: FinishedStep?

    /// Puts back the rows `step`'s change wrote and removes its step (and with it the snapshot
    /// mark its row carried): a change committed before its flush, which then failed
    /// (Tracker+TakeBack.swift). Inside the caller's transaction.
    func takeBack(_ step: FinishedStep) throws {
        finished = nil
        try step.changeset.inverted().apply(to: database, highWaterKeys: [])
        try database.run("DELETE FROM undo_steps WHERE id = ?", .integer(step.id))
        guard database.changes == 1 else { throw ChangesetConflict(description: "step \(step.id) is no longer in the history") }
    }

    // MARK: Reading

    /// Newest first.
    func steps(limit: Int) throws -> [HistoryStep] {
        try database.query("SELECT id, time, description, undone FROM undo_steps ORDER BY id DESC LIMIT ?",
                           .integer(Int64(max(0, limit)))) {
            HistoryStep(id: $0.int(0), time: $0.int(1), description: $0.string(2), undone: $0.int(3) != 0)
        }
    }

    /// The step `Undo` would take back: the newest not undone, among the newest `kept`.
    func newestDone() throws -> HistoryStep? {
        try database.queryFirst("""
            SELECT id, time, description, undone FROM undo_steps
            WHERE undone = 0 AND id > coalesce((SELECT id FROM undo_steps ORDER BY id DESC LIMIT 1 OFFSET ?), 0)
            ORDER BY id DESC LIMIT 1
            """, .integer(Int64(UndoHistory.kept))) {
            HistoryStep(id: $0.int(0), time: $0.int(1), description: $0.string(2), undone: false)
        }
    }

    /// The step `Redo` would apply again: the oldest undone.
    func oldestUndone() throws -> HistoryStep? {
        try database.queryFirst("SELECT id, time, description, undone FROM undo_steps WHERE undone = 1 ORDER BY id LIMIT 1") {
            HistoryStep(id: $0.int(0), time: $0.int(1), description: $0.string(2), undone: true)
        }
    }

    // MARK: Undo and redo (inside the change gate, recording no step of their own)

    /// Puts the data back as it was before `step` (`undo`) or after it (redo), and marks it.
    func apply(_ step: HistoryStep, undo: Bool) throws {
        guard let bytes = try database.queryBlob("SELECT changeset FROM undo_steps WHERE id = ?", .integer(step.id)) else {
            throw TrackerError.storageFailure("Step \(step.id) of the history is missing; nothing was changed.")
        }
        let forward = Changeset(bytes: bytes)
        let changeset = undo ? try forward.inverted() : forward
        let highWater = try UndoHistory.highWaterKeys.map { ($0, try store.meta($0).flatMap { Int64($0) }) }
        let touched = try touchedSessions(forward)
        try markChanged(touched)
        do {
            try changeset.apply(to: database, highWaterKeys: UndoHistory.highWaterKeys, identityColumn: "gid")
        } catch let conflict as ChangesetConflict {
            // The data moved on since the step (the focus timer's own phase ends, a merge from
            // another device): nothing is wrong with the store, the step just no longer applies.
            let message = "\"\(step.description)\" cannot be \(undo ? "undone" : "redone") any more: \(conflict.description); nothing was changed."
            throw undo ? TrackerError.nothingToUndo(message) : TrackerError.nothingToRedo(message)
        }
        for (key, before) in highWater {
            let after = try store.meta(key).flatMap { Int64($0) }
            if let highest = [before, after].compactMap({ $0 }).max(), highest != after { try store.setMeta(key, String(highest)) }
        }
        try markChanged(touched)
        try database.run("UPDATE undo_steps SET undone = ? WHERE id = ?", .integer(undo ? 1 : 0), .integer(step.id))
        mayHoldUndone = true
    }

    /// Tells the store which sessions the apply touched, so the snapshot rewrites what they were
    /// and what they are (the store's own writers do this as they go; an applied changeset
    /// bypasses them). Each touched session is marked as it was before and as it is after, by the
    /// store's own rule (completed sessions only: the open one is always in the snapshot).
    private func touchedSessions(_ changeset: Changeset) throws -> Set<SessionID> {
        var ids = Set<SessionID>()
        for row in try changeset.rows() {
            switch row.table {
            case "sessions":
                if case .integer(let id)? = row.value(0) { ids.insert(id) }
            case "segments":
                if case .integer(let session)? = row.value(1) {
                    ids.insert(session)
                } else if case .integer(let segment)? = row.value(0),
                          let session = try database.queryFirst("SELECT session_id FROM segments WHERE id = ?", .integer(segment), row: { $0.int(0) }) {
                    ids.insert(session)
                }
            default: continue
            }
        }
        return ids
    }

    private func markChanged(_ ids: Set<SessionID>) throws {
        for id in ids {
            if let session = try store.session(id: id) { store.markChanged(session) }
        }
    }
}

extension SQLiteDatabase {
    /// Runs an insert whose last parameter is a blob (the plain `run` binds no blobs).
    func insertBlobRow(_ sql: String, _ values: [SQLValue], blob: [UInt8]) throws {
        let statement = try self.statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        let rc = blob.withUnsafeBytes { raw in
            sqlite3_bind_blob64(statement.handle, Int32(values.count + 1), raw.baseAddress, sqlite3_uint64(raw.count), transientBlob)
        }
        if rc != SQLITE_OK { throw error(rc) }
        while try statement.step() {}
    }

    /// The first row's first column as bytes; nil when there is no row.
    func queryBlob(_ sql: String, _ values: SQLValue...) throws -> [UInt8]? {
        let statement = try self.statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        guard try statement.step() else { return nil }
        let count = Int(sqlite3_column_bytes(statement.handle, 0))
        guard count > 0, let pointer = sqlite3_column_blob(statement.handle, 0) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }
}

/// SQLITE_TRANSIENT (a macro Swift cannot import): SQLite copies the bytes.
private let transientBlob = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
