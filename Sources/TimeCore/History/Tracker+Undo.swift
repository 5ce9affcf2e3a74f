/// Undo, redo and the history (contract section "Undo and history"). Undo and redo go through
/// the change gate like any change: nothing is acknowledged before its verified snapshot.
extension Tracker {
    /// Newest first, at most `count` steps.
    public func history(count: Int) throws -> [HistoryStep] {
        try history.steps(limit: min(count, UndoHistory.kept))
    }

    /// The step `Undo` would take back; nil when there is none.
    public func undoableStep() throws -> HistoryStep? { try history.newestDone() }

    /// What `Undo` would return (the `CanUndo` property); "" when nothing is left to undo.
    public func canUndo() throws -> String { try undoableStep()?.description ?? "" }

    /// Puts the data back as it was before the newest step not yet undone. With `onlyStep`, undoes
    /// that step only while it is still the newest (a notification's Undo); otherwise nothing
    /// changes and the error says why. Returns what was undone.
    @discardableResult
    public func undo(onlyStep expected: Int64? = nil) throws -> String {
        guard let step = try history.newestDone() else {
            throw TrackerError.nothingToUndo(expected == nil
                ? "There is nothing to undo: the history is empty or every step is undone already; see it with History (timectl history)."
                : "That change was undone already; nothing was changed.")
        }
        if let expected, step.id != expected {
            let reason = step.id > expected
                ? "newer changes were made since (the newest is \"\(step.description)\"); undo them first with timectl undo"
                : "it was undone already"
            throw TrackerError.nothingToUndo("That change can no longer be undone here: \(reason). Nothing was changed.")
        }
        try change(recordingStep: false) {
            try history.apply(step, undo: true)
            try reload()
        }
        return step.description
    }

    /// Re-applies the step undone most recently. Returns what was redone.
    @discardableResult
    public func redo() throws -> String {
        guard let step = try history.oldestUndone() else {
            throw TrackerError.nothingToRedo("There is nothing to redo: nothing was undone since the last change.")
        }
        try change(recordingStep: false) {
            try history.apply(step, undo: false)
            try reload()
        }
        return step.description
    }

    /// Gives the sentence for the change being made (call inside a `change` body), e.g.
    /// "Kept 42 min away in Writing" or "Imported 1,200 sessions from Hamster"; without it the
    /// step is described from the rows it changed. Nothing else is needed to make a change undoable.
    func describeStep(_ sentence: String) {
        history.givenDescription = { sentence }
    }

    /// As `describeStep`, the sentence made only when the step is written: for a change the gate
    /// commits while its slot goes to the disk, that is work the flush hides rather than work
    /// before it (a Stop's sentence, its clock time and duration, is about 7 µs). `sentence` may
    /// read only what the change no longer changes (the values it captured, the projects' names).
    func describeStepWhenWritten(_ sentence: @escaping () -> String) {
        history.givenDescription = sentence
    }

    /// Names the step of an update to one session's row as its changeset would (StepDescription),
    /// from the session before and after, without reading it back. A row left as it was (its
    /// segments alone changed) is left for the changeset to name.
    func describeEdit(of updated: WorkSession, from original: WorkSession) {
        let rowChanged = updated.projectID != original.projectID || updated.start != original.start
            || updated.end != original.end || updated.unrecordedSeconds != original.unrecordedSeconds
        guard rowChanged || updated.note != original.note else { return }
        describeStepWhenWritten { self.stepDescription.editedSentence(updated, noteOnly: !rowChanged) }
    }

    /// Names the step of a start (`stopped`: the session a switch completed) as its changeset would.
    func describeStart(of project: ProjectID, at time: Int64, stopping stopped: WorkSession?) {
        describeStepWhenWritten {
            stopped.map { self.stepDescription.stoppedSentence($0, thenStarted: project) }
                ?? self.stepDescription.startedSentence(project, at: time)
        }
    }

    var stepDescription: StepDescription {
        StepDescription(store: store) { [unowned self] id in self.project(id: id)?.name ?? "project #\(id)" }
    }

    /// The sentence for a change, read from its changeset.
    func sentence(for changeset: Changeset) throws -> String {
        try stepDescription.sentence(for: changeset)
    }

    /// "Stopped Writing at 14:05 after 1:23" for a completed session (the Stop notification).
    public func stoppedSentence(for session: WorkSession) -> String {
        stepDescription.stoppedSentence(session)
    }

    /// `1:23`: hours and minutes of a duration, as the history writes them.
    public static func shortDuration(_ seconds: Int64) -> String { StepDescription.duration(seconds) }
}
