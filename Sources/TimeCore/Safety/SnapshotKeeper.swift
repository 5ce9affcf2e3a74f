import PathTrace
import Glibc

/// Keeps verified JSON snapshots of the data state: one is written (or found) for every change
/// before it is acknowledged; the newest 20 distinct states are kept.
///
/// Cost stays flat as history grows: completed sessions are stored in content-addressed chunk
/// files, one per UTC day of their start, listed by a tree of small index chunks (ChunkTree), and
/// a change rewrites only the days it touched and the indexes above them. Chunk files are written
/// without a flush: the slot of the change carries them until a batch flush makes them durable
/// (SnapshotKeeper+Chunks).
/// The open session and the latest sessions begun today (UTC) live in the snapshot file itself,
/// so the timer's changes (pause, resume, stop, switch) rarely write a chunk: today's sessions
/// join their day's chunk in whole blocks of `inlineBlock`, and the rest with the first change
/// of another day. Which sessions are inline depends only on the data and the day, so equal
/// states on a day still make equal snapshots.
public final class SnapshotKeeper: ChangeRecorder {
    public static let keptStates = 20

    public let directory: String
    private let clock: Clock

    public struct Entry: Equatable {
        public let sequence: Int
        public let stateHash: String
        public let path: String
    }

    /// Kept snapshot files, oldest first.
    public internal(set) var entries: [Entry] = []
    /// The newest snapshot's chunk tree.
    var tree = ChunkTree()
    /// Chunks written (or newly named) since the last batch flush, by SHA-256: not known durable.
    var unflushed: [String: (period: String, bytes: [UInt8])] = [:]
    /// Changes whose slot carried chunks since the last batch flush.
    var changesCarrying = 0
    /// Set when the carried chunks passed the limit in a change of an agent: `tidyUp` flushes them.
    var chunkFlushDue = false
    /// The tree as of the last batch flush (or the start): every chunk it names is durable, so an
    /// index chunk written since can travel as a patch against it (IndexPatch), and pruning
    /// leaves its chunks alone. The roots it named before the last flush, for pruning to look at.
    var durableTree = ChunkTree()
    /// Each unflushed chunk's form in a slot, by SHA-256, against the durable tree of `root`.
    var carriedForms: (root: SnapshotFormat.ChunkReference?, forms: [String: [UInt8]]) = (nil, [:])
    var retiredDurableRoots: [SnapshotFormat.ChunkReference] = []
    /// Index chunks' parts by SHA-256, and each kept snapshot's `chunks` list by sequence: what
    /// pruning needs to tell which chunks no kept snapshot names any more.
    var nodeCache: [String: [String: SnapshotFormat.ChunkReference]] = [:]
    var tops: [Int: [SnapshotFormat.ChunkReference]] = [:]
    /// True until the chunk tree matches the store: the first recorded change then reads every day.
    var needsFullRecord = true
    /// Today's finished sessions, by id, are kept in the payload except for whole blocks of this
    /// many, which go into the day's chunk: a busy day's payload stays small, and only every
    /// 32nd session finished pays for rewriting a chunk.
    static let inlineBlock = 32
    /// The UTC day whose finished sessions the newest recorded payload holds itself (nil: none
    /// known); the ids of that day's sessions its day's chunk holds instead (nil: not known);
    /// the first id held inline; and the inline sessions serialized, kept while they do not change.
    var inlineDay: String?
    var chunkedOfInlineDay: [Int64]?
    private var firstInlineID = Int64.max
    var inlineCache: String?
    /// The inline sessions serialized one by one, by id, and the ids `inlineCache` lists (+Inline).
    var inlineParts: [Int64: String] = [:], inlineListIDs: [Int64] = []
    /// Today's finished sessions' ids, kept between changes (SnapshotKeeper+TodaysIDs.swift), and
    /// whether the last change found them kept (the marks covered every write since).
    var todaysIDs: TodaysIDs?
    var todaysIDsWereKept = false
    /// The last day other than today whose chunk a change wrote, its sessions serialised
    /// (SnapshotKeeper+KeptDay.swift), and how often a day's chunk was made from it or read whole.
    var keptDay: KeptDay?
    var keptDayReads = (kept: 0, whole: 0)
    /// The payload's parts as the last change read them, with the write counts they were read at.
    var payloadParts: PayloadParts?
    /// The payload's hash, taken up where the last payload's bytes are repeated (what it keeps
    /// cannot go stale: the bytes are compared each time).
    var payloadHasher = ResumingSHA256()
    /// The payload's chunk list as the last change wrote it, with the root it lists.
    private var chunkListKept: (root: SnapshotFormat.ChunkReference?, list: String)?
    /// What a change in recording would have to undo if refused: the keeper's state before it,
    /// and what it wrote so far. One object, shared by `record` and `pending` (a class: a change
    /// hands it around often, and copying its trees each time showed in the profile).
    final class Pending {
        init(previousUnflushed: [String: (period: String, bytes: [UInt8])], previousEntries: [Entry],
             previousNeedsFullRecord: Bool, previousInlineDay: String?, previousDurableTree: ChunkTree,
             previousRetiredRoots: [SnapshotFormat.ChunkReference]) {
            self.previousUnflushed = previousUnflushed
            self.previousEntries = previousEntries
            self.previousNeedsFullRecord = previousNeedsFullRecord
            self.previousInlineDay = previousInlineDay
            self.previousDurableTree = previousDurableTree
            self.previousRetiredRoots = previousRetiredRoots
        }
        /// The references the change replaced in the tree, in order, with what they replaced; or
        /// the whole tree before a change that made a new one.
        var replacedInTree: [(period: String, reference: SnapshotFormat.ChunkReference?)] = []
        var previousTree: ChunkTree?
        var previousUnflushed: [String: (period: String, bytes: [UInt8])]
        var previousEntries: [Entry]
        var previousNeedsFullRecord: Bool
        var previousInlineDay: String?
        var previousDurableTree: ChunkTree
        var previousRetiredRoots: [SnapshotFormat.ChunkReference]
        var writtenFiles: [String] = []
        var renamed: (from: String, to: String)?
        var slotWritten: (previous: Int, now: Int)?
    }
    var pending: Pending?

