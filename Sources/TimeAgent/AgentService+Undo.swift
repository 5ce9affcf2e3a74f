import DBusKit
import TimeCore

/// Undo, redo and the history on the bus, and the Stop notification's Undo: a D-Bus call and a
/// notification action reach the same `Tracker` functions.
extension AgentService {
    var undoMethods: [Method] {
        [
            changing("Undo", [], [Argument("description", "s")],
                     "Puts the data back as it was before the newest step not yet undone; returns what was undone.") { _ in
                [.string(try self.tracker.undo())]
            },
            changing("Redo", [], [Argument("description", "s")],
                     "Re-applies the step undone most recently; returns what was redone.") { _ in
                [.string(try self.tracker.redo())]
            },
            reading("History", [Argument("count", "u")], [Argument("steps", "aa{sv}")],
                    "The newest steps first: id, time, description, undone.") { args in
                let count = Int(args.values[0].uint32Value ?? 0)
                return [.array(elementSignature: "a{sv}", try self.tracker.history(count: count).map { step in
                    .vardict(["id": .uint64(UInt64(step.id)), "time": .int64(step.time),
                              "description": .string(step.description), "undone": .bool(step.undone)])
                })]
            },
        ]
    }

    /// Stop, from any caller (the D-Bus method, StopAt with `end`, the timer notification, the
    /// reminder): completes the open session and offers to undo exactly that step for a short while.
    /// The offer is made after the caller's answer (`showStopNotice`, from `refreshAfterChange`,
    /// which every caller runs next): the step and the session it reads back are nothing a
    /// client waits for.
    @discardableResult
    func stopTimer(at end: Int64? = nil) throws -> SessionID {
        let id = try end.map { try tracker.stop(at: $0) } ?? tracker.stop()
        if notifier != nil { stopNoticeDue = id }
        return id
    }

    /// The Undo notification of the Stop just made, if one is due: it names the newest step of
    /// the history, which nothing can have replaced before the work after the answer runs.
    func showStopNotice() {
        guard let id = stopNoticeDue else { return }
        stopNoticeDue = nil
        guard let notifier else { return }
        let step: HistoryStep, session: WorkSession
        do {
            guard let newest = try tracker.undoableStep() else {
                Log.warning("no Undo notification for the Stop: the history holds no step to undo")
                return
            }
            step = newest
            session = try tracker.session(id: id)
        } catch {
            Log.warning("no Undo notification for the Stop: \(error)")
            return
        }
        stopNoticeStep = step.id
        let project = tracker.project(id: session.projectID)?.name ?? ""
        let active = session.activeSeconds(at: session.end ?? session.start)
        notifier.showUndoable(summary: "Stopped \(project) · \(Tracker.shortDuration(active))",
                              body: tracker.stoppedSentence(for: session) + ".")
    }

    /// The Stop notification's Undo: undoes that Stop only while it is still the newest step;
    /// otherwise nothing changes and a notification says why.
    func undoFromStopNotice() {
        guard let step = stopNoticeStep else { return }
        stopNoticeStep = nil
        do {
            let description = try tracker.undo(onlyStep: step)
            Log.info("undone from the notification: \(description)")
        } catch let error as TrackerError {
            Log.info("the notification's Undo changed nothing: \(error.message)")
            notifier?.showReport(summary: "Nothing was undone", body: error.message)
        } catch {
            Log.warning("the notification's Undo failed: \(error)")
        }
    }
}
