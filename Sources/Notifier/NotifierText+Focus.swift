/// The focus timer's phase-end notification: its answers (action keys and labels) and category.
public enum FocusAnswer: String, Equatable, Sendable {
    /// `Start break`, `+5 min`, `Skip break` after a focus phase; `Start focus`, `+5 min`,
    /// `Stop focus` after a break.
    case startBreak = "focus-start-break", moreTime = "focus-more", skipBreak = "focus-skip-break"
    case startFocus = "focus-start-focus", stopFocus = "focus-stop"

    public var label: String {
        switch self {
        case .startBreak: "Start break"
        case .moreTime: "+5 min"
        case .skipBreak: "Skip break"
        case .startFocus: "Start focus"
        case .stopFocus: "Stop focus"
        }
    }
}

extension NotifierText {
    public static let focusCategory = "x-time-tracker.focus"

    public static func focusActions(_ answers: [FocusAnswer], capabilities: Set<String>) -> [NotificationActionSpec] {
        guard capabilities.contains("actions") else { return [] }
        return answers.map { NotificationActionSpec(key: $0.rawValue, label: $0.label) }
    }
}