    /// The temporary file for the next snapshot, created after each change.
    let nextSnapshotFile: PreparedFile
    /// The durable record of each change (SnapshotSlots): one in-place write and one flush.
    private let slots: SnapshotSlots
    /// The highest sequence number used so far (kept files and slots), never reused; and the
    /// one whose snapshot the slots hold durably.
    var lastSequence = 0
    var durableSequence = 0
    /// Bytes that travel with each change's slot, outside the state (sync's outbox); asked for
    /// only when a slot is written. Until someone sets it, what the newest slot carried at start
    /// travels on, so that no change made before sync starts drops it.
    public var slotAttachment: (() -> [UInt8])?
    /// True while the change under way adds to the attachment (sync's records stamped in it): a
    /// state equal to the newest is then kept again under a new number (by name only), so that a
    /// slot carries those bytes before they are written anywhere else (docs/sync.md, "One flush").
    public var slotAttachmentPending: (() -> Bool)?

    public init(directory: String, clock: Clock) throws {
        self.directory = directory
        self.clock = clock
        try Files.makePrivateDirectory(directory)
        let names = Files.list(directory, sorted: false)
        for name in names where name.hasSuffix(".tmp") { unlink(directory + "/" + name) }
        entries = SnapshotKeeper.scan(directory, names: names)
        nextSnapshotFile = PreparedFile(path: directory + "/next-state.tmp")
        slots = try SnapshotSlots(directory: directory)
        repairCarriedChunks()
        durableSequence = SnapshotSlots.entries(directory).last?.sequence ?? 0
        lastSequence = max(entries.last?.sequence ?? 0, durableSequence)
        let carried = SnapshotSlots.newestAttachment(directory)
        if !carried.isEmpty { slotAttachment = { carried } }
    }

    static func fileName(sequence: Int, stateHash: String) -> String {
        "state-\(pad(sequence, 10))-\(stateHash).json"
    }

    static func chunkName(_ hash: String) -> String { "chunk-\(hash).json" }

    /// Snapshot files in a folder, oldest first, read from their names.
    public static func scan(_ directory: String) -> [Entry] { scan(directory, names: Files.list(directory)) }

