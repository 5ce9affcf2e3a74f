/// Where publishing the whole history has got to when sync was enabled (docs/sync.md, "Enabling,
/// disabling"): categories and projects in one batch, then sessions in the order of their row
/// ids, then what this device made and is gone from the store (deleted while sync was off).
/// Kept in `meta` with the merged state after each batch, so that a start after a crash goes
/// on from there instead of comparing the whole history again.
struct SyncPublishing: Equatable {
    enum Stage: String { case kinds, sessions, gone, done }
    var stage = Stage.kinds
    /// The last session row id (`sessions`) or global id (`gone`) done.
    var after = ""

    /// Meta key; not among sync's settings, so a roll-forward (a store put back from a snapshot)
    /// starts publishing again from the beginning, which only costs time.
    static let key = "sync_publishing"

    static func load(_ store: Store, root: String, device: String) -> SyncPublishing? {
        guard let text = try? store.meta(key), let value = try? JSON.parse(Array(text.utf8)),
              value["root"]?.stringValue == root, value["device"]?.stringValue == device,
              let stage = value["stage"]?.stringValue.flatMap(Stage.init(rawValue:)), let after = value["after"]?.stringValue
        else { return nil }
        return SyncPublishing(stage: stage, after: after)
    }

    func save(_ store: Store, root: String, device: String) throws {
        try store.setMeta(SyncPublishing.key, JSON.sortedObject([
            "root": .string(root), "device": .string(device), "stage": .string(stage.rawValue), "after": .string(after),
        ]).serialized)
    }

    static func forget(_ store: Store) throws { try store.setMeta(key, "") }
}

extension SyncEngine {
    /// One batch of publishing the history: its records are noted (`sync_dirty`, as if written)
    /// inside one change of the gate, whose publisher compares just those with the merged state
    /// and stamps what differs, exactly as for a person's change (the state does not change, so
    /// no new snapshot is written, and the records are flushed with the change). Then the merged
    /// state is kept and the progress saved with it: after the records are in the log, so that a
    /// crash before repeats the batch (which then finds nothing to publish) rather than skip it.
    func publishBatch(wallMilliseconds: Int64) throws {
        guard let current = publishing else { return }
        let store = tracker.store
        let limit = max(1, batchLimit)
        var next = current
        var noted = 0
        if current.stage == .done {
            // Only once every record is in the log: from here a restart publishes what was noted.
            try tracker.change(recordingStep: false) {
                try store.setMeta(SyncEngine.publishedKey, layout.root + " " + device)
                try store.setMeta(SyncEngine.plansPublishedKey, layout.root + " " + device)  // the kinds batch compared them
                try SyncPublishing.forget(store)
            }
            publishing = nil
            return
        }
        // Sessions the merged state holds as made here and live, and the store does not: a few
        // thousand looked at per step; a change only when some are found.
        var gone: [String] = []
        if current.stage == .gone {
            let (ids, last) = try replica.sessionIDs(after: current.after, scanning: min(limit, 1 << 20) * 8, absentFrom: store.database)
            gone = ids.filter { id in replica.entity(.session, id).map { $0.isLive && $0.created?.device == device } ?? false }
            next = last.map { SyncPublishing(stage: .gone, after: $0) } ?? SyncPublishing(stage: .done)
            if gone.isEmpty {
                publishing = next
                try saveMergedState(publishing: next)
                return
            }
        }
        batches += 1
        try tracker.change(recordingStep: false) {
            func note(_ kind: SyncKind, _ gid: String, _ field: String) throws {
                try store.database.run("INSERT OR IGNORE INTO sync_dirty(kind, gid, field) VALUES(?, ?, ?)",
                                       .text(kind.rawValue), .text(gid), .text(field))
                noted += 1
            }
            switch current.stage {
            case .kinds:
                for (kind, table) in [(SyncKind.category, "categories"), (.project, "projects")] {
                    let gids = try store.database.query("SELECT gid FROM \(table) WHERE gid IS NOT NULL ORDER BY id") { $0.string(0) }
                    for gid in gids { try note(kind, gid, SyncStore.wholeRecord) }
                    // Made here and gone from the store: deleted while sync was off (the publisher
                    // skips one that lives on under a same-name representative).
                    for entity in replica.live(kind) where entity.created?.device == device {
                        try note(kind, entity.id, SyncStore.deleted)
                    }
                }
                // The shared settings are compared too (SyncPlans): published where this store differs.
                for field in SyncPlans.settings {
                    try store.database.run("INSERT OR IGNORE INTO sync_dirty(kind, gid, field) VALUES(?, '', ?)", .text(SyncPlans.noteKind), .text(field))
                }
                next = SyncPublishing(stage: .sessions, after: "0")
            case .sessions:
                let rows = try store.database.query("SELECT id, gid FROM sessions WHERE id > ? AND gid IS NOT NULL ORDER BY id LIMIT ?",
                                                    .integer(Int64(current.after) ?? 0), .integer(Int64(limit))) { ($0.int(0), $0.string(1)) }
                for (_, gid) in rows { try note(.session, gid, SyncStore.wholeRecord) }
                next = rows.count < limit ? SyncPublishing(stage: .gone) : SyncPublishing(stage: .sessions, after: String(rows.last!.0))
            case .gone:
                for id in gone { try note(.session, id, SyncStore.deleted) }
            case .done: break
            }
        }
        largestBatch = max(largestBatch, noted)
        // Records that could not be written to the log are kept in memory (and in the slots) only:
        // the batch is not counted as done, so a crash before they are written repeats it.
        if let logProblem { throw TrackerError.storageFailure(logProblem) }
        publishing = next
        try saveMergedState(publishing: next)
    }
}

extension SyncReplica {
    /// Global ids of sessions the merged state holds (live or not) and the store does not, among
    /// the next `scanning` after `after` in their order, and the last one looked at (nil when
    /// none was left): publishing looks for those deleted here while sync was off.
    func sessionIDs(after: String, scanning: Int, absentFrom store: SQLiteDatabase) throws -> (ids: [String], last: String?) {
        func absent(_ id: String) throws -> Bool {
            try store.queryFirst("SELECT 1 FROM sessions WHERE gid = ?", .text(id)) { _ in true } == nil
        }
        let scanned = try backing?.database.query("SELECT id FROM sync_entities WHERE kind = 'session' AND id > ? ORDER BY id LIMIT ?",
                                                  .text(after), .integer(Int64(scanning))) { $0.string(0) } ?? []
        // Done when the file has no more; sessions not saved yet (in memory only) are looked at last.
        let last = scanned.count < scanning ? nil : scanned.last
        var ids = try scanned.filter(absent)
        if last == nil, let backing {
            for id in sessionIDsInMemory where !scanned.contains(id) {
                let inFile = try backing.database.queryFirst("SELECT 1 FROM sync_entities WHERE kind = 'session' AND id = ?", .text(id)) { _ in true }
                if inFile == nil, try absent(id) { ids.append(id) }
            }
        }
        return (ids.sorted(), last)
    }
}
