/// The merged state kept beside the store and the positions it stands for (docs/sync.md,
/// "The merged state is kept beside the store", "Start-up").
extension SyncEngine {
    /// Writes the merged state and the positions it stands for (inside the caller's transaction):
    /// the other devices' as given, this device's as flushed in its log.
    func writeMergedState(foreign: [String: SyncCursor]) throws {
        var devices = foreign
        devices[device] = writer.flushedCursor
        if let backing = replica.backing {
            try backing.save(root: layout.root) {
                try replica.write(to: backing)
                if backing.unreadable == nil {
                    try backing.writeNewerRecords(newer)
                    try backing.writeRebuildProgress(rebuilding)
                }
            }
        }
        // A kept state that could not be read back was dropped with its positions: none are saved.
        guard replica.backing?.unreadable == nil else { return }
        try SyncPositions(root: layout.root, devices: devices).save(tracker.store)
    }

    /// Keeps the merged state in the store between merges (after this device's changes), outside
    /// the change gate: it is derived from the folder, in no snapshot and no undo step. Not while
    /// records of other devices wait to be written into the store: the kept state must never hold
    /// one the store does not.
    ///
    /// With `publishing`, where publishing the history has got to is saved in the same
    /// transaction (even when the merged state cannot be kept yet: that only costs the time of
    /// comparing those records again after a crash).
    func saveMergedState(publishing progress: SyncPublishing? = nil, force: Bool = false) throws {
        let store = tracker.store, root = layout.root, device = device
        // A rebuild under way keeps its batches itself, with its progress.
        guard rebuilding == nil else { return }
        guard unmaterialized.isEmpty, waiting.isEmpty else {
            if let progress { try SyncEngine.outsideTheGate(store) { try progress.save(store, root: root, device: device) } }
            return
        }
        var positions = mergedCursors
        positions[device] = writer.flushedCursor
        guard force || progress != nil || replica.hasUnsaved || SyncPositions.load(store, root: root)?.devices != positions else { return }
        try SyncEngine.outsideTheGate(store) {
            try writeMergedState(foreign: mergedCursors)
            try progress?.save(store, root: root, device: device)
        }
        replica.didSave()
    }

    /// A transaction of its own for sync's derived tables (never user data).
    static func outsideTheGate(_ store: Store, _ body: () throws -> Void) throws {
        try store.begin()
        do {
            try body()
            try store.commit()
        } catch {
            store.rollback()
            throw error
        }
    }

}
