import CSQLite

/// The WAL is folded back into the store after the answer to a change, never inside one.
/// SQLite's own automatic checkpoint runs within the COMMIT that takes the WAL past 1,000 frames
/// and flushes the WAL and the store there: a millisecond or more, once in some 300 changes,
/// before that change could be answered. Here a commit only counts the WAL's frames
/// (`sqlite3_wal_hook`, which replaces the automatic checkpoint) and `Tracker.tidyUp`, which the
/// agent calls after each answer, checkpoints once as many are there. A caller that never tidies
/// up still has the WAL folded in before a change, at four times as many.
final class WALFrameCount {
    fileprivate(set) var frames: Int32 = 0

    /// Counts from now on, in place of SQLite's automatic checkpoint.
    func install(on handle: OpaquePointer) {
        sqlite3_wal_hook(handle, { context, _, _, frames in
            if let context { Unmanaged<WALFrameCount>.fromOpaque(context).takeUnretainedValue().frames = frames }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    static func remove(from handle: OpaquePointer) { sqlite3_wal_hook(handle, nil, nil) }
}

extension Store {
    /// SQLite's own threshold for its automatic checkpoint.
    static let checkpointFrames: Int32 = 1000

    /// Frames in the WAL after the last commit of this connection.
    var walFrames: Int32 { database.walFrameCount.frames }

    /// Folds the WAL into the store when it holds `frames` or more. PASSIVE: it copies what no
    /// reader still needs and never waits; what it leaves is folded in at a later call.
    func checkpointIfDue(at frames: Int32 = Store.checkpointFrames) {
        guard walFrames >= frames else { return }
        database.walFrameCount.frames = 0
        // A checkpoint that fails (a full disk) loses nothing: the WAL is part of the store, and
        // the next commit counts its frames again, so the next tidy-up tries again.
        try? database.execute("PRAGMA wal_checkpoint(PASSIVE)")
    }
}
