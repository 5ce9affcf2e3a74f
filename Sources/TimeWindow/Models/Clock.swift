import TimeClient

/// Durations and times as the window shows them (local time through the C library, which honours TZ).
public enum Shown {
    /// "1:23" (hours and minutes; hours not capped at 24).
    public static func hoursMinutes(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        return "\(s / 3600):\(LocalTime.pad(Int(s % 3600 / 60)))"
    }

    /// "1 h 23 min", "23 min": a duration in whole minutes as a screen reader says it.
    public static func spokenMinutes(_ seconds: Int64) -> String {
        let minutes = max(0, seconds) / 60
        return minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h \(minutes % 60) min"
    }

    /// "1:23:45", what a running timer shows.
    public static func hoursMinutesSeconds(_ seconds: Int64) -> String {
        let s = max(0, seconds)
        return "\(s / 3600):\(LocalTime.pad(Int(s % 3600 / 60))):\(LocalTime.pad(Int(s % 60)))"
    }

    /// A duration as the agent reads it (`1:30:15`), for `EditSession` and `AddSession`.
    public static func durationArgument(_ seconds: Int64) -> String { hoursMinutesSeconds(seconds) }

    /// "Wednesday 2 December 2026"; the day the window's Day view shows.
    public static func dayTitle(_ dayStart: Int64, today: Int64) -> String {
        let f = LocalTime.fields(dayStart)
        let weekday = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][f.weekday - 1]
        let month = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                     "October", "November", "December"][f.month - 1]
        let name = "\(weekday) \(f.day) \(month) \(f.year)"
        if dayStart == LocalTime.startOfDay(today) { return "Today, " + name }
        if dayStart == LocalTime.startOfDay(today, offset: -1) { return "Yesterday, " + name }
        return name
    }
}
