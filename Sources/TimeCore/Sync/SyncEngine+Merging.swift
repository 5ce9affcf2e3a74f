/// Merging what other devices appended (docs/sync.md, "Through the change gate"), a batch at a time.
extension SyncEngine {
    /// Reads what other devices appended and brings it into the store, `batchLimit` records per
    /// change (one verified snapshot each), after publishing what enabling still has to.
    /// Returns the number of records merged. When a change is refused (storage full,
    /// read-only), the entities stay noted and the next merge writes them: the merged state
    /// never holds something the store has not been asked to.
    @discardableResult
    public func merge(wallMilliseconds: Int64) throws -> Int {
        moreToMerge = true
        let before = mergedSinceStart
        while try step(wallMilliseconds: wallMilliseconds) {}
        return mergedSinceStart - before
    }

    /// One batch of the merge: at most `limit` records read (those the start read and the store
    /// does not hold yet all go into the first), one change. The positions saved with it stand
    /// after its last record, so a restart goes on from there.
    func mergeBatch(wallMilliseconds: Int64, limit: Int) throws -> Int {
        let room = max(limit - waiting.count, 0)
        let (fresh, problems) = room > 0 ? reader.readNew(except: device, limit: room) : ([], [])
        let passed = reader.skipped.count
        takeSkipped()
        // Every device is read again by each batch (from its cursor): the last batch's problems are all of them.
        if room > 0 { self.problems = problems }
        moreToMerge = fresh.count + passed >= room
        let records = waiting + fresh
        waiting = []
        mergedSinceStart += records.count
        largestBatch = max(largestBatch, records.count)
        unmaterialized += replica.apply(records)
        if let newest = replica.newest { writer.observe(newest) }
        guard !unmaterialized.isEmpty else {
            // Nothing to write: the store holds everything read so far.
            mergedCursors = reader.cursors.filter { $0.key != device }
            return records.count
        }
        let changed = unmaterialized
        batches += 1
        try tracker.change(recordingStep: false) {
            let store = tracker.store
            // What the merge writes is the merged state itself, never a change of this device's to
            // publish: the notes it makes are forgotten, those of this device's waiting are kept.
            try SyncStore.keepingNotes(in: store) {
                try SyncMaterializer(store: store, replica: replica, device: device).apply(changed)
            }
            try writeMergedState(foreign: reader.cursors.filter { $0.key != device })
        }
        unmaterialized = []
        mergedCursors = reader.cursors.filter { $0.key != device }
        replica.didSave()
        try tracker.reload()
        return records.count
    }
}
