import TimeCore

/// When the next "you have been working for N hours" reminder is due: at each full
/// `ReminderMinutes` of the open session's active time. Pure arithmetic, so it is tested alone.
public enum ReminderSchedule {
    /// The instant of the next reminder, or nil when none is due (not running, reminders off).
    /// `minuteLength` is 60 except in tests that shorten minutes.
    public static func nextDue(for session: WorkSession?, minutes: UInt32, now: Int64, minuteLength: Int64 = 60) -> (at: Int64, activeSeconds: Int64)? {
        guard let session, session.isRunning, minutes > 0, let running = session.segments.last else { return nil }
        let period = Int64(minutes) * minuteLength
        let active = session.activeSeconds(at: now)
        let threshold = (active / period + 1) * period
        let due = running.start + (threshold - session.settledSeconds)
        return (due, threshold)
    }

    /// "1 h 00 min", "45 min": the active time a reminder reports.
    public static func spoken(_ seconds: Int64) -> String {
        let minutes = seconds / 60
        return minutes >= 60 ? "\(minutes / 60) h \(pad2(minutes % 60)) min" : "\(minutes) min"
    }

    private static func pad2(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
}
