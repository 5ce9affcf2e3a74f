/// Connects one tracker to a sync folder (docs/sync.md): publishes this device's changes to its
/// own log and brings the records of other devices into the store, a batch at a time, through
/// the tracker's change gate. Knows no D-Bus and no file monitor: the agent calls `publish()`
/// after a local change and `merge()` when the folder changed.
public final class SyncEngine {
    public let tracker: Tracker
    public let layout: SyncLayout
    public let device: String
    let writer: SyncLogWriter
    var reader: SyncLogReader
    public internal(set) var replica = SyncReplica()
    /// Records of a newer version skipped, and reading them again once understood (SyncVersions).
    var newer = SyncNewerRecords()
    /// The merged state kept beside the store could not be taken at start: it is rebuilt from the folder.
    public private(set) var rebuilt = false
    /// The merged state kept beside the store was taken at start (neither rebuilt nor new).
    public private(set) var tookKeptState = false
    /// Complete lines that could not be read, as of the last merge.
    public internal(set) var problems: [SyncReadProblem] = []

    /// Opens the folder and takes the merged state the store kept when it is this folder's and
    /// every saved position still names the same line in the files (docs/sync.md, "Start-up"):
    /// then only what was appended since is read. Otherwise the merged state is rebuilt from
    /// every device's files. Publishes what the store holds that the folder does not, then merges.
    ///
    /// Publishing the whole history (when sync is enabled) and merging what the folder holds go
    /// in batches of at most `batchLimit` records, each one change of the tracker's gate
    /// (docs/sync.md, "Enabling, disabling"). With `deferringWork` the batches are left to
    /// `step(wallMilliseconds:)`, so that the agent returns to its main loop between them;
    /// otherwise they all run here.
    public init(tracker: Tracker, folder: String, device: String, deviceName: String, wallMilliseconds: Int64,
                deferringWork: Bool = false, batchLimit: Int = SyncEngine.defaultBatchLimit) throws {
        self.batchLimit = batchLimit
        self.tracker = tracker
        layout = SyncLayout(folder: folder)
        self.device = device
        let backing = try SyncReplicaStore.beside(tracker.store)
        let positions = SyncPositions.load(tracker.store, root: layout.root)
        let held = positions?.held(in: layout) ?? [:]
        let ours = try backing.root() == layout.root
        // A rebuild stopped in the middle (a crash, a kill) goes on from where it had got to.
        var resumed = ours ? try backing.rebuildProgress() : nil
        var kept = ours && resumed == nil ? positions.flatMap { saved in
            saved.devices[device] != nil && saved.devices.allSatisfy { $0.value.offset == 0 || held[$0.key] != nil } ? saved : nil
        } : nil
        // A kept state that cannot be read back whole is rebuilt, as if there were none.
        var loaded: SyncReplica?
        if kept != nil || resumed != nil {
            do { loaded = try SyncReplica(loadingFrom: backing) } catch { backing.noteUnreadable(error) }
            if backing.unreadable != nil { (loaded, kept, resumed) = (nil, nil, nil) }
        }
        writer = try SyncLogWriter(layout: layout, device: device, from: kept?.devices[device])
        if try tracker.store.meta("sync_folder") != folder {  // the store's triggers note changes while this is set
            try tracker.change(recordingStep: false) {
                try SyncTriggers.make(in: tracker.store)  // before anything is written with sync on
                try tracker.store.setMeta("sync_folder", folder)
            }
        }
        // What a power cut took from the log's unflushed tail is put back from the outbox first.
        let keeper = SyncGate.keeper(of: tracker.recorder)
        reappended = try writer.reappend(SyncOutbox.decode(keeper?.slotAttachment?() ?? [], folder: layout.root, device: device))
        if let kept, let loaded {
            tookKeptState = true
            replica = loaded
            newer = (try? backing.newerRecords()) ?? SyncNewerRecords()
            newer.rescanWhatThisBuildMayUnderstand()
            reader = SyncLogReader(layout: layout, cursors: kept.devices)
            mergedCursors = kept.devices.filter { $0.key != device }
        } else if let resumed, let loaded {
            rebuilt = true
            replica = loaded
            newer = (try? backing.newerRecords()) ?? SyncNewerRecords()
            reader = SyncLogReader(layout: layout, cursors: resumed.cursors)
            rebuilding = resumed
        } else {
            let root = layout.root
            try SyncEngine.outsideTheGate(tracker.store) { try backing.reset(root: root) }
            replica = SyncReplica(emptyWith: backing)
            reader = SyncLogReader(layout: layout)
            // What the store already holds of the other devices' records (its saved positions match
            // the files) is read into the merged state before anything is published (SyncRebuild).
            // Nothing to read (sync enabled on a new folder): the start finishes now, as it did.
            let others = held.filter { $0.key != device }
            if writer.nextSequence > 1 || !others.isEmpty {
                rebuilding = SyncRebuild(held: others)
                rebuilt = true
            }
        }
        self.deviceName = deviceName
        // From here every change publishes inside the gate; the slot carries the outbox. (The
        // start's own publish of what was noted is one such change: `finishStart`.)
        let gate = SyncGate(inner: tracker.recorder, engine: self)
        tracker.recorder = gate
        keeper?.slotAttachment = { [weak self] in self?.outboxAttachment() ?? [] }
        keeper?.slotAttachmentPending = { [weak self] in self?.stagedLines.isEmpty == false }
        do {
            if rebuilding == nil {
                let own = reader.readNew(device: device).records
                takeSkipped()  // written by a newer version of this device (Time was downgraded)
                replica.apply(own)
                readAtStart = own.count
                // The store holds every record of the merged state it kept: what follows is new, and
                // the merge's batches read it.
                alreadyHeld = replica.recordCount - replica.appliedCount(of: device)
                try finishStart(wallMilliseconds: wallMilliseconds)
            }
            // Everything is compared with the store when sync is enabled (changes made while it was
            // off were not noted), in batches, from where a run stopped by a crash had got to; when
            // it resumes after a restart, what the store noted is enough.
            if try tracker.store.meta(SyncEngine.publishedKey) != layout.root + " " + device {
                publishing = SyncPublishing.load(tracker.store, root: layout.root, device: device) ?? SyncPublishing()
            } else if try tracker.store.meta(SyncEngine.plansPublishedKey) != layout.root + " " + device {
                plansPending = true  // published before rates, targets and the shared settings travelled
            }
            moreToMerge = true
            guard !deferringWork else { return }
            while try step(wallMilliseconds: wallMilliseconds) {}
        } catch {
            // A start that fails leaves the tracker as it found it (no gate of an engine that is gone).
            if let installed = tracker.recorder as? SyncGate, installed === gate { tracker.recorder = gate.inner }
            keeper?.slotAttachment = nil
            keeper?.slotAttachmentPending = nil
            throw error
        }
    }

