import CGLib
import Notifier
import TimeCore

/// The week against its targets: `week 31:20 of 40:00` for the tray's title line and the timer
/// notification, and one notification when a weekly target (overall or a project's) is
/// reached, once a week, also across restarts. While a session runs, one timer is set for the
/// moment the next target will be reached; nothing ticks otherwise.
struct TargetWatch {
    var source: UInt32 = 0
}

extension AgentService {
    /// `week 31:20 of 40:00`, or "" without a weekly target.
    func weekProgress(week: Int64) -> String {
        let target = tracker.planSettings.weeklyTarget
        guard target > 0 else { return "" }
        return "week \(TrayLook.hoursMinutes(week)) of \(TrayLook.hoursMinutes(target))"
    }

    /// The timer notification's line: the week as it was when the state last changed (`at 09:12`
    /// while running), so the body never goes stale between changes.
    func timerWeekLine(_ status: TimerStatus) -> String {
        guard tracker.planSettings.weeklyTarget > 0, let week = try? tracker.todayAndWeekSeconds().week else { return "" }
        guard status.state == .running else { return weekProgress(week: week) }
        let now = tracker.clock.now(), since = status.runningSince
        let weekStart = (try? Week.parse("", now: now))?.start ?? since
        let atSince = week - (now - max(since, weekStart))
        return weekProgress(week: max(0, atSince)) + " at \(LocalTime.clock(max(since, weekStart)))"
    }

    /// After every change: announce what was reached, and set the timer for what will be.
    func updateTargets(_ status: TimerStatus?) {
        if targets.source != 0 { g_source_remove(targets.source); targets.source = 0 }
        // Without notifications (--no-notifications) nothing is announced, so nothing is noted either.
        guard notifier != nil else { return }
        let plans = tracker.planSettings
        let planned = tracker.projects().filter { !$0.archived && $0.weeklyTarget > 0 }
        guard plans.weeklyTarget > 0 || !planned.isEmpty, let report = try? tracker.weeklyReport(week: "") else { return }
        let name = report.week.isoName
        var announced = tracker.announcedTargets(inWeek: name)
        let before = announced
        let now = tracker.clock.now()
        var due: [Int64] = []
        let running = status?.state == .running ? status?.project?.id : nil
        if plans.weeklyTarget > 0 && !announced.contains("all") {
            if report.total >= plans.weeklyTarget {
                announced.insert("all")
                notifier?.showReport(summary: "Weekly target of \(TrayLook.hoursMinutes(plans.weeklyTarget)) reached",
                                     body: "\(TrayLook.hoursMinutes(report.total)) tracked in week \(name), your target is \(TrayLook.hoursMinutes(plans.weeklyTarget)).",
                                     category: NotifierText.targetCategory)
            } else if running != nil {
                due.append(now + plans.weeklyTarget - report.total)
            }
        }
        for project in planned where !announced.contains(String(project.id)) {
            let total = report.projects.first { $0.projectID == project.id }?.total ?? 0
            if total >= project.weeklyTarget {
                announced.insert(String(project.id))
                notifier?.showReport(summary: "\(project.name): weekly target of \(TrayLook.hoursMinutes(project.weeklyTarget)) reached",
                                     body: "\(TrayLook.hoursMinutes(total)) on \(project.name) in week \(name), its target is \(TrayLook.hoursMinutes(project.weeklyTarget)).",
                                     category: NotifierText.targetCategory)
            } else if running == project.id {
                due.append(now + project.weeklyTarget - total)
            }
        }
        if announced != before {
            Log.info("weekly target reached: \(announced.subtracting(before).sorted().joined(separator: ", ")) in \(name)")
            do { try tracker.noteAnnouncedTargets(announced, inWeek: name) } catch { Log.warning("could not note the target as announced: \(error)") }
        }
        guard let next = due.min(), next < report.week.end else { return }
        targets.source = g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, UInt32(clamping: max(1, next - now)), targetDue,
                                                    Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    fileprivate func targetTimerFired() {
        targets.source = 0
        updateTargets(try? tracker.status())
    }
}

private func targetDue(_ data: UnsafeMutableRawPointer?) -> gboolean {
    Unmanaged<AgentService>.fromOpaque(data!).takeUnretainedValue().targetTimerFired()
    return 0 // G_SOURCE_REMOVE: updateTargets sets the next one
}
