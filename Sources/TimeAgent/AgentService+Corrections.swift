import DBusKit
import TimeCore

/// The timer's methods with a time (contract: "Fixing what was forgotten"). Each is a `changing`
/// method, so the reply is followed by the one refresh every change gets (PropertiesChanged, the
/// reminder's timer, the timer notification, the away watch, the targets and the tray), and each
/// ends in the same `Tracker` function as timectl's `--at` and the window's dialog; `StopAt` goes
/// through `stopTimer` like `Stop`, so its notification offers the same Undo.
extension AgentService {
    var correctionMethods: [Method] {
        [
            changing("StartProjectAt", [Argument("project", "s"), Argument("start", "x"), Argument("options", "a{sv}")],
                     [Argument("session", "t")],
                     "As StartProject, as if called at start (Unix seconds, at most 24 hours ago). An open session of another project ends at start. Options: adjust (b): shorten the completed sessions it would overlap instead of answering Overlap.") { args in
                let options = try ChangeSet(args.dictionary(2), allowed: ["adjust": "b"], what: "StartProjectAt's options")
                return [.uint64(UInt64(try self.tracker.startProject(args.string(0), at: args.int64(1),
                                                                     adjust: options.bool("adjust") ?? false)))]
            },
            changing("PauseAt", [Argument("at", "x")], [],
                     "Pauses the running session as of at (not before its running stretch began); when paused already, the pause begins at at instead.") { args in
                try self.tracker.pause(at: args.int64(0)); return []
            },
            changing("ResumeAt", [Argument("at", "x")], [],
                     "Resumes the paused session as of at (not before the pause began); when running after a pause, the running stretch begins at at instead.") { args in
                try self.tracker.resume(at: args.int64(0)); return []
            },
            changing("StopAt", [Argument("end", "x")], [Argument("session", "t")],
                     "Completes the open session at end (not before it began): later segments are cut, one spanning end ends there.") { args in
                [.uint64(UInt64(try self.stopTimer(at: args.int64(0))))]
            },
        ]
    }

    /// Sessions' records for `ListSessions`, each with `overlaps`: the ids of the sessions it overlaps.
    func sessionRecords(_ sessions: [WorkSession]) throws -> [DBusValue] {
        let overlaps = try tracker.overlaps(of: sessions)
        return sessions.map { sessionDictionary($0, overlaps: overlaps[$0.id] ?? []) }
    }
}
