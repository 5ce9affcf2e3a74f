import TimeCore

/// The corrections of the timer (contract: "Fixing what was forgotten") as the crash workloads
/// make them, so that their write path is under the crash-state explorer: start at a time, pause
/// and resume at a time, an earlier start of the open session, stop at a time, a start that
/// shortens the session it overlaps (`adjust`), a switch at a time and an edit of the open
/// session's project and note. `project` and `other` name two existing projects; `now` is the
/// workload's start, and no session of this device ended after `now - 2 h` (none is overlapped
/// unless a step means it). Every step applies in this order; each is one acknowledged change.
func correctionSteps(_ tracker: Tracker, project: String, other: String, now: Int64) -> [() throws -> Void] {
    func openID() -> Int64 { tracker.currentSession?.id ?? 0 }
    return [
        { _ = try tracker.startProject(project, at: now - 7200) },
        { try tracker.pause(at: now - 6000) },
        { try tracker.resume(at: now - 5400) },
        { try tracker.editSession(id: openID(), changes: SessionChanges(start: now - 7500)) },
        { _ = try tracker.stop(at: now - 3600) },
        { _ = try tracker.startProject(project, at: now - 4000, adjust: true) },
        { _ = try tracker.startProject(other, at: now - 1800) },
        { try tracker.editSession(id: openID(), changes: SessionChanges(projectID: tracker.resolveProject(project).id, note: "corrected")) },
        { _ = try tracker.stop(at: now - 60) },
    ]
}
