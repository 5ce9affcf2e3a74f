import CGLib
import DBusKit
import TimeCore

/// What the agent holds while sync is on: the engine, the watch on the folder, what to say.
final class AgentSync {
    var engine: SyncEngine?
    var watch: FolderWatch?
    var state = "off"
    var message = ""
    var folder = ""
    var mergeSource: UInt32 = 0
    var recheckSource: UInt32 = 0
    var flushSource: UInt32 = 0
    var announced: [String: DBusValue] = [:]
    /// Seconds after a change before the log's unflushed records are flushed (one timer, not a tick).
    static let flushDelay: guint = 2
    /// The kept state's read problem was logged (once per run).
    var keptStateProblemLogged = false
    /// What one batch of enabling or merging aims to take, so that a call waits at most about
    /// that long for an answer (the goal is 50 ms): the batch's flushes (the log's, the slot's, now
    /// and then the chunks' batch flush) come on top, and on a busy disk they take tens of ms.
    static let batchMicroseconds: Int64 = 10_000
    static let stepPriority = G_PRIORITY_DEFAULT_IDLE + 10
    static let smallestBatch = 16
    /// Records merged since sync started, as of the last batch (to log and refresh after a round).
    var mergedBefore = 0
    /// Batch sizes, one for publishing and one for merging (a merged record costs several times
    /// what a published one does), each following the time its last batch took.
    var batchLimits = (publishing: 64, merging: 64)
    /// The round under way is the recheck of a bad line (its end reports what it found).
    var rechecking = false
}

/// Sync across devices on the bus (the contract's "Sync across devices"; docs/sync.md): the
/// engine lives in TimeCore; the agent enables it, watches the folder with inotify on the main
/// loop (no polling), publishes after each change and merges when files arrive.
extension AgentService {
    var syncMethods: [Method] {
        [
            changing("EnableSync", [Argument("folder", "s"), Argument("device_name", "s")], [],
                     "Starts writing this device's changes to folder and merging the others'; the whole local history is published once.") { args in
                try self.enableSync(folder: args.string(0), name: args.string(1)); return []
            },
            changing("DisableSync", [], [], "Stops sync; nothing already merged is removed.") { _ in
                try self.tracker.disableSync()
                self.stopSync()
                return []
            },
        ]
    }

    var syncProperties: [Property] {
        [
            Property(name: "SyncFolder", signature: "s", doc: "The sync folder; empty when off.") { [unowned self] in .string(self.sync.folder) },
            Property(name: "SyncState", signature: "s", doc: "off, ok or error.") { [unowned self] in .string(self.sync.state) },
            Property(name: "SyncMessage", signature: "s", doc: "What went wrong and what to do; empty when fine.") { [unowned self] in
                .string(self.sync.message)
            },
            Property(name: "Devices", signature: "a(ssx)", doc: "Every device seen: device id, name, time of its newest change.") { [unowned self] in
                self.devicesValue
            },
        ]
    }

    private var devicesValue: DBusValue {
        .array(elementSignature: "(ssx)", (sync.engine?.devices ?? []).map { .structure([.string($0.id), .string($0.name), .int64($0.newest)]) })
    }

    private var wallMilliseconds: Int64 { tracker.clock.now() * 1000 }

    /// At start: sync stays on across restarts, with the same device id.
    func resumeSync() {
        // Reports count the sessions running on other devices (the contract's "Sync across devices").
        tracker.sessionsElsewhere = { [unowned self] in self.sessionsElsewhere().map(\.session) }
        guard let settings = try? tracker.syncSettings() else { return }
        startSync(settings)
    }

    func enableSync(folder: String, name: String) throws {
        let settings = try tracker.enableSync(folder: folder, name: name)
        stopSync()
        startSync(settings)
        if sync.state == "error" { throw TrackerError.invalidArgument(sync.message) }
    }

    private func startSync(_ settings: SyncSettings) {
        sync.folder = settings.folder
        do {
            // Publishing the history and merging what the folder holds go in batches, one per
            // turn of the main loop (an idle source), so that calls are answered meanwhile.
            let engine = try SyncEngine(tracker: tracker, folder: settings.folder, device: settings.device,
                                        deviceName: settings.name, wallMilliseconds: wallMilliseconds, deferringWork: true)
            sync.engine = engine
            sync.mergedBefore = engine.mergedSinceStart
            sync.watch = FolderWatch { [weak self] folder in self?.folderChanged(folder) }
            watchDevices()
            sync.state = "ok"
            sync.message = ""
            scheduleSyncStep()
            Log.info("sync on: \(settings.folder) as \(settings.name) (\(settings.device))")
        } catch {
            sync.state = "error"
            sync.message = "Sync could not start in \(settings.folder): \(error). Check that the folder exists and can be written, then enable sync again."
            Log.warning(sync.message)
        }
        announceSync()
    }

