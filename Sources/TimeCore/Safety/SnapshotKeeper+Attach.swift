/// A start's first step with the store: which kept snapshot it goes with, so that the next
/// change rewrites only what it touches.
extension SnapshotKeeper {
    /// Makes the chunk tree match the snapshot the store says it was last recorded with, so
    /// the next change rewrites only what it touches. When no kept snapshot matches (a new or
    /// migrated store, lost snapshots, an older layout), the next change records every day.
    public func attach(to store: Store) {
        needsFullRecord = true
        payloadParts = nil
        let storeMark = try? store.snapshotMark()
        // A store can name a sequence past every slot that verifies: the slots were lost or
        // damaged, or the snapshot folder was emptied. No sequence it named is used again (under
        // it, a change whose commit a power cut then took would leave the store naming that
        // change's own sequence, and a start would find nothing newer to roll forward to), and
        // its state is recorded anew at this start (not attached), not only by the next change.
        let storeSequence = storeMark?.sequence ?? 0
        lastSequence = max(lastSequence, storeSequence)
        guard storeSequence <= durableSequence else { return }
        guard let recorded = storeMark?.state,
              let entry = entries.last(where: { $0.stateHash == recorded }),
              let header = try? SnapshotFormat.read(try Files.read(entry.path)), header.version == SnapshotFormat.currentVersion,
              let references = header.payload["chunks"]?.arrayValue, references.count <= 1
        else { return }
        var root: SnapshotFormat.ChunkReference?
        if let reference = references.first {
            guard let period = reference["period"]?.stringValue, let hash = reference["sha256"]?.stringValue,
                  let count = reference["sessions"]?.intValue else { return }
            root = SnapshotFormat.ChunkReference(period: period, sha256: hash, sessions: Int(count))
        }
        guard let loaded = ChunkTree.load(root: root, node: indexTable) else { return }
        // The day the payload kept in itself (all its sessions began that day), so that the
        // first change of another day moves them into their day's chunk.
        let inline = header.payload["sessions"]?.arrayValue ?? []
        var day: String?
        if let firstStart = inline.first?["start"]?.intValue {
            day = CivilDate.utcDayKey(firstStart)
            guard inline.allSatisfy({ $0["start"]?.intValue.map(CivilDate.utcDayKey) == day }) else { return }
        }
        tree = loaded
        // Durable: a start writes back and flushes what the slots carry (repairCarriedChunks),
        // and every other chunk the tree names was flushed in a batch before.
        durableTree = loaded
        tops[entry.sequence] = root.map { [$0] } ?? []
        inlineDay = day
        chunkedOfInlineDay = nil
        inlineCache = nil
        inlineParts = [:]
        todaysIDs = nil
        keptDay = nil
        needsFullRecord = false
        prepareFiles()
    }

    public var isAttached: Bool { !needsFullRecord }

    /// Creates the temporary files the next change will write into.
    public func prepareFiles() {
        nextSnapshotFile.prepare()
    }
}