    /// The name this device publishes for itself.
    let deviceName: String
    /// Where rebuilding the merged state has got to; nil when it is not under way (SyncRebuild).
    var rebuilding: SyncRebuild?

    /// What a start does once the merged state holds this device's own records and those the
    /// store already holds of the others: the clock moves past them, the device's name is
    /// published if it changed, and what the store noted and was not published (a crash before
    /// its change's records were stamped; changes made while the merged state was rebuilt) is
    /// published in one change of the gate. Only there can a record inserted again under an id
    /// the merged state holds as deleted (an undo of a delete) take a new one, which rewrites its
    /// row (SyncPublisher.resurrect): published outside, it kept the deleted id, and every other
    /// device dropped it (a delete wins for good) while this one kept it.
    func finishStart(wallMilliseconds: Int64) throws {
        if let newest = replica.newest { writer.observe(newest) }
        if replica.entity(.device, device)?["name"]?.stringValue != deviceName {
            try append([SyncDraft(kind: .device, id: device, operation: replica.entity(.device, device) == nil ? .create : .set,
                                  fields: ["name": .string(deviceName)])], wallMilliseconds: wallMilliseconds)
        }
        guard try tracker.store.database.queryFirst("SELECT 1 FROM sync_dirty LIMIT 1", row: { $0.int(0) }) != nil else { return }
        try tracker.change(recordingStep: false) {}
    }

    /// Records (or, publishing, sessions) per change when enabling and merging, unless the caller
    /// says otherwise: memory holds one batch, whatever the history. The agent sizes its batches
    /// by the time they take instead (AgentSync), so that a call waits for one short batch at most.
    public static let defaultBatchLimit = 256
    /// Records (or sessions) per change of a batch; the agent adapts it to the time a batch takes.
    public var batchLimit: Int
    /// Where publishing the whole history has got to; nil when it is done (or was never needed).
    var publishing: SyncPublishing?
    /// The folder may hold records not merged yet (set at start and when the folder changed).
    public internal(set) var moreToMerge = false
    /// Records merged by the batches since the start (the bench and the tests count them).
    public internal(set) var mergedSinceStart = 0
    /// Changes made by the batches of publishing and merging (each one verified snapshot).
    public internal(set) var batches = 0
    /// The most records one batch's change held (publishing or merging): what bounds its memory.
    public internal(set) var largestBatch = 0

    /// The rates, targets and shared settings this store held before they travelled are still to
    /// be published once (SyncPlans), after the folder's records are merged.
    var plansPending = false

    /// Publishing the history is under way (the next step publishes, and does not merge).
    public var isPublishing: Bool { publishing != nil }

