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
}