    func stopSync() {
        if sync.mergeSource != 0 { g_source_remove(sync.mergeSource); sync.mergeSource = 0 }
        if sync.recheckSource != 0 { g_source_remove(sync.recheckSource); sync.recheckSource = 0 }
        sync.rechecking = false
        if sync.flushSource != 0 { g_source_remove(sync.flushSource); sync.flushSource = 0 }
        do { try sync.engine?.stop() } catch let error as SyncEngine.MergedStateNotKept {
            Log.warning("\(error)")
        } catch {
            Log.warning("the sync log could not be flushed (\(error)); the snapshot keeps its newest records, written at the next start")
        }
        sync.engine = nil
        sync.watch = nil
        sync.folder = ""
        sync.state = "off"
        sync.message = ""
        announceSync()
    }

    /// The root and every other device's folder; this device's own is not watched (it writes it).
    private func watchDevices() {
        guard let engine = sync.engine, let watch = sync.watch else { return }
        watch.watch(engine.layout.root)
        for device in engine.layout.devices() where device != engine.device { watch.watch(engine.layout.deviceFolder(device)) }
    }

    /// After every local change, before the reply: this device's records are in its log.
    func syncAfterLocalChange() {
        guard let engine = sync.engine else { return }
        do {
            try engine.publish(wallMilliseconds: wallMilliseconds)
            if let problem = engine.logProblem { throw TrackerError.storageFailure(problem) }
            // Records written but not flushed (the snapshot slot holds them) are flushed a little later, once.
            if engine.unflushedRecords > 0 && sync.flushSource == 0 {
                sync.flushSource = g_timeout_add_seconds_full(G_PRIORITY_DEFAULT_IDLE, AgentSync.flushDelay, syncFlushDue,
                                                              Unmanaged.passUnretained(self).toOpaque(), nil)
            }
            // A batch that failed (the log could not be written, say) is tried again after a change.
            scheduleSyncStep()
        } catch {
            // The change itself is safe in the store; the next publish (or start) writes it.
            sync.state = "error"
            sync.message = "This device's changes could not be written to the sync folder (\(error)); they are kept and written when it can be."
            announceSync()
        }
    }

    private func folderChanged(_ folder: String) {
        watchDevices()
        sync.engine?.folderChanged()
        scheduleSyncStep()
    }

