import CGLib
import Notifier
import TimeCore

/// What the agent shows as notifications: the timer's, the reminder, the weekly report, and
/// what their buttons do.
extension AgentService {
    func updateTimerNotification(_ status: TimerStatus?) {
        guard let notifier = notifier else { return }
        if reminderShown && status?.state != .running {
            // A reminder is about running time: it goes when the timer pauses or stops.
            notifier.closeReminder()
            reminderShown = false
        }
        guard let status, let session = status.session, let project = status.project else {
            if shownTimer != nil { notifier.closeTimer(); shownTimer = nil }
            return
        }
        let since = session.isRunning ? status.runningSince : (session.segments.last?.end ?? session.start)
        var content = TimerNotification(project: project.name, category: status.categoryName,
                                        state: session.isRunning ? .running : .paused,
                                        since: since, sessionStart: session.start, note: session.note, week: timerWeekLine(status))
        content.focus = timerFocusLine()
        guard content != shownTimer else { return }
        shownTimer = content
        notifier.showTimer(content)
    }

    // MARK: Reminders

    func scheduleReminder() {
        if reminderSource != 0 { g_source_remove(reminderSource); reminderSource = 0 }
        let now = tracker.clock.now()
        guard let due = ReminderSchedule.nextDue(for: tracker.currentSession, minutes: tracker.reminderMinutes,
                                                 now: now, minuteLength: minuteLength) else { return }
        reminderActiveSeconds = due.activeSeconds
        let delay = UInt32(clamping: max(0, due.at - now) * 1000)
        reminderSource = g_timeout_add_full(G_PRIORITY_DEFAULT, delay, reminderFired,
                                            Unmanaged.passUnretained(self).toOpaque(), nil)
        Log.debug("next reminder in \(due.at - now) s")
    }

    fileprivate func reminderDue() {
        reminderSource = 0
        if let status = try? tracker.status(), status.state == .running, let project = status.project {
            let label = status.categoryName.isEmpty ? project.name : "\(project.name) · \(status.categoryName)"
            let active = ReminderSchedule.spoken(reminderActiveSeconds * 60 / minuteLength)
            notifier?.showReminder(summary: "\(label): \(active) active",
                                   body: "Still working on \(project.name)? The timer keeps running until you stop it.")
            reminderShown = notifier != nil
            Log.info("reminder: \(project.name), \(active) active")
        }
        scheduleReminder()
    }

    // MARK: Notification actions

    func perform(_ action: NotifierAction) {
        do {
            switch action {
            case .pause: try tracker.pause()
            case .resume: try tracker.resume()
            case .stop, .reminderStop: try stopTimer()
            case .undo: undoFromStopNotice()
            case .openDefault(let token): openWindow(activationToken: token)
            case .reminderKeepGoing: break
            case .away(let id, let choice): try resolveAway(id: id, choice: choice)
            case .untrackedContinue: try continueLastProject()
            case .untrackedStart: openStartChoice()
            case .focus(let answer): try answerFocus(answer)
            }
        } catch {
            Log.warning("notification action \(action) refused: \(error)")
        }
        refreshAfterChange()
    }

    /// `ShowWeeklyReport`: the week's totals as a notification with its chart (the tray's middle click too).
    func showWeeklyReport(week: String) throws {
        show(try tracker.weeklyReport(week: week))
    }

    func show(_ report: WeeklyReport) {
        guard let notifier else { return }
        notifier.showReport(summary: "Week \(report.week.isoName): \(WeeklyReport.clockDuration(report.total))",
                            body: report.notificationBody, imagePath: WeekPicture.writeForNotification(report))
    }
}

private func reminderFired(_ data: UnsafeMutableRawPointer?) -> gboolean {
    Unmanaged<AgentService>.fromOpaque(data!).takeUnretainedValue().reminderDue()
    return 0 // G_SOURCE_REMOVE: reminderDue schedules the next one itself
}

extension WeeklyReport {
    /// A short per-project list for a notification, where a wide table would not align.
    var notificationBody: String {
        guard !projects.isEmpty else { return "No time tracked from \(week.monday) to \(week.sunday)." }
        var lines = projects.prefix(12).map { "\($0.name): \(WeeklyReport.clockDuration($0.total))" }
        if projects.count > 12 { lines.append("… and \(projects.count - 12) more") }
        lines.append("Total: \(WeeklyReport.clockDuration(total)) (\(week.monday) to \(week.sunday))")
        return lines.joined(separator: "\n")
    }
}
