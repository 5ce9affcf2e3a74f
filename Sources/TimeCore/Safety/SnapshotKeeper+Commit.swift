import PathTrace
import Glibc

/// The second half of a change the keeper records, after `recordState`: the slot's flush waited
/// for and the meta rows written (`stateRecorded`), then the change committed or abandoned, and
/// the tidying up after the answer.
extension SnapshotKeeper {
    /// The second half of `recordState`: the slot's flush waited for and the slot read back
    /// (SnapshotSlots.finish), then the meta rows naming the state, in the same transaction.
    public func stateRecorded(in store: Store) throws {
        do {
            guard let stateHash = recordedStateHash, let state = pending else { return }
            recordedStateHash = nil
            try slots.finish()
            if let written = state.slotWritten { durableSequence = written.now }
            PathTrace.mark("slot: read back and compared")
            // The state this commit goes with, and which kept snapshot (a start-up that finds a
            // newer one rolls forward): one statement for both.
            try store.database.run("INSERT INTO meta(key, value) VALUES(?, ?), (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                                   .text("snapshot_state"), .text(stateHash),
                                   .text(SnapshotKeeper.sequenceKey), .text(String(entries.last?.sequence ?? 0)))
            PathTrace.mark("snapshot: meta rows")
        } catch {
            changeAbandoned()
            throw error
        }
    }

    public func changeCommitted() {
        guard pending != nil else { return }
        pending = nil
        tidyUpDue = true
    }

    public func tidyUp() {
        guard tidyUpDue else { return }
        tidyUpDue = false
        writeKeptFile()
        prune()
        prepareFiles()
    }

    func writeKeptFile() {
        guard let due = keptFileDue else { return }
        keptFileDue = nil
        do {
            try Files.writeDurably(due.bytes, to: due.path, syncFolder: false, prepared: nextSnapshotFile, flush: false)
        } catch {
            // The state is durable in its slot; only one of the 20 kept states is missing.
            entries.removeAll { $0.path == due.path }
        }
    }

    public func changeAbandoned() {
        recordedStateHash = nil
        guard let undone = pending else { return }
        pending = nil
        keptFileDue = nil
        if let renamed = undone.renamed { try? Files.move(renamed.to, to: renamed.from) }
        if let slot = undone.slotWritten {
            // The slot must not bring back a change that was refused: it is voided, and the
            // other slot (the state before) counts again.
            slots.void(sequence: slot.now)
            durableSequence = slot.previous
        }
        for path in undone.writtenFiles { unlink(path) }
        tree = undone.previousTree
        unflushed = undone.previousUnflushed
        // A batch flush in the refused change made its chunks durable, but they are removed
        // above: patches go against the tree durable before it again.
        durableTree = undone.previousDurableTree
        retiredDurableRoots = undone.previousRetiredRoots
        inlineDay = undone.previousInlineDay
        chunkedOfInlineDay = nil
        inlineCache = nil
        entries = undone.previousEntries
        needsFullRecord = undone.previousNeedsFullRecord
        prepareFiles()
    }
}