    /// The same, from the folder's names listed already. (The folder holds a chunk file for every
    /// day of the history: the names are told apart by their start before anything else.)
    static func scan(_ directory: String, names: [String]) -> [Entry] {
        names.compactMap { name -> Entry? in
            guard name.hasPrefix("state-"), name.hasSuffix(".json") else { return nil }
            let parts = name.split(separator: "-")
            guard parts.count == 3, let sequence = Int(parts[1]) else { return nil }
            return Entry(sequence: sequence, stateHash: String(parts[2].dropLast(5)), path: directory + "/" + name)
        }.sorted { $0.sequence < $1.sequence }
    }

    // MARK: ChangeRecorder

    public func recordState(of store: Store, changedDays: Set<String>, meanwhile: () throws -> Void) throws {
        try recordState(of: store, changedDays: changedDays, meanwhile: meanwhile, commitEarly: { false })
    }

    public func recordState(of store: Store, changedDays: Set<String>, meanwhile: () throws -> Void,
                            commitEarly: () throws -> Bool) throws {
        do {
            try record(store, changedDays: changedDays, meanwhile: meanwhile, commitEarly: commitEarly)
        } catch {
            // Half a record must not stay behind: the chunk table, the day kept inline and any
            // file written go back to what the last recorded state had.
            changeAbandoned()
            throw error
        }
    }

