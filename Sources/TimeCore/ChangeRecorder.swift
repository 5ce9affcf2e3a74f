/// The step between "change computed" and "change acknowledged": it runs inside the store's
/// transaction, after the change was applied and before it is committed, and must make the
/// resulting state durable elsewhere (a verified snapshot) or throw, which rolls the change back.
public protocol ChangeRecorder: AnyObject {
    /// `meanwhile` is the transaction's work that the recorded state does not hold (the undo
    /// step): run exactly once, unless the record fails first, while the state's bytes are on
    /// their way to the disk and before the wait for them.
    func recordState(of store: Store, changedDays: Set<String>, meanwhile: () throws -> Void) throws
    /// The same, and `commitEarly` may be called once, after `meanwhile` and while the bytes are
    /// still on their way to the disk: it commits the transaction then, when the change can be
    /// taken back should the wait fail (true), or does nothing (false). A record that throws
    /// after an early commit leaves the change to be taken back by the caller
    /// (Tracker+TakeBack.swift).
    func recordState(of store: Store, changedDays: Set<String>, meanwhile: () throws -> Void,
                     commitEarly: () throws -> Bool) throws
    /// The transaction committed: what was recorded is now the current state.
    func changeCommitted()
    /// The transaction was rolled back after `recordState` succeeded: forget what it recorded.
    func changeAbandoned()
    /// Work that may wait until the change has been acknowledged (removing old snapshots,
    /// preparing files for the next change). Runs at the latest before the next change.
    func tidyUp()
}

extension ChangeRecorder {
    /// A recorder that does not wait for the disk commits nothing early.
    public func recordState(of store: Store, changedDays: Set<String>, meanwhile: () throws -> Void,
                            commitEarly: () throws -> Bool) throws {
        try recordState(of: store, changedDays: changedDays, meanwhile: meanwhile)
    }
}