    /// One batch for a burst of events, from an idle source (never re-entrantly). Its priority is
    /// just below the idle source that dispatches D-Bus messages (DBusKitGLib's, at the default
    /// idle priority): a call that arrived during a batch is answered before the next batch, not
    /// after it, so it waits for one batch at most.
    private func scheduleSyncStep() {
        guard sync.mergeSource == 0, sync.engine?.hasPendingWork == true else { return }
        sync.mergeSource = g_idle_add_full(AgentSync.stepPriority, syncMergeDue, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    /// One batch of publishing the history or merging, then back to the main loop; the batch's
    /// size follows the time the last one of its kind took.
    fileprivate func stepNow() {
        sync.mergeSource = 0
        guard let engine = sync.engine else { return }
        let began = g_get_monotonic_time()
        let publishing = engine.isPublishing
        let limit = publishing ? sync.batchLimits.publishing : sync.batchLimits.merging
        engine.batchLimit = limit
        do {
            let more = try engine.step(wallMilliseconds: wallMilliseconds)
            let took = max(Int64(g_get_monotonic_time() - began), 1)
            // Half or twice at most per batch, between 16 and 1,024 records. A batch's flushes and
            // its snapshot (one slot, its chunks, an old snapshot pruned) cost about as much as 64
            // merged records, so small batches make the whole slower (100,000 records: 76 s at 16,
            // 40 s at 64 on the test machine), but a call waits for a smaller one (at 64, 1.4% of
            // the calls waited 50–66 ms; at 16, none over 46 ms): answering comes first.
            let aimed = Int(Int64(limit) * AgentSync.batchMicroseconds / took)
            let next = min(max(aimed, limit / 2, AgentSync.smallestBatch), limit * 2, 1024)
            if publishing { sync.batchLimits.publishing = next } else { sync.batchLimits.merging = next }
            if more {
                scheduleSyncStep()
                return
            }
            let count = engine.mergedSinceStart - sync.mergedBefore
            sync.mergedBefore = engine.mergedSinceStart
            if count > 0 { Log.info("merged \(count) records from the sync folder (\(engine.batches) changes since sync started)") }
            if sync.rechecking {
                reportRecheck(engine.problems)
            } else {
                sync.recheckSource = 0
                report(engine.problems)
                if count > 0 { refreshAfterChange() }
            }
        } catch {
            sync.state = "error"
            sync.message = "Changes from the sync folder could not be merged, or this device's history could not be published (\(error)); nothing was changed. They are tried again when the folder changes."
        }
        announceSync()
    }

    /// A bad line may be a copy still under way: it is reported only if it is still there a little later.
    private func report(_ problems: [SyncReadProblem]) {
        if problems.isEmpty {
            sync.state = "ok"
            sync.message = ""
        } else if sync.recheckSource == 0 && sync.state != "error" {
            sync.recheckSource = g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, 5, syncRecheckDue, Unmanaged.passUnretained(self).toOpaque(), nil)
        } else {
            sync.state = "error"
            sync.message = "A change file in the sync folder is damaged: \(problems[0]). Changes after it wait; if the sync engine does not repair it, restore that file from the device that wrote it."
        }
    }

    fileprivate func flushLog() {
        sync.flushSource = 0
        defer {
            if let problem = sync.engine?.keptStateProblem, !sync.keptStateProblemLogged {
                sync.keptStateProblemLogged = true
                Log.warning("the merged state kept for sync could not be read back (\(problem)); it is dropped and rebuilt from the folder at the next start")
            }
        }
        do { try sync.engine?.flushLog() } catch let error as SyncEngine.MergedStateNotKept {
            Log.warning("\(error)")
        } catch {
            Log.warning("the sync log could not be flushed (\(error)); its records stay in the snapshot slot and are tried again")
        }
    }

    /// A bad line still there 5 s later is reported: the folder is read again, in batches like
    /// any merge, and the round's end says what it found.
    fileprivate func recheck() {
        sync.recheckSource = 0
        guard let engine = sync.engine else { return }
        sync.rechecking = true
        engine.folderChanged()
        scheduleSyncStep()
    }

    private func reportRecheck(_ problems: [SyncReadProblem]) {
        sync.rechecking = false
        if !problems.isEmpty {
            sync.state = "error"
            sync.message = "A change file in the sync folder is damaged: \(problems[0]). Changes after it wait; if the sync engine does not repair it, restore that file from the device that wrote it."
        } else {
            sync.state = "ok"; sync.message = ""
        }
        refreshAfterChange()
    }

    func announceSync() {
        let now: [String: DBusValue] = ["SyncFolder": .string(sync.folder), "SyncState": .string(sync.state),
                                        "SyncMessage": .string(sync.message), "Devices": devicesValue]
        let changed = now.filter { sync.announced[$0.key] != $0.value }
        sync.announced = now
        guard !changed.isEmpty, let connection else { return }
        try? connection.emitPropertiesChanged(path: Contract.objectPath, interface: Contract.interface, changed: changed)
    }

    /// The device a session runs on ("" for this device's own), and other devices' open sessions for ListSessions.
    func deviceName(of session: WorkSession) -> String {
        sync.engine?.originName(ofSession: session.globalID) ?? ""
    }

    /// Other devices' open sessions as records of this store (id 0, this store's project ids), with
    /// the name of the device each runs on: listed by ListSessions and counted in reports.
    func sessionsElsewhere() -> [(session: WorkSession, device: String)] {
        guard let engine = sync.engine else { return [] }
        let projects = Dictionary(tracker.projects().map { ($0.globalID, $0) }, uniquingKeysWith: { a, _ in a })
        let representatives = engine.replica.representatives(.project)
        return engine.openSessionsElsewhere.compactMap { entity in
            let gid = entity["project"]?.stringValue ?? ""
            guard let local = projects[representatives[gid] ?? gid] else { return nil }
            let segments: [Segment] = (entity["segments"]?.arrayValue ?? []).compactMap {
                guard let pair = $0.arrayValue, pair.count == 2, let start = pair[0].intValue else { return nil }
                return Segment(start: start, end: pair[1].intValue)
            }
            let session = WorkSession(id: 0, projectID: local.id, start: entity["start"]?.intValue ?? 0, end: nil,
                                      unrecordedSeconds: entity["unrecorded"]?.intValue ?? 0,
                                      note: entity["note"]?.stringValue ?? "", segments: segments)
            return (session, engine.originName(ofSession: entity.id))
        }
    }

    func openSessionsElsewhere(project: Int64) -> [DBusValue] {
        let now = tracker.clock.now()
        return sessionsElsewhere().compactMap { session, device in
            if project != 0 && session.projectID != project { return nil }
            return .vardict([
                "id": .uint64(0), "project_id": .uint64(UInt64(session.projectID)),
                "project": .string(tracker.project(id: session.projectID)?.name ?? ""),
                "start": .int64(session.start), "end": .int64(0), "active": .uint64(UInt64(max(0, session.activeSeconds(at: now)))),
                "state": .string(session.isRunning ? "running" : "paused"), "note": .string(session.note),
                "segments": .array(elementSignature: "(xx)", session.segments.map { .structure([.int64($0.start), .int64($0.end ?? 0)]) }),
                "device": .string(device), "overlaps": .array(elementSignature: "t", []),
            ])
        }
    }
}

private func syncMergeDue(_ data: gpointer?) -> gboolean {
    Unmanaged<AgentService>.fromOpaque(data!).takeUnretainedValue().stepNow()
    return 0  // G_SOURCE_REMOVE
}

private func syncFlushDue(_ data: gpointer?) -> gboolean {
    Unmanaged<AgentService>.fromOpaque(data!).takeUnretainedValue().flushLog()
    return 0
}

private func syncRecheckDue(_ data: gpointer?) -> gboolean {
    Unmanaged<AgentService>.fromOpaque(data!).takeUnretainedValue().recheck()
    return 0
}
