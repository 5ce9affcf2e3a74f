import CGLib
import DBusKit
import TimeCore

/// The not-tracking reminder: after `UntrackedReminderMinutes` at the desk with no session
/// open, one notification says so, with `Continue <last project>` and `Start…`; again after as
/// many minutes more. The desk is what Presence says: never while away (idle, locked,
/// suspended), and the minutes count again from the return, from the moment the last session
/// closed, or from the agent's start. One timer for the moment it is due; nothing ticks.
struct UntrackedWatch {
    var source: UInt32 = 0
    /// When the person was last seen at the desk with nothing open since; 0 while that is not so.
    var quietSince: Int64 = 0
    var nextDue: Int64 = 0
    var minutes: UInt32 = 0
    var shown = false
}

extension AgentService {
    /// After every change and every presence event.
    func updateUntracked(_ status: TimerStatus?) {
        if untracked.source != 0 { g_source_remove(untracked.source); untracked.source = 0 }
        let minutes = tracker.planSettings.untrackedReminderMinutes
        let now = tracker.clock.now()
        let tracking = status?.session != nil
        guard minutes > 0, !tracking, away.presence?.personIsAway != true, tracker.readOnlyReason == nil else {
            if untracked.shown {
                notifier?.closeReminder()
                untracked.shown = false
            }
            untracked.quietSince = 0
            return
        }
        let period = Int64(minutes) * minuteLength
        if untracked.quietSince == 0 || untracked.minutes != minutes {
            untracked.quietSince = now
            untracked.nextDue = now + period
            untracked.minutes = minutes
        }
        let delay = UInt32(clamping: max(0, untracked.nextDue - now) * 1000)
        untracked.source = g_timeout_add_full(G_PRIORITY_DEFAULT, delay, untrackedDue, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    fileprivate func untrackedReminderDue() {
        untracked.source = 0
        let now = tracker.clock.now()
        let status = try? tracker.status()
        if untracked.quietSince != 0, status?.session == nil, away.presence?.personIsAway != true {
            let quiet = (now - untracked.quietSince) * 60 / minuteLength
            let last = status?.lastProjectName ?? ""
            notifier?.showUntrackedReminder(summary: "Not tracking",
                                            body: "You have been at your desk for \(ReminderSchedule.spoken(quiet)) with no timer running.",
                                            continueLabel: last.isEmpty ? "" : "Continue \(last)")
            untracked.shown = notifier != nil
            untracked.nextDue = now + Int64(untracked.minutes) * minuteLength
            Log.info("not-tracking reminder after \(ReminderSchedule.spoken(quiet))")
        }
        updateUntracked(status)
    }

    /// `Continue <last project>` (the tray's entry and the notification's action): starts the last
    /// project from idle; nothing when a session is open by then.
    func continueLastProject() throws {
        guard tracker.currentSession == nil else { return }
        _ = try tracker.toggle()
    }

    /// `Start…`: the window where it is installed, else the tray menu's Start list.
    func openStartChoice(activationToken: String = "") {
        window.recheck()
        if window.isAvailable { return openWindow(activationToken: activationToken) }
        tray?.openStartMenu()
    }
}

private func untrackedDue(_ data: UnsafeMutableRawPointer?) -> gboolean {
    Unmanaged<AgentService>.fromOpaque(data!).takeUnretainedValue().untrackedReminderDue()
    return 0 // G_SOURCE_REMOVE: the next one is set after it
}
