/// Reads the store keeps between changes, read again only once a table they come from was
/// written: the update hook sees every write of this connection (SQLite+WriteCounts.swift), a
/// rollback or a truncation counts as a rewrite, and the snapshot keeper forgets them all when
/// another connection committed (`PRAGMA data_version`). A timer change reads the open session back
/// after its writes, and its snapshot's payload then finds it kept; a Pause finds the lasting
/// away span kept from the change before.
struct KeptRead<Value> {
    let value: Value
    let writes: UInt64
    let rewrites: UInt64
}

extension Store {
    /// The tables the open session is read from.
    static let openSessionTables = ["sessions", "segments"]

    /// `read()`'s value, kept in `kept` while none of `tables` is written.
    func keptRead<Value>(_ kept: inout KeptRead<Value>?, of tables: [String], _ read: () throws -> Value) rethrows -> Value {
        if let current = kept, holds(current, of: tables) { return current.value }
        let counts = database.writeCounts
        let value = try read()
        kept = KeptRead(value: value, writes: counts.of(tables), rewrites: counts.rewrites)
        return value
    }

    /// Whether nothing `kept` was read from (`tables`) was written or rewritten since.
    func holds<Value>(_ kept: KeptRead<Value>, of tables: [String]) -> Bool {
        let counts = database.writeCounts
        return kept.writes == counts.of(tables) && kept.rewrites == counts.rewrites
    }

    /// Runs `write`, a write of the open session `id` that the store can follow itself (a Pause
    /// ends the running segment, a Resume begins one, an edit rewrites its row), and moves the
    /// kept open session with it rather than leaving it to be read again: only when it was kept
    /// before the write and the write changed exactly one row of `sessions` and `segments` (a
    /// trigger or a second row written leaves it to be read again).
    func followingOpenSession(_ id: SessionID, _ write: () throws -> Void,
                              _ follow: (inout WorkSession) -> Bool) rethrows {
        let before = database.writeCounts
        let wasKept = keptOpenSession.map {
            $0.value?.id == id && $0.writes == before.of(Store.openSessionTables) && $0.rewrites == before.rewrites
        } ?? false
        try write()
        let after = database.writeCounts
        guard wasKept, after.rewrites == before.rewrites,
              after.of(Store.openSessionTables) == before.of(Store.openSessionTables) &+ 1,
              var session = keptOpenSession?.value, follow(&session) else { return }
        keptOpenSession = KeptRead(value: session, writes: after.of(Store.openSessionTables), rewrites: after.rewrites)
    }

    /// Runs `write`, which ends the open session (`from`) or begins one (`from` nil) with `rows`
    /// rows of `sessions` and `segments`, and keeps `to` as the open session after it rather
    /// than leaving it to be read again (a Stop, a switch, a start): only when the open session
    /// was kept before the write as the store's only one (or as none), and the write changed
    /// exactly `rows` rows (a trigger or another row written leaves it to be read again).
    func followingOpenSession(from id: SessionID?, to after: WorkSession?, rows: UInt64,
                              _ write: () throws -> Void) rethrows {
        let before = database.writeCounts
        let wasKept = keptOpenSession.map {
            $0.value?.id == id && openSessionIsOnlyOne && $0.writes == before.of(Store.openSessionTables)
                && $0.rewrites == before.rewrites
        } ?? false
        let ended = keptEndedSession.flatMap { holds($0, of: Store.openSessionTables) ? $0.value : nil }
        try write()
        let written = database.writeCounts
        guard wasKept, written.rewrites == before.rewrites,
              written.of(Store.openSessionTables) == before.of(Store.openSessionTables) &+ rows else { return }
        keptOpenSession = KeptRead(value: after, writes: written.of(Store.openSessionTables), rewrites: written.rewrites)
        openSessionIsOnlyOne = true
        // Every row written is accounted for: a session ended before is still as it was.
        if let ended { keptEndedSession = KeptRead(value: ended, writes: written.of(Store.openSessionTables), rewrites: written.rewrites) }
    }

    /// Runs `write`, which gives the open session as kept its `end` in one row, and keeps the
    /// session as it then is: the snapshot finds the session a Stop or a switch finished without
    /// reading it (`finishedSession`, `isCompleted`).
    func followingTheEnd(of id: SessionID, at end: Int64, _ write: () throws -> Void) rethrows {
        let open = keptOpenSession.flatMap { holds($0, of: Store.openSessionTables) ? $0.value : nil }
        try followingOpenSession(from: id, to: nil, rows: 1, write)
        guard var ended = open, ended.id == id, let followed = keptOpenSession, followed.value == nil,
              holds(followed, of: Store.openSessionTables) else { return }
        ended.end = end
        keptEndedSession = KeptRead(value: ended, writes: followed.writes, rewrites: followed.rewrites)
    }

    /// The session a Stop or a switch ended, when it is `id` and nothing it was read from was
    /// written since but what the store followed.
    func keptEnded(_ id: SessionID) -> WorkSession? {
        guard let kept = keptEndedSession, kept.value.id == id, holds(kept, of: Store.openSessionTables) else { return nil }
        return kept.value
    }

    /// Whether `id` is the open session as kept, still running or paused (nothing is read: false
    /// when the open session is not kept).
    func isKeptOpen(_ id: SessionID) -> Bool {
        guard let kept = keptOpenSession, holds(kept, of: Store.openSessionTables), let session = kept.value else { return false }
        return session.id == id && session.end == nil
    }

    /// Another connection committed: nothing read before is known to hold (the id high-water
    /// marks neither: its inserts were not seen by this connection's hook).
    func forgetKeptReads() {
        keptOpenSession = nil
        keptEndedSession = nil
        keptEditedSession = nil
        keptAwaySpan = nil
        knownHighWater = [:]
    }
}