    private func record(_ store: Store, changedDays: Set<String>, meanwhile: () throws -> Void,
                        commitEarly: () throws -> Bool) throws {
        tidyUp()
        PathTrace.mark("snapshot: tidy up left over")
        let state = Pending(previousUnflushed: unflushed, previousEntries: entries,
                            previousNeedsFullRecord: needsFullRecord, previousInlineDay: inlineDay,
                            previousDurableTree: durableTree, previousRetiredRoots: retiredDurableRoots)
        pending = state
        let today = CivilDate.utcDayKey(clock.now())
        // Another connection's commit makes what is kept from the store stale (read once here).
        let dataVersion = try store.database.dataVersion()
        // Another connection committed since the last change: what the store kept may be stale.
        let aloneSinceLastChange = payloadParts?.dataVersion == dataVersion
        if !aloneSinceLastChange {
            store.forgetKeptReads()
            inlineParts = [:]
        }
        var days = Set<String>()
        for day in changedDays where day != today { days.insert(day) }
        // Another day (or the first change since start): the day kept inline goes into its chunk.
        if inlineDay != today, let previous = inlineDay { days.insert(previous) }
        if inlineCache == nil || inlineDay != today || changedDays.contains(today) {
            // Which of today's sessions are inline: all but the whole blocks. The day's chunk
            // is rewritten only when the sessions it holds of today change.
            let ids = try todaysCompletedIDs(store, today: today, dataVersion: dataVersion)
            let blocks = ids.count / SnapshotKeeper.inlineBlock * SnapshotKeeper.inlineBlock
            let chunked = Array(ids.prefix(blocks))
            if inlineDay != today || chunked != chunkedOfInlineDay || store.changedSessionIDs.contains(where: chunked.containsSorted) {
                days.insert(today)
            }
            firstInlineID = blocks < ids.count ? ids[blocks] : Int64.max
            inlineCache = try inlineList(store, ids: Array(ids[blocks...]), today: today, firstID: firstInlineID)
            inlineDay = today
            chunkedOfInlineDay = chunked
        } else {
            try keepTodaysIDsInStep(store, today: today, dataVersion: dataVersion)
        }
        var sessionsOfDay: [String: [WorkSession]]?
        // The tree changes in place: a copy would copy its table of every month of the history,
        // and freeing the old one would cost as much again. It is taken out of the keeper
        // meanwhile; each reference it replaces is noted in the pending change, to be put back if
        // the change is refused. writeChunk compares a chunk with the reference it replaces.
        do {
            var newTree = ChunkTree()
            swap(&newTree, &tree)
            defer { tree = newTree }
            if needsFullRecord { keptDay = nil } else { try keepDayInStep(store, dataVersion: dataVersion) }
            if needsFullRecord {
                // Everything anew: at the first change after start without a matching snapshot.
                var grouped: [String: [WorkSession]] = [:]
                for session in try store.allSessions() where session.end != nil {
                    let day = CivilDate.utcDayKey(session.start)
                    if day == today && session.id >= firstInlineID { continue }
                    grouped[day, default: []].append(session)
                }
                sessionsOfDay = grouped
                days = Set(grouped.keys)
                state.previousTree = newTree
                newTree = ChunkTree()
            }
            // What a chunk is compared with: the reference it replaces, or in a new tree the old one's.
            let previousTree = state.previousTree
            for day in days.sorted() {
                let (bytes, count) = try dayChunk(day, store, today: today, firstInlineID: firstInlineID,
                                                  grouped: sessionsOfDay, dataVersion: dataVersion)
                let replaced = previousTree?.reference(at: day) ?? newTree.reference(at: day)
                var reference: SnapshotFormat.ChunkReference?
                if count > 0 {
                    let hash = try writeChunk(bytes, period: day, replacing: replaced, state: state)
                    reference = SnapshotFormat.ChunkReference(period: day, sha256: hash, sessions: count)
                }
                state.replacedInTree.append((day, newTree.set(reference, at: day)))
            }
            try newTree.rewriteIndexes(above: days, replaced: { state.replacedInTree.append(($0, $1)) }) { period, bytes, parts, replaced in
                let hash = try writeChunk(bytes, period: period, replacing: previousTree?.reference(at: period) ?? replaced, state: state)
                nodeCache[hash] = parts
                return hash
            }
        }
        needsFullRecord = false
        PathTrace.mark("snapshot: today's sessions and chunks")
        // The root's list, made again only when the root changed (a finished day, an edit).
        let chunkList: String
        if let kept = chunkListKept, kept.root == tree.root {
            chunkList = kept.list
        } else {
            chunkList = tree.topList
            chunkListKept = (tree.root, chunkList)
        }
        // Read from the store again only where it was written since the last change (PayloadParts).
        let parts = try PayloadParts.current(in: store, kept: payloadParts, dataVersion: dataVersion)
        payloadParts = parts
        let payload = SnapshotFormat.payloadText(
            records: parts.records, openSession: try store.openSession(), chunkList: chunkList,
            todaysSessions: inlineCache ?? "", away: parts.away, settings: parts.settings, focus: parts.focus)
        PathTrace.mark("snapshot: payload read and serialised")
        let payloadHash = payloadHasher.hex(payload.text, resumable: payload.resumable)
        PathTrace.mark("snapshot: payload checksum")
        let (bytes, stateHash) = SnapshotFormat.file(payload: payload.text, stateHash: payloadHash, createdAt: clock.now())
        PathTrace.mark("snapshot: the file's bytes")
        var sequence = max(entries.last?.sequence ?? 0, lastSequence) + 1
        // Never into the slot of the newest durable snapshot (past a sequence that a store ahead
        // of the slots named, or a kept file written before its slot).
        if durableSequence > 0 && sequence % SnapshotSlots.count == durableSequence % SnapshotSlots.count { sequence += 1 }
        let path = directory + "/" + SnapshotKeeper.fileName(sequence: sequence, stateHash: stateHash)

        if entries.last?.stateHash == stateHash && slotAttachmentPending?() != true {
            // The newest kept snapshot already holds this state: nothing new is written.
        } else if writeAfterAnswer, let index = entries.lastIndex(where: { $0.stateHash == stateHash }) {
            // An older kept file holds this state (an undo, an edit taken back): the state is
            // kept anew after the answer and the older file goes then (SnapshotKeeper+KeptFile).
            let old = entries.remove(at: index)
            keptFileDue = KeptFileDue(bytes: bytes, path: path, replacing: old)
            entries.append(Entry(sequence: sequence, stateHash: stateHash, path: path))
        } else if let index = entries.lastIndex(where: { $0.stateHash == stateHash }),
                  (try? SnapshotFormat.read(Files.read(entries[index].path)))?.stateHash == stateHash {
            // An older kept snapshot holds this state: it becomes the newest, by name only.
            let old = entries.remove(at: index)
            try Files.move(old.path, to: path)
            state.renamed = (old.path, path)
            pending = state
            entries.append(Entry(sequence: sequence, stateHash: stateHash, path: path))
        } else {
            // (Also when the kept file of this state no longer verifies: the new one is newer.)
            // Not flushed: the slot below is the durable record; this file keeps the state among the 20.
            if writeAfterAnswer {
                keptFileDue = KeptFileDue(bytes: bytes, path: path, replacing: nil)
            } else {
                state.writtenFiles.append(path)
                pending = state
                try Files.writeDurably(bytes, to: path, syncFolder: false, prepared: nextSnapshotFile, flush: false)
            }
            entries.append(Entry(sequence: sequence, stateHash: stateHash, path: path))
        }
        if let newest = entries.last {
            tops[newest.sequence] = tree.root.map { [$0] } ?? []
        }
        PathTrace.mark("snapshot: kept state file")
        // The state this commit goes with, and which kept snapshot (a start-up that finds a newer
        // one rolls forward): one statement for both. Written with the transaction's other work
        // that the snapshot does not hold while the slot's bytes go to the disk.
        let mark = SnapshotMark(state: stateHash, sequence: entries.last?.sequence ?? 0)
        func rest(mayCommitEarly: Bool) throws {
            // The undo step, if the change writes one, carries the mark (schema v17).
            store.markForStep = mark
            defer { store.markForStep = nil }
            try meanwhile()
            try store.setSnapshotMark(mark)
            PathTrace.mark("snapshot: meta rows")
            // The commit too, while the disk takes the slot's bytes, when a flush that then fails
            // can have the change taken back exactly (Tracker+TakeBack.swift): its step's row
            // holds the mark, so that removing the row puts the mark before back; no other
            // connection wrote since the last change; nothing else rides on the slot (sync's
            // outbox, whose records a taken-back change would leave written).
            if mayCommitEarly, aloneSinceLastChange, store.markTakenByStep == mark, try commitEarly() {
                PathTrace.mark("SQLite: COMMIT, while the slot is written")
            }
        }
        if let newest = entries.last, newest.sequence != durableSequence {
            // The chunks the snapshot names that are not known durable travel in its slot, up to
            // a batch flush that makes them all durable at once.
            let carried = try chunksToCarry()
            lastSequence = max(lastSequence, newest.sequence)
            state.slotWritten = (previous: durableSequence, now: newest.sequence)
            pending = state
            let attachment = slotAttachment?() ?? []
            try slots.write(bytes, sequence: newest.sequence, carrying: carried, attachment: attachment,
                            whileWritten: { try rest(mayCommitEarly: attachment.isEmpty) })
            durableSequence = newest.sequence
            PathTrace.mark("slot: read back and compared")
        } else {
            try rest(mayCommitEarly: false)
        }
        pending = state
    }

