/// Rebuilding the merged state from the folder, in batches (docs/sync.md, "Start-up"): when the
/// kept state cannot be taken (another folder, a store restored from a snapshot, a token or a
/// position that does not match), this device's own records and those of the other devices the
/// store already holds (below the sequence numbers its saved positions name) are read into the
/// merged state a batch at a time, each batch kept in the merged state's file with the progress,
/// so that memory holds one batch and a start after a crash or a kill goes on from there. Nothing
/// is written into the store and nothing is published meanwhile (a person's changes stay noted);
/// then the start finishes as usual, and the other records are merged by the merge's batches.
struct SyncRebuild: Equatable {
    /// Per device, the sequence number below which the store holds its records (still to read).
    var held: [String: Int64]
    /// Where reading has got to, per device.
    var cursors: [String: SyncCursor] = [:]
    /// This device's own records are all read.
    var ownDone = false

    static let key = "rebuilding"

    init(held: [String: Int64]) { self.held = held }

    var json: String {
        JSON.sortedObject([
            "held": JSON.sortedObject(held.mapValues(JSON.int)),
            "cursors": JSON.sortedObject(cursors.mapValues { c in
                .array([.int(Int64(c.fileNumber)), .int(c.offset), .int(c.nextSequence), .string(c.lastSum)])
            }),
            "own": .bool(ownDone),
        ]).serialized
    }

    init?(json text: String) {
        guard let value = try? JSON.parse(Array(text.utf8)), case .object(let held)? = value["held"],
              case .object(let cursors)? = value["cursors"], let own = value["own"]?.boolValue else { return nil }
        self.held = [:]
        for (device, until) in held { if let until = until.intValue { self.held[device] = until } }
        for (device, entry) in cursors {
            guard let fields = entry.arrayValue, fields.count == 4, let file = fields[0].intValue, let offset = fields[1].intValue,
                  let next = fields[2].intValue, let sum = fields[3].stringValue else { return nil }
            var cursor = SyncCursor()
            (cursor.fileNumber, cursor.offset, cursor.nextSequence, cursor.lastSum) = (Int(file), offset, next, sum)
            self.cursors[device] = cursor
        }
        ownDone = own
    }
}

extension SyncReplicaStore {
    func rebuildProgress() throws -> SyncRebuild? {
        try database.queryFirst("SELECT value FROM sync_kept WHERE key = ?", .text(SyncRebuild.key)) { SyncRebuild(json: $0.string(0)) } ?? nil
    }

    func writeRebuildProgress(_ progress: SyncRebuild?) throws {
        if let progress {
            try database.run("INSERT OR REPLACE INTO sync_kept(key, value) VALUES(?, ?)", .text(SyncRebuild.key), .text(progress.json))
        } else {
            try database.run("DELETE FROM sync_kept WHERE key = ?", .text(SyncRebuild.key))
        }
    }
}

extension SyncEngine {
    /// One batch of the rebuild: this device's own records first, then each other device's up to
    /// where the store holds them; kept with the progress after each batch, outside the gate
    /// (nothing of the store's data changes). The last one finishes the start.
    func rebuildBatch(wallMilliseconds: Int64, limit: Int) throws {
        guard var progress = rebuilding else { return }
        if !progress.ownDone {
            let (records, _) = reader.readNew(device: device, limit: limit)
            let passed = reader.skipped.count
            takeSkipped()  // written by a newer version of this device (Time was downgraded)
            replica.apply(records)
            readAtStart += records.count
            largestBatch = max(largestBatch, records.count)
            if records.count + passed < limit { progress.ownDone = true }
        } else if let (other, until) = progress.held.sorted(by: { $0.key < $1.key }).first {
            let next = reader.cursors[other]?.nextSequence ?? 1
            let wanted = Int(min(Int64(limit), max(until - next, 0)))
            let (records, _) = wanted > 0 ? reader.readNew(device: other, limit: wanted) : ([], nil)
            let passed = reader.skipped.count
            takeSkipped()
            replica.apply(records)
            readAtStart += records.count
            alreadyHeld += records.count
            largestBatch = max(largestBatch, records.count)
            // Done with it once the held ones are read (or nothing more can be: the rest is merged as usual).
            if (reader.cursors[other]?.nextSequence ?? 1) >= until || records.count + passed == 0 { progress.held[other] = nil }
        }
        progress.cursors = reader.cursors
        let finished = progress.ownDone && progress.held.isEmpty
        rebuilding = finished ? nil : progress
        if finished {
            // The store holds everything read: the merge goes on from here.
            mergedCursors = reader.cursors.filter { $0.key != device }
        }
        let store = tracker.store, root = layout.root
        try SyncEngine.outsideTheGate(store) {
            if finished {
                try writeMergedState(foreign: mergedCursors)
            } else if let backing = replica.backing {
                try backing.save(root: root) {
                    try replica.write(to: backing)
                    if backing.unreadable == nil { try backing.writeNewerRecords(newer) }
                    try backing.writeRebuildProgress(progress)
                }
            }
        }
        replica.didSave()
        if finished { try finishStart(wallMilliseconds: wallMilliseconds) }
    }
}
