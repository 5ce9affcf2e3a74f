import Glibc
import TextEscape

/// What the timer notification shows. Times are UTC Unix seconds.
public struct TimerNotification: Equatable, Sendable {
    public enum State: Equatable, Sendable { case running, paused }
    public var project: String
    public var category: String
    public var state: State
    /// Start of the current running segment, or of the pause.
    public var since: Int64
    /// Start of the open session.
    public var sessionStart: Int64
    public var note: String
    /// A line about the week, e.g. `week 31:20 of 40:00 at 09:12`; empty for none.
    public var week: String
    /// The focus timer's phase, e.g. `Focus until 10:25`; empty for none.
    public var focus = ""

    public init(project: String, category: String = "", state: State, since: Int64,
                sessionStart: Int64, note: String = "", week: String = "") {
        self.project = project; self.category = category; self.state = state
        self.since = since; self.sessionStart = sessionStart; self.note = note; self.week = week
    }
}

/// What the user chose on one of our notifications. Delivered on the main context.
public enum NotifierAction: Equatable, Sendable {
    case pause, resume, stop, reminderStop, reminderKeepGoing
    /// The timer notification's default action (a click on its body, or `Open Time`), with the
    /// activation token the server gave for it ("" when it gave none).
    case openDefault(activationToken: String)
    /// An answer on the return notification of away span `id`: keep, discard or stop.
    case away(id: Int64, choice: String)
    /// `Undo` on the notification shown by `showUndoable`.
    case undo
    /// `Continue <last project>` and `Start…` on the not-tracking reminder.
    case untrackedContinue, untrackedStart
    /// An answer on the focus timer's phase-end notification (NotifierText+Focus).
    case focus(FocusAnswer)
}

/// An action button: the D-Bus action key and its label.
public struct NotificationActionSpec: Equatable, Sendable {
    public var key: String
    public var label: String
}

/// The pure parts: text, escaping, action choice. No I/O, easy to test.
public enum NotifierText {
    public static let timerCategory = "x-time-tracker.timer"
    public static let reminderCategory = "x-time-tracker.reminder"
    public static let reportCategory = "x-time-tracker.report"
    public static let undoCategory = "x-time-tracker.undo"
    /// How long the notification with an Undo action stays (servers may shorten it).
    public static let undoTimeoutMilliseconds: Int32 = 15_000

    /// Escapes user text for a body that the server reads as markup (TextEscape.markup).
    public static func escapeMarkup(_ s: String) -> String { TextEscape.markup(s) }

    /// "09:12" in the local time zone (TZ honoured, via localtime_r).
    public static func localClock(_ unixSeconds: Int64) -> String {
        var t = time_t(unixSeconds)
        var tmv = tm()
        guard localtime_r(&t, &tmv) != nil else { return "??:??" }
        return twoDigits(Int(tmv.tm_hour)) + ":" + twoDigits(Int(tmv.tm_min))
    }

    private static func twoDigits(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }

    /// Plain text (summaries are never markup): "Writing · Work" or "Writing".
    public static func timerSummary(_ n: TimerNotification) -> String {
        n.category.isEmpty ? n.project : "\(n.project) · \(n.category)"
    }

    /// A body that does not go stale between updates: no ticking count, only clock times.
    public static func timerBody(_ n: TimerNotification, markup: Bool) -> String {
        var lines: [String] = []
        switch n.state {
        case .running: lines.append("Running since \(localClock(n.since))")
        case .paused: lines.append("Paused since \(localClock(n.since))")
        }
        if n.sessionStart != n.since {
            lines.append("Session started \(localClock(n.sessionStart))")
        }
        if !n.focus.isEmpty { lines.append(n.focus) }
        if !n.week.isEmpty { lines.append(n.week.prefix(1).uppercased() + n.week.dropFirst()) }
        if !n.note.isEmpty {
            lines.append(markup ? escapeMarkup(n.note) : n.note)
        }
        return lines.joined(separator: "\n")
    }

    /// User text for a body: escaped when the server reads markup.
    public static func bodyText(_ s: String, markup: Bool) -> String {
        markup ? escapeMarkup(s) : s
    }

    /// "Writing — 2 h 00 min active"
    public static func reminderSummary(project: String, activeSeconds: Int64) -> String {
        let minutes = max(0, activeSeconds) / 60
        return "\(project) — \(minutes / 60) h \(twoDigits(Int(minutes % 60))) min active"
    }

    /// The timer's actions; none without the `actions` capability.
    public static func timerActions(state: TimerNotification.State,
                                    capabilities: Set<String>) -> [NotificationActionSpec] {
        guard capabilities.contains("actions") else { return [] }
        let toggle = state == .running
            ? NotificationActionSpec(key: "pause", label: "Pause")
            : NotificationActionSpec(key: "resume", label: "Resume")
        return [NotificationActionSpec(key: "default", label: "Open Time"), toggle,
                NotificationActionSpec(key: "stop", label: "Stop")]
    }

    public static func reminderActions(capabilities: Set<String>) -> [NotificationActionSpec] {
        guard capabilities.contains("actions") else { return [] }
        return [NotificationActionSpec(key: "reminder-stop", label: "Stop"),
                NotificationActionSpec(key: "reminder-keep-going", label: "Keep going")]
    }

    /// `Continue <last project>` (when there is one) and `Start…`.
    public static func untrackedActions(continueLabel: String, capabilities: Set<String>) -> [NotificationActionSpec] {
        guard capabilities.contains("actions") else { return [] }
        let start = NotificationActionSpec(key: "untracked-start", label: "Start…")
        return continueLabel.isEmpty ? [start] : [NotificationActionSpec(key: "untracked-continue", label: continueLabel), start]
    }

    /// A weekly target reached.
    public static let targetCategory = "x-time-tracker.target"

    public static let awayCategory = "x-time-tracker.away"

    /// The return notification's answers: Keep, Discard, Stop at 14:05 (keys name the span).
    public static func awayActions(id: Int64, stopLabel: String, capabilities: Set<String>) -> [NotificationActionSpec] {
        guard capabilities.contains("actions") else { return [] }
        return [NotificationActionSpec(key: "away-keep-\(id)", label: "Keep"),
                NotificationActionSpec(key: "away-discard-\(id)", label: "Discard"),
                NotificationActionSpec(key: "away-stop-\(id)", label: stopLabel)]
    }

    public static func undoActions(capabilities: Set<String>) -> [NotificationActionSpec] {
        guard capabilities.contains("actions") else { return [] }
        return [NotificationActionSpec(key: "undo", label: "Undo")]
    }

    /// Maps an action key we sent back to what it means.
    public static func action(forKey key: String) -> NotifierAction? {
        let parts = key.split(separator: "-")
        if parts.count == 3, parts[0] == "away", let id = Int64(parts[2]), ["keep", "discard", "stop"].contains(parts[1]) {
            return .away(id: id, choice: String(parts[1]))
        }
        if let answer = FocusAnswer(rawValue: key) { return .focus(answer) }
        switch key {
        case "default": return .openDefault(activationToken: "")
        case "pause": return .pause
        case "resume": return .resume
        case "stop": return .stop
        case "reminder-stop": return .reminderStop
        case "reminder-keep-going": return .reminderKeepGoing
        case "undo": return .undo
        case "untracked-continue": return .untrackedContinue
        case "untracked-start": return .untrackedStart
        default: return nil
        }
    }
}
