import PathTrace

/// A change that committed while its snapshot's slot was still on its way to the disk, and whose
/// flush (or read-back, or the slot's path check) then failed: it was never acknowledged, so it
/// is taken back, exactly, in a transaction of its own. The change gate commits early only when
/// it can be (SnapshotKeeper.record: its undo step is all it wrote of the history and carries
/// the snapshot mark; its changeset holds every row it wrote; no other connection wrote since
/// the last change), so a refused change still leaves the store as it was. The one trace it may
/// leave is an id counter (store v18): an id the change gave is never given again.
///
/// Should the take-back fail too, the store holds a change that no snapshot made durable: editing
/// is locked until the agent starts again, and a start records the store's state anew before any
/// change (SnapshotKeeper+Attach.swift: a store ahead of every slot). A power cut before either
/// leaves the store ahead of every slot, which a start treats the same way: a change never
/// acknowledged may then stay, as after a cut between a commit and its reply; no acknowledged
/// change is lost.
extension Tracker {
    func takeBack(_ step: UndoHistory.FinishedStep, after failure: Error) throws {
        do {
            try store.begin()
            try history.takeBack(step)
            try store.commit()
            // (What was derived from the rows is forgotten by the gate's rollback after this.)
            PathTrace.mark("gate: taken back")
        } catch {
            store.rollback()
            committedChanges &+= 1
            let reason = """
                A change was saved in the store, but the disk did not confirm its snapshot (\(failure)), \
                and it could not be taken back (\(error)). Editing is locked so that nothing more is put at risk: \
                check the disk (free space, `journalctl -k` for I/O errors), then restart Time \
                (systemctl --user restart time-agent); its start saves the store's state again.
                """
            readOnlyReason = reason
            history.abandonStep()
            try? reload()
            throw TrackerError.storageFailure(reason)
        }
    }
}
