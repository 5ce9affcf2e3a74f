/// The step between "change computed" and "change acknowledged": it runs inside the store's
/// transaction, after the change was applied and before it is committed, and must make the
/// resulting state durable elsewhere (a verified snapshot) or throw, which rolls the change back.
public protocol ChangeRecorder: AnyObject {
    /// May leave its durable write under way (the snapshot keeper's slot flush, on its own
    /// thread) until `stateRecorded`: the gate writes the undo step meanwhile, which reaches the
    /// disk only with the COMMIT.
    func recordState(of store: Store, changedDays: Set<String>) throws
    /// The write `recordState` left under way is durable and verified (or this throws), and the
    /// rows that name the recorded state are written. Then, and only then, the gate commits.
    func stateRecorded(in store: Store) throws
    /// Writes rows of the tracked tables itself in `recordState` (sync's fresh global ids): the
    /// undo step's changeset must then be taken before, or it would hold them.
    var writesTrackedRows: Bool { get }
    /// The transaction committed: what was recorded is now the current state.
    func changeCommitted()
    /// The transaction was rolled back after `recordState` succeeded: forget what it recorded.
    func changeAbandoned()
    /// Work that may wait until the change has been acknowledged (removing old snapshots,
    /// preparing files for the next change). Runs at the latest before the next change.
    func tidyUp()
}

public extension ChangeRecorder {
    func stateRecorded(in store: Store) throws {}
    var writesTrackedRows: Bool { false }
}
