/// The start-up half of "one flush per change": SQLite commits without flushing
/// (`synchronous=NORMAL`), so a power cut can take the last commits with it, but never their
/// snapshots, which were flushed before the commit. Each commit names the kept snapshot it goes
/// with (its `SnapshotMark`); a store that names an older one than the newest kept is rolled
/// forward from the newest that verifies.
extension SnapshotKeeper {
    /// Every snapshot a start can restore from, oldest first: the kept files and the slots that
    /// verify (a slot holds the newest state even when a power cut took its kept file).
    public var recoverable: [Entry] {
        // At equal sequence numbers the slot comes last (it is tried first): it is the flushed one.
        func isSlot(_ entry: Entry) -> Int { Files.baseName(entry.path).hasPrefix("slot-") ? 1 : 0 }
        return (entries + SnapshotSlots.entries(directory)).sorted { ($0.sequence, isSlot($0)) < ($1.sequence, isSlot($1)) }
    }

    /// Rolls `store` forward when a newer snapshot than its last commit is kept. Returns a sentence
    /// for the log when it did, nil when the store was current. The undo history is cleared then:
    /// its newest steps were in the lost commits, and the older ones would undo from a state the
    /// store no longer has. Throws when the newest snapshot verifies but cannot be written into
    /// the store (the caller then restores into a fresh store, as for a damaged one).
    public func rollForward(_ store: Store) throws -> String? {
        let committed: Int
        let mark = try store.snapshotMark()
        if let sequence = mark.sequence {
            committed = sequence
        } else {
            // No commit named a snapshot: a store from before sequences, current when it names the
            // newest kept state, or a new store whose first commits the power cut took.
            guard let newest = recoverable.last, mark.state != newest.stateHash else { return nil }
            committed = 0
        }
        for entry in recoverable.reversed() where entry.sequence > committed {
            // Only the days the lost commits touched, when the store's own state is kept
            // (SnapshotKeeper+RollForwardDays); otherwise the whole state.
            if (try? rollForwardByDays(store, to: entry)) != nil {
                return "The store had lost its last changes (a power cut before they reached the disk); the days they touched were rolled forward from snapshot \(entry.sequence) (it was at \(committed)), and the undo history was cleared."
            }
            // A snapshot that does not verify was never acknowledged: the next older one is tried.
            guard let state = try? state(of: entry) else { continue }
            try store.database.execute("DELETE FROM \(UndoHistory.table)")
            try SnapshotKeeper.restore(state, into: store, stateHash: entry.stateHash, sequence: entry.sequence)
            return "The store had lost its last changes (a power cut before they reached the disk); it was rolled forward from snapshot \(entry.sequence) (it was at \(committed)), and the undo history was cleared."
        }
        return nil
    }
}