    /// Work left from enabling or from files that arrived: publishing the history, merging.
    public var hasPendingWork: Bool { rebuilding != nil || publishing != nil || plansPending || moreToMerge || !newer.rescan.isEmpty }

    /// The folder changed: its new records are merged by the next steps.
    public func folderChanged() { moreToMerge = true }

    /// Does one batch of the work left (publishing first, then merging), one change of the gate.
    /// Returns true while more is left: the agent calls it again from an idle source, so that
    /// D-Bus calls are answered between batches.
    @discardableResult
    public func step(wallMilliseconds: Int64) throws -> Bool {
        if rebuilding != nil {
            try rebuildBatch(wallMilliseconds: wallMilliseconds, limit: max(1, batchLimit))
        } else if publishing != nil {
            try publishBatch(wallMilliseconds: wallMilliseconds)
        } else if !newer.rescan.isEmpty {
            // A newer build: what an older one skipped is read again first.
            try rescanBatch(limit: max(1, batchLimit))
        } else if moreToMerge {
            let count = try mergeBatch(wallMilliseconds: wallMilliseconds, limit: max(1, batchLimit))
            if startPending { readAtStart += count }
        } else if plansPending {
            // After what the folder holds is merged: a value another device published is taken.
            try publishPlansOnce()
        }
        if !hasPendingWork && startPending {
            startPending = false
            // Kept now when it was rebuilt (as at the end of an undeferred start); if the store
            // cannot take it, the next flush tries again.
            try? saveMergedState()
        }
        return hasPendingWork
    }

    /// The start's work is not finished yet (its merges count in `readAtStart`).
    private var startPending = true

    /// Records a start-up put back into the log from the outbox (a power cut had taken them).
    public private(set) var reappended = 0
    /// Meta key: the folder and device whose log holds everything of the store (set once enabled).
    static let publishedKey = "sync_published"
    /// Records of other devices read at start that the store does not hold yet: the first merge's.
    var waiting: [SyncRecord] = []
    /// Records of other devices the store already held at start (they were not written again).
    public internal(set) var alreadyHeld = 0
    /// Records read from the folder's files at start, the start's merges included.
    public internal(set) var readAtStart = 0

    /// Every device seen: id, name, time (Unix seconds) of its newest change.
    public var devices: [(id: String, name: String, newest: Int64)] {
        replica.newestByDevice.keys.sorted().map { id in
            (id, replica.entity(.device, id)?["name"]?.stringValue ?? "", (replica.newestByDevice[id]?.time ?? 0) / 1000)
        }
    }

    /// The name of the device a session runs on, "" for this device's own.
    public func originName(ofSession globalID: String) -> String {
        guard let origin = replica.entity(.session, globalID)?["origin"]?.stringValue, origin != device else { return "" }
        return replica.entity(.device, origin)?["name"]?.stringValue ?? origin
    }

    /// Open sessions of other devices, as the folder has them (not in the store, whose timer is this device's).
    public var openSessionsElsewhere: [SyncEntity] {
        replica.openSessions.filter { $0["origin"]?.stringValue != device }
    }

    private func append(_ drafts: [SyncDraft], wallMilliseconds: Int64) throws {
        let records = try writer.append(drafts, wallMilliseconds: wallMilliseconds)
        replica.apply(records)
    }

    /// Why the merged state kept in the store could not be read back, if it could not: it is then
    /// dropped, and the next start rebuilds it from the folder.
    public var keptStateProblem: String? { replica.backing?.unreadable }

    /// The sequence number of this device's newest record (0 before the first).
    public var lastSequence: Int64 { writer.nextSequence - 1 }
    /// Records written to the log but not yet flushed there (they travel in the snapshot slot).
    public var unflushedRecords: Int { writer.unflushed.count }
    /// Flushes of the log so far.
    public var logFlushes: Int { writer.flushes }
    /// The log's newest file and its size as of the last flush: what a power cut cannot take.
    public var logFlushedThrough: (file: Int, size: Int64) { writer.flushedThrough }

    /// Makes the log durable (idle, shutdown, or every `outboxLimit` records).
    public func flushLog() throws {
        try writer.flush()
        do { try saveMergedState() } catch { throw MergedStateNotKept(reason: "\(error)") }
    }

    /// The log was flushed, but the merged state could not be kept in the store: nothing is lost,
    /// the next start only reads more of the folder.
    public struct MergedStateNotKept: Error, CustomStringConvertible {
        public let reason: String
        public var description: String {
            "the sync log is flushed, but the merged state could not be kept in the store (\(reason)); the next start reads the folder again"
        }
    }

