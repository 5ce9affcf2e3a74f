import Glibc

/// Chunk files without a flush of their own. A change writes the chunks it touched (a day and the
/// index chunks above it) with no fsync and no folder flush; until they are known durable, the
/// slot of every change whose snapshot names them carries a copy (SnapshotSlots), so the change
/// still costs its one flush. They become durable in a batch, one `syncfs` of the snapshot
/// folder's file system, when the carried copies pass `carriedLimit` bytes or have travelled in
/// `carriedChanges` slots: in an agent by `tidyUp`, after the answer, so that no answer waits
/// for a flush of the whole file system. At start-up the chunks the slots carry are written again
/// where a power cut took or tore them, and flushed.
extension SnapshotKeeper {
    /// The carried copies' size past which the chunks are flushed in a batch: by the change that
    /// finds them so (in an agent, by its tidy-up after the answer; by the change at twice this).
    static let carriedLimit = 32 * 1024
    /// How many changes may carry chunks before the batch flush (the same way).
    static let carriedChanges = 64

    /// Writes one chunk (a day's or an index) unless its file holds these bytes already; either
    /// way it is not known durable now, unless it is the chunk it replaces in the tree (`replacing`,
    /// the reference at its period before the change). Returns its hash.
    /// With `writeAfterAnswer` the file waits for `tidyUp`, after the answer (the slot carries the
    /// chunk meanwhile, and a batch flush writes whatever still waits first).
    func writeChunk(_ bytes: [UInt8], period: String, replacing: SnapshotFormat.ChunkReference?, state: Pending) throws -> String {
        let hash = SHA256.hex(bytes)
        if replacing?.sha256 == hash { return hash }
        if writeAfterAnswer {
            chunksDue[hash] = bytes
            pending = state   // so that a refusal from here on drops it again
        } else {
            try writeChunkFile(bytes, sha256: hash, state: state)
        }
        // Found from before, it may never have been flushed either (a file an earlier change wrote
        // and a later one stopped naming): it travels in the slot until the next batch flush.
        unflushed[hash] = (period, bytes)
        return hash
    }

    private func writeChunkFile(_ bytes: [UInt8], sha256 hash: String, state: Pending) throws {
        let path = directory + "/" + SnapshotKeeper.chunkName(hash)
        let existed = Files.kind(path) == .regular
        guard !existed || !fileHolds(path, sha256: hash) else { return }
        // A new file is listed first, so that a write failing after its rename (the read-back)
        // is removed too; a damaged one being replaced only once it is.
        if !existed { state.writtenFiles.append(path) }
        pending = state
        try Files.writeDurably(bytes, to: path, syncFolder: false, flush: false)
        if existed { state.writtenFiles.append(path) }
        pending = state
    }

    /// The chunk files that wait (`writeAfterAnswer`), written unless found whole, no flush. One
    /// that cannot be written stays waiting: the slots carry it, and the batch flush tries again
    /// (and fails the change that would flush without it).
    func writeDueChunks() throws {
        for (hash, bytes) in chunksDue.sorted(by: { $0.key < $1.key }) {
            let path = directory + "/" + SnapshotKeeper.chunkName(hash)
            if !fileHolds(path, sha256: hash) { try Files.writeDurably(bytes, to: path, syncFolder: false, flush: false) }
            chunksDue[hash] = nil
        }
    }

    /// True when the file at `path` is there and its bytes hash to `sha256` (a chunk found whole).
    private func fileHolds(_ path: String, sha256: String) -> Bool {
        (try? Files.read(path)).map(SHA256.hex) == sha256
    }

    /// The chunks the newest tree names that are not known durable, for the slot; or none, after
    /// flushing every chunk written so far in one batch when they have grown too many.
    func chunksToCarry() throws -> [(sha256: String, bytes: [UInt8])] {
        var carried: [(sha256: String, bytes: [UInt8])] = []
        var size = 0
        for (hash, chunk) in unflushed where tree.reference(at: chunk.period)?.sha256 == hash {
            let bytes = carriedForm(of: chunk.bytes, period: chunk.period, sha256: hash)
            carried.append((hash, bytes))
            size += bytes.count
        }
        guard !carried.isEmpty else {
            changesCarrying = 0
            return []
        }
        changesCarrying += 1
        let pastLimit = size > SnapshotKeeper.carriedLimit || changesCarrying > SnapshotKeeper.carriedChanges
        // An agent flushes the batch after its answer (`tidyUp`), this slot carrying them all
        // meanwhile. Only a keeper not tidied up since (or whose flush there failed) flushes
        // before the answer, at twice the limit: the slot never grows past that.
        let pastHardLimit = size > 2 * SnapshotKeeper.carriedLimit || changesCarrying > 2 * SnapshotKeeper.carriedChanges
        guard pastLimit, !writeAfterAnswer || pastHardLimit else {
            if pastLimit { chunkFlushDue = true }
            return carried.sorted { $0.sha256 < $1.sha256 }
        }
        try flushChunks()
        return []
    }

