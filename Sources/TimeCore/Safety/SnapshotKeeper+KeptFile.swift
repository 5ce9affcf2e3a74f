import Glibc

/// The file that keeps a state among the newest 20 (`state-…json`), written after the answer.
///
/// With `writeAfterAnswer` (the agent sets it), the file is written by `tidyUp`, after the
/// change was acknowledged, instead of before: it is never flushed (the slot is the change's
/// durable record, and a power cut may take the file either way), so writing it later trades
/// nothing, and the caller's answer does not wait for it. The next change (its `tidyUp` comes
/// first) and a shutdown find it written. The chunk files wait the same way
/// (SnapshotKeeper+Chunks), written by the same `tidyUp`.
///
/// A change back to a state an older kept file holds (an undo, an edit taken back) keeps it the
/// same way: written anew after the answer, the older file removed then. Before the answer that
/// older file used to be read back and verified, then renamed: 180 µs for an EditSession at
/// 100,000 sessions (docs/durable-path.md, round four).
extension SnapshotKeeper {
    struct KeptFileDue {
        var bytes: [UInt8]
        var path: String
        /// The older kept file of the same state, taken out of `entries`, removed once this is written.
        var replacing: Entry?
    }

    public func tidyUp() {
        guard tidyUpDue else { return }
        tidyUpDue = false
        writeKeptFile()
        // A chunk that cannot be written now stays due: the slots carry it, and the batch flush
        // writes it or refuses its change (SnapshotKeeper+Chunks).
        try? writeDueChunks()
        flushChunksDue()
        prune()
        prepareFiles()
    }

    private func writeKeptFile() {
        guard let due = keptFileDue else { return }
        keptFileDue = nil
        do {
            try Files.writeDurably(due.bytes, to: due.path, syncFolder: false, prepared: nextSnapshotFile, flush: false)
        } catch {
            // The state is durable in its slot; only one of the 20 kept states is missing, unless
            // an older file of it stays.
            entries.removeAll { $0.path == due.path }
            if let older = due.replacing {
                entries.insert(older, at: entries.firstIndex { $0.sequence > older.sequence } ?? entries.endIndex)
            }
            return
        }
        if let older = due.replacing {
            tops[older.sequence] = nil
            unlink(older.path)
        }
    }
}