    /// Stops publishing in the gate: the log is flushed and the tracker's recorder is the keeper
    /// again. Throws when the flush fails (the slot still carries the outbox).
    public func stop() throws {
        let keeper = SyncGate.keeper(of: tracker.recorder)
        if let gate = tracker.recorder as? SyncGate, gate.engine === self { tracker.recorder = gate.inner }
        keeper?.slotAttachmentPending = nil
        do {
            try writer.flush()
            keeper?.slotAttachment = nil
        } catch {
            // The outbox stays with the slots (as at start) until a start puts it in the log.
            let outbox = SyncOutbox.encode(folder: layout.root, device: device, lines: writer.unflushedText)
            keeper?.slotAttachment = outbox.isEmpty ? nil : { outbox }
            throw error
        }
        do { try saveMergedState() } catch { throw MergedStateNotKept(reason: "\(error)") }
    }

    // MARK: Publishing

    /// Writes what changed in the store since the last publish as records of this device: the
    /// records the store's triggers noted (`sync_dirty`), or with `full` every record (when
    /// sync starts). The cost follows what changed, not the history.
    public func publish(wallMilliseconds: Int64, full: Bool = false) throws {
        // While the merged state is rebuilt, what was noted waits (compared with a merged state
        // that lacks records, an edit could be published as a whole new record).
        guard rebuilding == nil else { return }
        // After a change through the gate, which emptied `sync_dirty` last thing in its
        // transaction, nothing is left to read unless something was written since.
        if !full, let emptied = dirtyEmptiedAt, emptied == tracker.store.database.totalChanges { return }
        guard let drafts = try localDrafts(full: full) else { return }
        try append(drafts, wallMilliseconds: wallMilliseconds)
        try tracker.store.database.execute("DELETE FROM sync_dirty")
    }

    /// The connection's count of written rows just after the gate emptied `sync_dirty` in a change
    /// that was then committed; nil when not known to be empty.
    private var dirtyEmptiedAt: Int64?

    /// What this device's records must say of what was noted (or, with `full`, of everything).
    private func localDrafts(full: Bool, resurrecting: Bool = false) throws -> [SyncDraft]? {
        try SyncPublisher(store: tracker.store, replica: replica, device: device).drafts(full: full, resurrecting: resurrecting)
    }

    // MARK: In the change gate (SyncGate)

    /// Records stamped in the change under way, not yet this device's (the change may be refused).
    private var staged: (records: [SyncRecord], clock: HybridClock)?
    var stagedLines: [[UInt8]] = []
    /// The slot written in this change carried the outbox with the staged records.
    private var carried = false
    /// After this many records not yet flushed, the log is flushed with the change that adds them.
    /// Every record waiting makes each slot write longer: on the 2-core test machine 8 cost less
    /// than 4 (more log flushes) and than 16 or 32 (longer slot writes) (time-bench, TIME_BENCH_OUTBOX).
    public var outboxLimit = 8
    /// Why the log could not be written after the last change (the slot still carries the records).
    public private(set) var logProblem: String?

    func stageLocalRecords() throws {
        dropStaged()
        guard rebuilding == nil else { return }  // the notes stay, published once it is rebuilt
        guard let drafts = try localDrafts(full: false, resurrecting: true) else { return }
        if !drafts.isEmpty {
            staged = writer.stamp(drafts, wallMilliseconds: tracker.clock.now() * 1000)
            stagedLines = staged!.records.map(\.lineBytes)
        }
        try tracker.store.database.execute("DELETE FROM sync_dirty")
        stagedEmptiedAt = tracker.store.database.totalChanges
    }

    /// `totalChanges` right after the change under way emptied `sync_dirty`.
    private var stagedEmptiedAt: Int64?

    /// The keeper's slot attachment: every record not yet flushed in the log, the staged ones too.
    func outboxAttachment() -> [UInt8] {
        carried = true
        return SyncOutbox.encode(head: outboxHead, lines: [writer.unflushedText] + stagedLines)
    }

    private lazy var outboxHead = SyncOutbox.head(folder: layout.root, device: device)

    func dropStaged() { staged = nil; stagedLines = []; carried = false; stagedEmptiedAt = nil; dirtyEmptiedAt = nil }

    func commitStaged() {
        dirtyEmptiedAt = stagedEmptiedAt
        stagedEmptiedAt = nil
        guard let (records, clock) = staged else { return }
        staged = nil
        replica.apply(records)
        do {
            try writer.accept(records, lines: stagedLines, clock: clock)
            // Without a slot carrying them (no keeper, or a change that left the state as it was)
            // the records are flushed now, as is a full outbox.
            if !carried || writer.unflushed.count >= outboxLimit { try writer.flush() }
            logProblem = nil
        } catch {
            logProblem = "\(error)"
        }
    }

    // MARK: Merging

    /// Where the store holds every other device's records through, as of the last merge committed.
    var mergedCursors: [String: SyncCursor] = [:]

    /// Entities merged but not yet written to the store (a refused change is tried again).
    var unmaterialized: [(SyncKind, String)] = []
}