    public func changeCommitted() {
        guard pending != nil else { return }
        pending = nil
        tidyUpDue = true
    }

    /// Set when a change left old snapshots to remove and files to prepare.
    var tidyUpDue = false
    /// See SnapshotKeeper+KeptFile.swift.
    public var writeAfterAnswer = false
    var keptFileDue: KeptFileDue?
    /// Chunk files not written yet (`writeAfterAnswer`), by SHA-256.
    var chunksDue: [String: [UInt8]] = [:]

    public func changeAbandoned() {
        // The rollback put rows back without the update hook seeing it: the parts are read anew.
        payloadParts = nil
        guard let undone = pending else { return }
        pending = nil
        keptFileDue = nil
        // The refused change's chunks are not written; those of earlier changes still wait.
        chunksDue = chunksDue.filter { undone.previousUnflushed[$0.key] != nil }
        if let renamed = undone.renamed { try? Files.move(renamed.to, to: renamed.from) }
        if let slot = undone.slotWritten {
            // The slot must not bring back a change that was refused: it is voided, and the
            // other slot (the state before) counts again.
            slots.void(sequence: slot.now)
            durableSequence = slot.previous
        }
        for path in undone.writtenFiles { unlink(path) }
        if let previousTree = undone.previousTree {
            tree = previousTree
        } else {
            for (period, reference) in undone.replacedInTree.reversed() { tree.set(reference, at: period) }
        }
        unflushed = undone.previousUnflushed
        // A batch flush in the refused change made its chunks durable, but they are removed
        // above: patches go against the tree durable before it again.
        durableTree = undone.previousDurableTree
        retiredDurableRoots = undone.previousRetiredRoots
        inlineDay = undone.previousInlineDay
        chunkedOfInlineDay = nil
        inlineCache = nil
        inlineParts = [:]
        todaysIDs = nil
        keptDay = nil
        entries = undone.previousEntries
        needsFullRecord = undone.previousNeedsFullRecord
        prepareFiles()
    }
}
