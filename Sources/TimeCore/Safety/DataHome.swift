import Glibc

/// What happened to the store at this start, for `StorageState` and `StorageMessage`.
public struct StorageStatus: Equatable, Sendable {
    public enum State: String, Sendable { case ok, restored, readOnly = "read-only" }
    public var state: State
    /// One sentence for a person; "" when all is well.
    public var message: String

    public static let ok = StorageStatus(state: .ok, message: "")

    public init(state: State, message: String) {
        self.state = state
        self.message = message
    }
}

/// The data folder opened safely, following the data-safety invariants:
/// lock, raw archive, open (or quarantine and restore from the newest valid snapshot, compared
/// record by record), and read-only with the original files untouched when nothing works.
public final class DataHome {
    public let directory: String
    public let tracker: Tracker
    public let status: StorageStatus
    public let keeper: SnapshotKeeper?
    /// Problems that did not stop the start (a baseline snapshot that could not be written yet).
    public private(set) var warnings: [String] = []
    private let lock: InstanceLock

    public var storePath: String { directory + "/time.sqlite" }
    public static func snapshotsFolder(_ directory: String) -> String { directory + "/snapshots" }
    public static func archivesFolder(_ directory: String) -> String { directory + "/archives" }
    public static func quarantineFolder(_ directory: String) -> String { directory + "/quarantine" }
    public static let keptQuarantines = 5

    /// Why the agent cannot start at all (another one runs, or the folder cannot be made).
    public enum LaunchError: Error, CustomStringConvertible {
        case alreadyRunning(String)
        case folder(String)
        public var description: String {
            switch self {
            case .alreadyRunning(let m): m
            case .folder(let m): m
            }
        }
    }

    public init(directory: String, clock: Clock = SystemClock()) throws(LaunchError) {
        self.directory = directory
        // Everything written from here on (SQLite creates its files and sidecars itself) is private.
        umask(0o077)
        do {
            try Files.makePrivateDirectory(directory)
            lock = try InstanceLock(path: directory + "/agent.lock")
        } catch let error as InstanceLock.AlreadyLocked {
            throw .alreadyRunning(error.description)
        } catch {
            throw .folder("The data folder \(directory) cannot be used (\(error)); check that it is writable, or choose another with --data-dir or TIME_TRACKER_DATA_DIR.")
        }
        let store = directory + "/time.sqlite"

        // 1. The raw archive, before any SQLite connection exists.
        let archive: String?
        do {
            archive = try RawArchiver.archive(store: store, into: DataHome.archivesFolder(directory))
        } catch {
            let reason = "The store could not be backed up before opening it (\(error)), so editing is locked to keep it safe. Free some disk space and restart time-agent."
            (tracker, status, keeper) = DataHome.readOnly(store: store, snapshots: nil, reason: reason, clock: clock, seeWAL: true)
            return
        }

        let keeper: SnapshotKeeper
        do {
            keeper = try SnapshotKeeper(directory: DataHome.snapshotsFolder(directory), clock: clock)
        } catch {
            let reason = "The snapshot folder cannot be used (\(error)), so no change could be saved safely; editing is locked. Check the permissions of \(directory) and restart time-agent."
            (tracker, status, self.keeper) = DataHome.readOnly(store: store, snapshots: nil, reason: reason, clock: clock)
            return
        }
        self.keeper = keeper

        // 2. Open the store as it is.
        var failure: String
        switch Files.kind(store) {
        case .missing where keeper.entries.isEmpty:
            failure = ""
            do {
                let tracker = try DataHome.openTracker(Store(path: store, create: true), keeper: keeper, clock: clock, warnings: &warnings)
                self.tracker = tracker
                status = .ok
                return
            } catch {
                failure = "a new store could not be created (\(error))"
            }
        case .missing:
            failure = "the store file is missing"
        case .regular:
            do {
                let tracker = try DataHome.openTracker(Store(path: store, create: false), keeper: keeper, clock: clock, warnings: &warnings)
                self.tracker = tracker
                status = .ok
                return
            } catch StoreOpenError.newerSchema(let version) {
                if let archive { RawArchiver.putBack(archive: archive, store: store) }
                let reason = "The store was written by a newer version of Time (schema \(version)); this version will not change it, so editing is locked. Install the newer Time again."
                (tracker, status, _) = DataHome.readOnly(store: store, snapshots: nil, reason: reason, clock: clock)
                return
            } catch {
                failure = "\(error)"
            }
        case .directory, .other:
            failure = "the store path is not a regular file"
        }

        // 3. Recovery: the newest snapshot that restores and compares equal.
        if let archive { RawArchiver.putBack(archive: archive, store: store) }
        var tried: [String] = []
        for entry in keeper.recoverable.reversed() {
            let state: DataState
            do {
                state = try keeper.state(of: entry)
            } catch SnapshotFormat.Failure.newerVersion(let version) {
                let reason = "The store could not be opened (\(failure)) and the newest snapshot was written by a newer version of Time (format \(version)); nothing was changed and editing is locked. Install the newer Time again."
                (tracker, status, _) = DataHome.readOnly(store: store, snapshots: nil, reason: reason, clock: clock)
                return
            } catch {
                tried.append("\(Files.baseName(entry.path)): \(error)")
                continue
            }
            do {
                let quarantined = try DataHome.restore(state, hash: entry.stateHash, store: store, directory: directory)
                let tracker = try DataHome.openTracker(Store(path: store, create: false), keeper: keeper, clock: clock, warnings: &warnings)
                self.tracker = tracker
                let when = LocalTime.date(of: entry.createdAt(default: clock.now()))
                status = StorageStatus(state: .restored, message:
                    "The store could not be opened (\(failure)); it was moved to \(quarantined) and your data was restored from the snapshot of \(when) \(LocalTime.clock(entry.createdAt(default: clock.now()))) (\(plural(state.sessions.count, "session")), \(plural(state.projects.count, "project"))). Check your latest entries.")
                return
            } catch {
                tried.append("\(Files.baseName(entry.path)): \(error)")
                if let archive { RawArchiver.putBack(archive: archive, store: store) }
            }
        }

        // 4. Nothing could be restored: keep every original file and lock editing.
        let detail = tried.isEmpty ? "no snapshot exists" : "no snapshot could be restored: " + tried.prefix(3).joined(separator: "; ")
        let reason = "The store could not be opened (\(failure)) and \(detail). The files in \(directory) were left untouched and editing is locked; copy that folder somewhere safe before trying anything else."
        (tracker, status, _) = DataHome.readOnly(store: store, snapshots: keeper, reason: reason, clock: clock)
    }

