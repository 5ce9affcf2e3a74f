/// The step between "change computed" and "change acknowledged": it runs inside the store's
/// transaction, after the change was applied and before it is committed, and must make the
/// resulting state durable elsewhere (a verified snapshot) or throw, which rolls the change back.
public protocol ChangeRecorder: AnyObject {
    /// `meanwhile` is the transaction's work that the recorded state does not hold (the undo
    /// step): run exactly once, unless the record fails first, while the state's bytes are on
    /// their way to the disk and before the wait for them.
    func recordState(of store: Store, changedDays: Set<String>, meanwhile: () throws -> Void) throws
    /// The transaction committed: what was recorded is now the current state.
    func changeCommitted()
    /// The transaction was rolled back after `recordState` succeeded: forget what it recorded.
    func changeAbandoned()
    /// Work that may wait until the change has been acknowledged (removing old snapshots,
    /// preparing files for the next change). Runs at the latest before the next change.
    func tidyUp()
}
