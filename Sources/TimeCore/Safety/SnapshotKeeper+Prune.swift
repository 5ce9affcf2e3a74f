import Glibc

/// Pruning: snapshots beyond the newest 20 are removed, and with each the chunks no kept snapshot
/// names any more. Chunks hold their period, so a chunk can only be named at its own period: a
/// pruned snapshot's chunk is still in use when another kept snapshot names the same hash there,
/// and then so is everything below it. Only the paths where the pruned snapshot differs from every
/// kept one are walked, so pruning costs what the changes since it touched.
extension SnapshotKeeper {
    func prune() {
        // A tree that was the base of patches until a later batch flush, and that no kept
        // snapshot names any more: its chunks go like a pruned snapshot's.
        while let retired = retiredDurableRoots.popLast() {
            removeUnused([retired])
        }
        guard entries.count > SnapshotKeeper.keptStates else { return }
        while entries.count > SnapshotKeeper.keptStates {
            let oldest = entries.removeFirst()
            let oldTop = top(of: oldest)
            tops[oldest.sequence] = nil
            if !nextSnapshotFile.recycle(oldest.path) { unlink(oldest.path) }
            guard let oldTop else { continue }   // unreadable: its chunks are left alone
            removeUnused(oldTop)
        }
    }

    /// Removes the chunks under `top` that no kept snapshot, the newest tree or the durable base
    /// of patches (whose chunks a slot's patches need) names.
    private func removeUnused(_ top: [SnapshotFormat.ChunkReference]) {
        var others = entries.compactMap { self.top(of: $0) }
        others.append(tree.root.map { [$0] } ?? [])
        others.append(durableTree.root.map { [$0] } ?? [])
        var dead: [String] = []
        collectUnused(top, insideIndex: false, others: others, into: &dead)
        for hash in dead {
            unlink(directory + "/" + SnapshotKeeper.chunkName(hash))
            unflushed[hash] = nil
            chunksDue[hash] = nil
            nodeCache[hash] = nil
        }
    }

    /// A kept snapshot's `chunks` list (nil when it cannot be read).
    func top(of entry: Entry) -> [SnapshotFormat.ChunkReference]? {
        if let known = tops[entry.sequence] { return known }
        guard let header = try? SnapshotFormat.read(Files.read(entry.path)) else { return nil }
        var references: [SnapshotFormat.ChunkReference] = []
        for reference in header.payload["chunks"]?.arrayValue ?? [] {
            guard let period = reference["period"]?.stringValue, let hash = reference["sha256"]?.stringValue,
                  let count = reference["sessions"]?.intValue else { return nil }
            references.append(SnapshotFormat.ChunkReference(period: period, sha256: hash, sessions: Int(count)))
        }
        tops[entry.sequence] = references
        return references
    }

    /// The chunk named at `period` by a `chunks` list: listed there itself, or found by following
    /// the root's index chunks down the period's year and month (a few table lookups, whatever
    /// the history's size). Nil when none is.
    func chunk(at period: String, in top: [SnapshotFormat.ChunkReference]) -> String? {
        if let listed = top.first(where: { $0.period == period }) { return listed.sha256 }
        guard let root = top.first(where: { $0.period.isEmpty }) else { return nil }
        var node = root
        for ancestor in SnapshotKeeper.path(to: period) {
            guard let parts = indexTable(node.sha256), let next = parts[ancestor] else { return nil }
            if ancestor == period { return next.sha256 }
            node = next
        }
        return nil
    }

    /// The periods from a year down to `period`: "2024-03-15" gives 2024, 2024-03, 2024-03-15.
    static func path(to period: String) -> [String] {
        var result: [String] = []
        var current: String? = period
        while let step = current, !step.isEmpty {
            result.append(step)
            current = SnapshotFormat.parentPeriod(step)
        }
        return result.reversed()
    }

    /// A `chunks` list names only the root as an index (a v8 list names months and years of
    /// sessions); inside an index, every part that is not a day is an index.
    private func isIndex(_ reference: SnapshotFormat.ChunkReference, insideIndex: Bool) -> Bool {
        reference.period.isEmpty || (insideIndex && !SnapshotFormat.isDay(reference.period))
    }

    private func collectUnused(_ references: [SnapshotFormat.ChunkReference], insideIndex: Bool,
                               others: [[SnapshotFormat.ChunkReference]], into dead: inout [String]) {
        for reference in references {
            if others.contains(where: { chunk(at: reference.period, in: $0) == reference.sha256 }) { continue }
            dead.append(reference.sha256)
            if isIndex(reference, insideIndex: insideIndex), let parts = indexParts(reference.sha256) {
                collectUnused(parts, insideIndex: true, others: others, into: &dead)
            }
        }
    }
}