    /// The batch flush a change left for after its answer (`chunkFlushDue`). One that fails
    /// leaves the chunks in the slots, to be flushed by a later tidy-up or, at the hard limit,
    /// before a change's answer (which refuses the change if it fails again).
    func flushChunksDue() {
        guard chunkFlushDue else { return }
        chunkFlushDue = false
        try? flushChunks()
    }

    /// An index chunk travels as a patch against the durable chunk of its period when that is
    /// smaller (IndexPatch); a day's chunk, or an index new since the last flush, whole.
    /// Made once per chunk and durable tree: a chunk's parts follow from its hash, the base from
    /// the durable root. (Every change carrying chunks made them all again: 250k instructions of
    /// an EditSession at 100,000 sessions, docs/durable-path.md round four.)
    private func carriedForm(of bytes: [UInt8], period: String, sha256: String) -> [UInt8] {
        if carriedForms.root != durableTree.root { carriedForms = (durableTree.root, [:]) }
        if let known = carriedForms.forms[sha256] { return known }
        var form = bytes
        if let parts = tree.parts[period], let base = durableTree.reference(at: period), let baseParts = durableTree.parts[period] {
            form = IndexPatch.make(base: base.sha256, baseParts: baseParts, parts: parts, wholeSize: bytes.count) ?? bytes
        }
        carriedForms.forms[sha256] = form
        return form
    }

    /// Makes every chunk written so far durable, names included: one `syncfs`. The tree is then
    /// the base of later patches; the root before it is left for pruning to look at.
    func flushChunks() throws {
        try writeDueChunks()
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError("open the folder", directory) }
        defer { close(fd) }
        guard let syncfs = SnapshotKeeper.syncfs, syncfs(fd) == 0 else { throw FileError("flush to disk", directory) }
        unflushed.removeAll()
        changesCarrying = 0
        chunkFlushDue = false
        if let root = durableTree.root, root != tree.root { retiredDurableRoots.append(root) }
        durableTree = tree
    }

    /// At start-up: the chunks the slots carry are put back where a power cut took or tore their
    /// files, and flushed with the folder, so that no later slot needs to carry them. (Nothing
    /// is written when the slots carry nothing.) A failure here leaves the slots' copies in use.
    func repairCarriedChunks() {
        var touched = false
        for index in 0..<SnapshotSlots.count {
            for (hash, bytes) in SnapshotSlots.carried(at: SnapshotSlots.path(directory, index)) where SHA256.hex(bytes) == hash {
                let path = directory + "/" + SnapshotKeeper.chunkName(hash)
                if let held = try? Files.read(path), Files.same(held, bytes) {
                    let fd = open(path, O_RDONLY | O_CLOEXEC)
                    if fd >= 0 {
                        _ = fdatasync(fd)
                        close(fd)
                    }
                } else {
                    try? Files.writeDurably(bytes, to: path, syncFolder: false)
                }
                touched = true
            }
        }
        if touched { try? Files.syncDirectory(directory) }
    }

    /// glibc's `syncfs`, which Swift's Glibc module leaves out (it needs _GNU_SOURCE).
    private static let syncfs: (@convention(c) (Int32) -> Int32)? = dlsym(nil, "syncfs").map {
        unsafeBitCast($0, to: (@convention(c) (Int32) -> Int32).self)
    }

    /// An index chunk's parts, read from its file (and kept), nil when it cannot be read.
    func indexParts(_ hash: String) -> [SnapshotFormat.ChunkReference]? {
        indexTable(hash).map { $0.values.sorted { $0.period < $1.period } }
    }

    /// An index chunk's parts by period.
    func indexTable(_ hash: String) -> [String: SnapshotFormat.ChunkReference]? {
        if let known = nodeCache[hash] { return known }
        guard hash.count == 64, let bytes = try? Files.read(directory + "/" + SnapshotKeeper.chunkName(hash)),
              SHA256.hex(bytes) == hash, let parts = SnapshotFormat.indexParts(bytes) else { return nil }
        let table = Dictionary(parts.map { ($0.period, $0) }, uniquingKeysWith: { first, _ in first })
        nodeCache[hash] = table
        return table
    }
}
