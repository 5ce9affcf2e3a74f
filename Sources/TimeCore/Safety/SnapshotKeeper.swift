import Glibc

/// Keeps verified JSON snapshots of the data state: one is written (or found) for every change
/// before it is acknowledged; the newest 20 distinct states are kept.
///
/// Cost stays flat as history grows: completed sessions are stored in content-addressed chunk
/// files, one per UTC month of their start, and a change rewrites only the months it touched.
/// The open session and the latest sessions begun today (UTC) live in the snapshot file itself,
/// so the timer's changes (pause, resume, stop, switch) rarely write a chunk: today's sessions
/// join their month's chunk in whole blocks of `inlineBlock`, and the rest with the first change
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
    public private(set) var entries: [Entry] = []
    private var chunks: [String: SnapshotFormat.ChunkReference] = [:]
    /// True until the chunk table matches the store: the first recorded change then reads every month.
    private var needsFullRecord = true
    /// The serialized chunk list of `chunks`, kept while no month changes (a pause or resume
    /// then serializes only the small parts of the payload).
    private var chunkListCache: String?
    /// Today's finished sessions, by id, are kept in the payload except for whole blocks of this
    /// many, which go into the month's chunk: a busy day's payload stays small, and only every
    /// 32nd session finished pays for rewriting a chunk.
    static let inlineBlock = 32
    /// The UTC day whose finished sessions the newest recorded payload holds itself (nil: none
    /// known); the ids of that day's sessions its month's chunk holds instead (nil: not known);
    /// the first id held inline; and the inline sessions serialized, kept while they do not change.
    private var inlineDay: String?
    private var chunkedOfInlineDay: [Int64]?
    private var firstInlineID = Int64.max
    private var inlineCache: String?
    /// Which chunks each kept snapshot refers to, and how many kept snapshots refer to each chunk:
    /// loaded when first needed for pruning, then kept up to date change by change.
    private var chunkUse: ChunkUse?

    private struct ChunkUse {
        var byEntry: [Int: Set<String>] = [:]
        var counts: [String: Int] = [:]

        mutating func add(_ sequence: Int, _ hashes: Set<String>) {
            remove(sequence)
            byEntry[sequence] = hashes
            for hash in hashes { counts[hash, default: 0] += 1 }
        }

        /// Forgets an entry; returns the chunks no kept snapshot refers to any more.
        @discardableResult
        mutating func remove(_ sequence: Int) -> [String] {
            guard let hashes = byEntry.removeValue(forKey: sequence) else { return [] }
            var unused: [String] = []
            for hash in hashes {
                let count = (counts[hash] ?? 1) - 1
                counts[hash] = count > 0 ? count : nil
                if count <= 0 { unused.append(hash) }
            }
            return unused
        }
    }

    private struct Pending {
        var previousChunks: [String: SnapshotFormat.ChunkReference]
        var previousEntries: [Entry]
        var previousNeedsFullRecord: Bool
        var previousInlineDay: String?
        var writtenFiles: [String]
        var renamed: (from: String, to: String)?
        var slotWritten: (previous: Int, now: Int)?
    }
    private var pending: Pending?

    /// Temporary files for the next snapshot and the next chunk, created after each change.
    private let nextSnapshotFile: PreparedFile
    private let nextChunkFile: PreparedFile
    /// The durable record of each change (SnapshotSlots): one in-place write and one flush.
    private let slots: SnapshotSlots
    /// The highest sequence number used so far (kept files and slots), never reused; and the
    /// one whose snapshot the slots hold durably.
    private var lastSequence = 0
    private var durableSequence = 0
    /// Bytes that travel with each change's slot, outside the state (sync's outbox); asked for
    /// only when a slot is written. Until someone sets it, what the newest slot carried at start
    /// travels on, so that no change made before sync starts drops it.
    public var slotAttachment: (() -> [UInt8])?

    public init(directory: String, clock: Clock) throws {
        self.directory = directory
        self.clock = clock
        try Files.makePrivateDirectory(directory)
        for name in Files.list(directory) where name.hasSuffix(".tmp") { unlink(directory + "/" + name) }
        entries = SnapshotKeeper.scan(directory)
        nextSnapshotFile = PreparedFile(path: directory + "/next-state.tmp")
        nextChunkFile = PreparedFile(path: directory + "/next-chunk.tmp")
        slots = try SnapshotSlots(directory: directory)
        durableSequence = SnapshotSlots.entries(directory).last?.sequence ?? 0
        lastSequence = max(entries.last?.sequence ?? 0, durableSequence)
        let carried = SnapshotSlots.newestAttachment(directory)
        if !carried.isEmpty { slotAttachment = { carried } }
    }

    /// The chunk a month's sessions are kept in: the month itself in the current UTC year, the
    /// whole year before it. Old years rarely change, and the payload stays short.
    func period(ofMonth month: String) -> String {
        let year = String(month.prefix(4))
        return year < String(CivilDate.utcMonthKey(clock.now()).prefix(4)) ? year : month
    }

    func period(ofDay day: String) -> String { period(ofMonth: String(day.prefix(7))) }

    /// True when `period` is a month whose year is kept as one chunk already: only possible when
    /// the clock went back across a year end.
    private func overlapsAnotherKind(_ period: String) -> Bool {
        period.contains("-") && chunks[String(period.prefix(4))] != nil
    }

    static func fileName(sequence: Int, stateHash: String) -> String {
        "state-\(pad(sequence, 10))-\(stateHash).json"
    }

    static func chunkName(_ hash: String) -> String { "chunk-\(hash).json" }

    /// Snapshot files in a folder, oldest first, read from their names.
    public static func scan(_ directory: String) -> [Entry] {
        Files.list(directory).compactMap { name -> Entry? in
            let parts = name.split(separator: "-")
            guard name.hasPrefix("state-"), name.hasSuffix(".json"), parts.count == 3,
                  let sequence = Int(parts[1]) else { return nil }
            return Entry(sequence: sequence, stateHash: String(parts[2].dropLast(5)), path: directory + "/" + name)
        }.sorted { $0.sequence < $1.sequence }
    }

    // MARK: Reading

    /// Reads and fully verifies one snapshot: its checksum, every chunk it refers to, every record.
    public func state(of entry: Entry) throws -> DataState {
        // A kept file is not flushed (the slot is the durable record): after a power cut its name
        // may hold a recycled file's older bytes, whole and checksummed. Those are not its state.
        let header = try SnapshotFormat.read(try SnapshotSlots.snapshotBytes(at: entry.path))
        // (Names that carry no hash, as hand-made fixtures' do, are not compared.)
        guard header.stateHash == entry.stateHash || entry.stateHash.count != 64 else { throw SnapshotFormat.Failure.checksumMismatch }
        return try SnapshotKeeper.state(at: entry.path)
    }

    public static func state(at path: String) throws -> DataState {
        let header = try SnapshotFormat.read(try SnapshotSlots.snapshotBytes(at: path))
        let payload = try SnapshotFormat.migrate(header.payload, from: header.version)
        let folder = Files.directoryName(path)
        return try SnapshotFormat.state(from: payload) { hash in
            guard hash.count == 64, hash.allSatisfy({ $0.isHexDigit }) else { throw SnapshotFormat.Failure.missingChunk(hash) }
            do { return try Files.read(folder + "/" + chunkName(hash)) } catch { throw SnapshotFormat.Failure.missingChunk(hash) }
        }
    }

    /// Makes the chunk table match the snapshot the store says it was last recorded with, so
    /// the next change rewrites only what it touches. When no kept snapshot matches (a new or
    /// migrated store, lost snapshots), the next change records every month.
    public func attach(to store: Store) {
        needsFullRecord = true
        guard let recorded = try? store.meta("snapshot_state"),
              let entry = entries.last(where: { $0.stateHash == recorded }),
              let header = try? SnapshotFormat.read(try Files.read(entry.path)), header.version == SnapshotFormat.currentVersion,
              let references = header.payload["chunks"]?.arrayValue
        else { return }
        var table: [String: SnapshotFormat.ChunkReference] = [:]
        for reference in references {
            guard let period = reference["period"]?.stringValue, let hash = reference["sha256"]?.stringValue,
                  let count = reference["sessions"]?.intValue,
                  Files.kind(directory + "/" + SnapshotKeeper.chunkName(hash)) == .regular else { return }
            table[period] = SnapshotFormat.ChunkReference(period: period, sha256: hash, sessions: Int(count))
        }
        // The day the payload kept in itself (all its sessions began that day), so that the
        // first change of another day moves them into their month's chunk.
        let inline = header.payload["sessions"]?.arrayValue ?? []
        guard let firstStart = inline.first?["start"]?.intValue else {
            chunks = table
            inlineDay = nil
            chunkedOfInlineDay = nil
            inlineCache = nil
            needsFullRecord = false
            prepareFiles()
            return
        }
        let day = CivilDate.utcDayKey(firstStart)
        guard inline.allSatisfy({ $0["start"]?.intValue.map(CivilDate.utcDayKey) == day }) else { return }
        chunks = table
        inlineDay = day
        chunkedOfInlineDay = nil
        inlineCache = nil
        needsFullRecord = false
        prepareFiles()
    }

    public var isAttached: Bool { !needsFullRecord }

    /// Creates the temporary files the next change will write into.
    public func prepareFiles() {
        nextSnapshotFile.prepare()
        nextChunkFile.prepare()
    }

    // MARK: ChangeRecorder

    public func recordState(of store: Store, changedDays: Set<String>) throws {
        do {
            try record(store, changedDays: changedDays)
        } catch {
            // Half a record must not stay behind: the chunk table, the day kept inline and any
            // file written go back to what the last recorded state had.
            changeAbandoned()
            throw error
        }
    }

    private func record(_ store: Store, changedDays: Set<String>) throws {
        tidyUp()
        var state = Pending(previousChunks: chunks, previousEntries: entries, previousNeedsFullRecord: needsFullRecord,
                            previousInlineDay: inlineDay, writtenFiles: [], renamed: nil)
        pending = state
        let today = CivilDate.utcDayKey(clock.now())
        var periods = Set<String>()
        for day in changedDays where day != today { periods.insert(period(ofDay: day)) }
        // Another day (or the first change since start): the day kept inline goes into its chunk.
        if inlineDay != today, let previous = inlineDay { periods.insert(period(ofDay: previous)) }
        if inlineCache == nil || inlineDay != today || changedDays.contains(today) {
            // Which of today's sessions are inline: all but the whole blocks. The month's chunk
            // is rewritten only when the sessions it holds of today change.
            let ids = try store.completedSessionIDs(inPeriod: today)
            let blocks = ids.count / SnapshotKeeper.inlineBlock * SnapshotKeeper.inlineBlock
            let chunked = Array(ids.prefix(blocks))
            if inlineDay != today || chunked != chunkedOfInlineDay || !store.changedSessionIDs.isDisjoint(with: chunked) {
                periods.insert(period(ofDay: today))
            }
            firstInlineID = blocks < ids.count ? ids[blocks] : Int64.max
            inlineCache = SnapshotFormat.sessionList(try store.completedSessions(inPeriod: today, fromID: firstInlineID))
            inlineDay = today
            chunkedOfInlineDay = chunked
        }
        // Months of a year that is over go into that year's chunk, whenever the keeper notices
        // (running through the year end or started after it): the layout follows the clock alone.
        for key in chunks.keys where key.contains("-") && period(ofMonth: key) != key {
            periods.insert(period(ofMonth: key))
        }
        // Only now are all the periods known (today's may have joined them).
        if needsFullRecord || periods.contains(where: overlapsAnotherKind) {
            // Everything anew: at the first change after start without a matching snapshot, or when
            // the clock went back across a year end so that months and their year would overlap.
            periods = Set(try store.monthsWithCompletedSessions().map(period(ofMonth:)))
            chunks.removeAll()
            chunkListCache = nil
        }
        if !periods.isEmpty { chunkListCache = nil }
        var wroteChunk = false
        for period in periods.sorted() {
            // A past year's chunk replaces the month chunks it was kept in while it was current.
            if !period.contains("-") {
                for key in chunks.keys where key.hasPrefix(period + "-") { chunks[key] = nil }
            }
            let sessions = try store.completedSessions(inPeriod: period, leavingOut: (today, firstInlineID))
            if sessions.isEmpty {
                chunks[period] = nil
                continue
            }
            let bytes = SnapshotFormat.chunk(period: period, sessions: sessions)
            let hash = SHA256.hex(bytes)
            let path = directory + "/" + SnapshotKeeper.chunkName(hash)
            let existed = Files.kind(path) == .regular
            if !existed || (try? Files.read(path)).map(SHA256.hex) != hash {
                // A new file is listed first, so that a write failing after its rename (the
                // read-back) is removed too; a damaged one being replaced only once it is.
                if !existed { state.writtenFiles.append(path) }
                pending = state
                try Files.writeDurably(bytes, to: path, syncFolder: false, prepared: nextChunkFile)
                if existed { state.writtenFiles.append(path) }
                pending = state
                wroteChunk = true
            }
            chunks[period] = SnapshotFormat.ChunkReference(period: period, sha256: hash, sessions: sessions.count)
        }
        needsFullRecord = false
        let chunkList = chunkListCache ?? SnapshotFormat.chunkList(chunks.values.sorted { $0.period < $1.period })
        chunkListCache = chunkList
        let payload = SnapshotFormat.payload(
            categories: try store.categories(), projects: try store.projects(),
            reminderMinutes: try store.meta("reminder_minutes").flatMap { UInt32($0) } ?? Tracker.defaultReminderMinutes,
            openSession: try store.openSession(), chunkList: chunkList, todaysSessions: inlineCache ?? "",
            away: SnapshotFormat.awayJSON(try store.awayState()),
            dataID: try store.meta("data_id") ?? "")
        let (bytes, stateHash) = SnapshotFormat.file(payload: payload, createdAt: clock.now())
        let sequence = max(entries.last?.sequence ?? 0, lastSequence) + 1
        let path = directory + "/" + SnapshotKeeper.fileName(sequence: sequence, stateHash: stateHash)

        if entries.last?.stateHash == stateHash {
            // The newest kept snapshot already holds this state: nothing new is written.
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
            state.writtenFiles.append(path)
            pending = state
            // Not flushed: the slot below is the durable record; this file keeps the state among the 20.
            try Files.writeDurably(bytes, to: path, syncFolder: false, prepared: nextSnapshotFile, flush: false)
            entries.append(Entry(sequence: sequence, stateHash: stateHash, path: path))
        }
        if let newest = entries.last, newest.sequence != durableSequence {
            // The chunks the snapshot names are durable before it is: new names need the folder flushed.
            if wroteChunk { try Files.syncDirectory(directory) }
            lastSequence = max(lastSequence, newest.sequence)
            state.slotWritten = (previous: durableSequence, now: newest.sequence)
            pending = state
            try slots.write(bytes, attachment: slotAttachment?() ?? [], sequence: newest.sequence)
            durableSequence = newest.sequence
        }
        try store.setMeta("snapshot_state", stateHash)
        // Which kept snapshot this commit goes with: a start-up that finds a newer one rolls forward.
        try store.setMeta(SnapshotKeeper.sequenceKey, String(entries.last?.sequence ?? 0))
        pending = state
    }

    public func changeCommitted() {
        guard let done = pending else { return }
        pending = nil
        if chunkUse != nil, let newest = entries.last, newest.path != done.previousEntries.last?.path {
            if let renamed = done.renamed, let oldSequence = SnapshotKeeper.sequence(inName: renamed.from) {
                chunkUse!.remove(oldSequence)
            }
            chunkUse!.add(newest.sequence, Set(chunks.values.map(\.sha256)))
        }
        tidyUpDue = true
    }

    /// Set when a change left old snapshots to remove and files to prepare.
    private var tidyUpDue = false

    public func tidyUp() {
        guard tidyUpDue else { return }
        tidyUpDue = false
        prune()
        prepareFiles()
    }

    public func changeAbandoned() {
        guard let undone = pending else { return }
        pending = nil
        if let renamed = undone.renamed { try? Files.move(renamed.to, to: renamed.from) }
        if let slot = undone.slotWritten {
            // The slot must not bring back a change that was refused: it is voided, and the
            // other slot (the state before) counts again.
            slots.void(sequence: slot.now)
            durableSequence = slot.previous
        }
        for path in undone.writtenFiles { unlink(path) }
        chunks = undone.previousChunks
        chunkListCache = nil
        inlineDay = undone.previousInlineDay
        chunkedOfInlineDay = nil
        inlineCache = nil
        entries = undone.previousEntries
        needsFullRecord = undone.previousNeedsFullRecord
        prepareFiles()
    }

    private static func sequence(inName path: String) -> Int? {
        let parts = Files.baseName(path).split(separator: "-")
        return parts.count == 3 ? Int(parts[1]) : nil
    }

    /// Removes snapshots beyond the newest 20 and the chunks no kept snapshot refers to; the
    /// first of each becomes the next temporary file instead of being deleted.
    private func prune() {
        guard entries.count > SnapshotKeeper.keptStates else { return }
        if chunkUse == nil { chunkUse = loadChunkUse() }
        let current = Set(chunks.values.map(\.sha256))
        while entries.count > SnapshotKeeper.keptStates {
            let oldest = entries.removeFirst()
            if !nextSnapshotFile.recycle(oldest.path) { unlink(oldest.path) }
            for hash in chunkUse!.remove(oldest.sequence) where !current.contains(hash) {
                let chunk = directory + "/" + SnapshotKeeper.chunkName(hash)
                if !nextChunkFile.recycle(chunk) { unlink(chunk) }
            }
        }
    }

    private func loadChunkUse() -> ChunkUse {
        var use = ChunkUse()
        for entry in entries {
            use.add(entry.sequence, SnapshotFormat.chunkHashes(inFile: (try? Files.read(entry.path)) ?? []))
        }
        return use
    }

    // MARK: Restoring

    /// Writes `state` into an empty store, keeping every id, and reads it back to compare
    /// record by record and relationship by relationship.
    public static func restore(_ state: DataState, into store: Store, stateHash: String?, sequence: Int? = nil) throws {
        let state = state.withGlobalIDs()
        let problems = state.relationshipProblems()
        guard problems.isEmpty else { throw RestoreFailure.inconsistent(problems.joined(separator: "; ")) }
        try store.begin()
        do {
            try store.removeAll()
            for category in state.categories { try store.insertCategory(category) }
            for project in state.projects { _ = try store.insertProject(project, keepingID: true) }
            for session in state.sessions { _ = try store.insertSession(session, keepingID: true) }
            try store.setMeta("reminder_minutes", String(state.reminderMinutes))
            try store.restoreAway(state.away)
            if !state.dataID.isEmpty { try store.setMeta("data_id", state.dataID) }
            if let stateHash { try store.setMeta("snapshot_state", stateHash) }
            if let sequence { try store.setMeta(sequenceKey, String(sequence)) }
            try store.commit()
        } catch {
            store.rollback()
            throw error
        }
        let differences = try DataState(store: store).differences(from: state)
        guard differences.isEmpty else { throw RestoreFailure.mismatch(differences.joined(separator: "; ")) }
    }

    public enum RestoreFailure: Error, CustomStringConvertible {
        case inconsistent(String)
        case mismatch(String)
        public var description: String {
            switch self {
            case .inconsistent(let what): "the snapshot's records do not fit together (\(what))"
            case .mismatch(let what): "the restored store differs from the snapshot (\(what))"
            }
        }
    }
}
