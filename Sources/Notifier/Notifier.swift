import CGLib
import CNotify
import Glibc

/// The desktop notifications of Time, over libnotify.
///
/// All libnotify work runs on the notifier's own thread, with its own `GMainContext` and
/// `GMainLoop`: libnotify's calls block (up to 25 s on a hung server) and must never sit on the
/// caller's path. The public methods only record the latest desired state and wake the worker;
/// they never block. Action callbacks are marshalled back to `mainContext`.
///
/// libnotify is process-global: have at most one `Notifier` alive at a time.
public final class Notifier {
    private let worker: NotifierWorker

    /// - Parameters:
    ///   - appName: passed to `notify_init`.
    ///   - desktopEntry: the `desktop-entry` hint, e.g. "io.github.timetracker.Time".
    ///   - appIcon: the icon name sent as `app_icon` ("" = none).
    ///   - mainContext: the `GMainContext*` on which `onAction` runs; nil = the global default.
    public init(appName: String, desktopEntry: String = "io.github.timetracker.Time", appIcon: String = "",
                mainContext: OpaquePointer?, onAction: @escaping (NotifierAction) -> Void) {
        worker = NotifierWorker(appName: appName, desktopEntry: desktopEntry, appIcon: appIcon,
                                mainContext: mainContext, onAction: onAction)
        worker.start()
    }

    deinit { worker.shutdown(waitingAtMost: 2) }

    /// Creates the timer notification, or updates it in place (same id).
    public func showTimer(_ n: TimerNotification) { worker.post(timer: .show(n)) }
    /// Closes the timer notification (session stopped).
    public func closeTimer() { worker.post(timer: .close) }
    /// A reminder with the actions Stop and Keep going; replaces the previous reminder.
    public func showReminder(summary: String, body: String) {
        worker.post(oneOff: .reminder(summary: summary, body: body, untracked: nil))
    }
    /// The not-tracking reminder, in the reminder's place: `Continue <continueLabel>` (when there
    /// is a last project) and `Start…`; closed with `closeReminder`.
    public func showUntrackedReminder(summary: String, body: String, continueLabel: String) {
        worker.post(oneOff: .reminder(summary: summary, body: body, untracked: continueLabel))
    }
    /// A short-lived notification with an `Undo` action (`NotifierAction.undo`); replaces the
    /// previous one, which can then no longer be answered.
    public func showUndoable(summary: String, body: String) {
        worker.post(oneOff: .undoable(summary: summary, body: body))
    }
    /// A one-off notification, e.g. the weekly report; `imagePath` (a PNG) is attached as the
    /// `image-path` hint where the server shows images (icon-static, icon-multi or body-images).
    public func showReport(summary: String, body: String, imagePath: String? = nil, category: String = NotifierText.reportCategory) {
        worker.post(oneOff: .report(summary: summary, body: body, imagePath: imagePath, category: category))
    }
    /// Closes our notifications, stops the worker thread and joins it. Blocks (at most as long
    /// as a pending libnotify call). Idempotent; also done on deinit.
    /// Closes the reminder, if one is shown (its session was paused or stopped).
    public func closeReminder() { worker.post(oneOff: .closeReminder) }

    /// The return notification of an away span, with Keep, Discard and `stopLabel`; replaces
    /// the previous one.
    public func showAway(id: Int64, summary: String, body: String, stopLabel: String) {
        worker.post(oneOff: .away(id: id, summary: summary, body: body, stopLabel: stopLabel))
    }
    /// The end of a focus phase, with what comes next as actions; replaces the previous one.
    public func showPhaseEnd(summary: String, body: String, answers: [FocusAnswer]) {
        worker.post(oneOff: .phaseEnd(summary: summary, body: body, answers: answers))
    }
    /// Closes the return notification (its span was answered elsewhere).
    public func closeAway() { worker.post(oneOff: .closeAway) }

    /// Stops the worker thread. A libnotify call can block for 25 s on a hung server, so this
    /// waits at most `seconds` and then leaves the thread behind (the process is ending anyway).
    /// Returns true when the thread finished.
    @discardableResult
    public func shutdown(waitingAtMost seconds: Double = 2) -> Bool { worker.shutdown(waitingAtMost: seconds) }
}