    private static func openTracker(_ store: @autoclosure () throws -> Store, keeper: SnapshotKeeper, clock: Clock,
                                    warnings: inout [String]) throws -> Tracker {
        let opened = try store()
        if let rolled = try keeper.rollForward(opened) { warnings.append(rolled) }
        let tracker = try Tracker(store: opened, clock: clock)
        keeper.attach(to: tracker.store)
        tracker.recorder = keeper
        if !keeper.isAttached {
            // A new or migrated store, or lost snapshots: record the state as it is now.
            do { try tracker.recordCurrentState() } catch { warnings.append("The first snapshot could not be written yet (\(error)); the next change will try again.") }
        }
        return tracker
    }

    /// Restores `state` into a fresh store beside the damaged one, compares it, then moves the
    /// damaged files to quarantine and the restored store into place. Returns the quarantine folder.
    private static func restore(_ state: DataState, hash: String, store: String, directory: String) throws -> String {
        let staging = directory + "/time.sqlite.restoring"
        for suffix in RawArchiver.sidecarSuffixes { Files.remove(staging + suffix) }
        do {
            let fresh = try Store(path: staging, create: true)
            try SnapshotKeeper.restore(state, into: fresh, stateHash: hash)
            try fresh.checkpoint()
        }
        for suffix in ["-wal", "-shm", "-journal"] { Files.remove(staging + suffix) }

        let quarantineRoot = quarantineFolder(directory)
        try Files.makePrivateDirectory(quarantineRoot)
        let existing = Files.list(quarantineRoot).filter { $0.hasPrefix("store-") }
        let sequence = (existing.last.flatMap { Int($0.split(separator: "-")[1]) } ?? 0) + 1
        let quarantine = quarantineRoot + "/store-\(pad(sequence, 6))"
        try Files.makePrivateDirectory(quarantine)
        for suffix in RawArchiver.sidecarSuffixes where Files.exists(store + suffix) {
            try Files.move(store + suffix, to: quarantine + "/" + Files.baseName(store) + suffix)
        }
        try Files.syncDirectory(quarantine)
        try Files.move(staging, to: store)
        try Files.syncDirectory(directory)
        for old in Files.list(quarantineRoot).filter({ $0.hasPrefix("store-") }).dropLast(keptQuarantines) {
            Files.remove(quarantineRoot + "/" + old)
        }
        return quarantine
    }

    /// A tracker that refuses every change: over the untouched store opened immutably when it
    /// can be read, else over the newest readable snapshot held in memory, else empty.
    /// `seeWAL`: the store itself is sound (only its backup failed), so read its WAL too.
    private static func readOnly(store: String, snapshots: SnapshotKeeper?, reason: String, clock: Clock, seeWAL: Bool = false)
        -> (Tracker, StorageStatus, SnapshotKeeper?) {
        let status = StorageStatus(state: .readOnly, message: reason)
        if Files.kind(store) == .regular, let original = try? Store(readOnlyPath: store, immutable: !seeWAL),
           let tracker = try? Tracker(store: original, clock: clock, readOnlyReason: reason) {
            return (tracker, status, nil)
        }
        let memory = try! Store(path: ":memory:", create: true)
        for entry in snapshots?.entries.reversed() ?? [] {
            if let state = try? SnapshotKeeper.state(at: entry.path), (try? SnapshotKeeper.restore(state, into: memory, stateHash: nil)) != nil {
                break
            }
        }
        return (try! Tracker(store: memory, clock: clock, readOnlyReason: reason), status, nil)
    }
}

extension SnapshotKeeper.Entry {
    /// When the snapshot was written, from its header.
    func createdAt(default fallback: Int64) -> Int64 {
        (try? SnapshotFormat.read(SnapshotSlots.snapshotBytes(at: path)))?.createdAt ?? fallback
    }
}

extension Tracker {
    /// Records the current state as a snapshot without changing anything.
    public func recordCurrentState() throws { try change {} }
}
