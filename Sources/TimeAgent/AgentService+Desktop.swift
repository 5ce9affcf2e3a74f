import DBusKit
import TimeCore

/// What the desktop (tray menu, icon clicks) asks for, through the same functions as the D-Bus
/// methods and notification actions: the tracker's call, then the same refresh after it.
extension AgentService {
    /// Runs one change from the desktop; a refusal is logged (there is no caller to answer).
    func desktopCommand(_ what: String, _ body: () throws -> Void) {
        do {
            if let reason = tracker.readOnlyReason { throw TrackerError.readOnly(reason) }
            try body()
        } catch {
            Log.warning("\(what) from the tray refused: \(error)")
        }
        refreshAfterChange()
    }

    /// `ShowWeeklyReport` for the tray, with a refusal logged.
    func showWeeklyReportLogged(week: String) {
        do {
            try showWeeklyReport(week: week)
        } catch {
            Log.warning("the weekly report could not be shown: \(error)")
        }
    }

    /// Opens Time's window: the tray's `Open Time` and the timer notification's default action
    /// (the window itself, once running, is brought to the front the same way). A failure is
    /// logged with what to install: nobody waits for an answer.
    func openWindow(activationToken: String = "") {
        window.activate(activationToken: activationToken) { error in
            guard let error else { return Log.debug("asked \(WindowLauncher.applicationID) to show its window") }
            if error.name == BusError.serviceUnknown || error.name == BusError.nameHasNoOwner {
                Log.warning("cannot open Time's window: \(WindowLauncher.applicationID) is not installed (install the time-tracker package's window, or run time-tracker)")
            } else {
                Log.warning("cannot open Time's window: \(error)")
            }
        }
    }
}
