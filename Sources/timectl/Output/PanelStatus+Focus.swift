import TimeClient
import TimeJSON

/// The focus timer in a panel line: `Writing 1:23 ◔ 12 min` while a focus phase runs,
/// `Writing 1:23 (paused) · break 3 min` in a break, and the phase in the tooltip and the JSON.
extension PanelStatus {
    /// A phase counts down: focus (the session running) or a break.
    var focusTiming: Bool {
        agentRunning && focusEnds > 0 && ((focusState == "focus" && state == "running") || focusState == "break" || focusState == "long-break")
    }

    /// Whole minutes left of the running phase, rounded up (`◔ 12 min` until 11:00 left).
    func focusMinutesLeft(at now: Double) -> Int64 {
        Int64((max(0, Double(focusEnds) - now) / 60).rounded(.up))
    }

    /// Seconds until the minutes left change, while a phase counts down.
    func secondsToNextFocusMinute(at now: Double) -> Double? {
        guard focusTiming else { return nil }
        let left = max(0, Double(focusEnds) - now)
        let into = left - (left / 60).rounded(.down) * 60
        return into == 0 ? 60 : into
    }

    /// ` ◔ 12 min`, ` · break 3 min`, ` · focus waits`; "" without a cycle.
    func focusSuffix(now: Double) -> String {
        guard agentRunning else { return "" }
        switch focusState {
        case "focus": return state == "running" ? " ◔ \(focusMinutesLeft(at: now)) min" : " ◔ paused"
        case "break": return " · break \(focusMinutesLeft(at: now)) min"
        case "long-break": return " · long break \(focusMinutesLeft(at: now)) min"
        case "waiting": return " · next phase waits"
        default: return ""
        }
    }

    /// The tooltip's line: `Focus until 10:25`.
    var focusLine: String {
        switch focusState {
        case "focus": return "Focus until \(LocalTime.clockString(focusEnds))"
        case "break": return "Break until \(LocalTime.clockString(focusEnds))"
        case "long-break": return "Long break until \(LocalTime.clockString(focusEnds))"
        case "waiting": return "The next phase waits (timectl focus skip starts it)"
        default: return ""
        }
    }

    var focusJSON: [(String, JSON)] {
        [("focus", .string(agentRunning ? focusState : "off")), ("focus_ends", .int(focusEnds)), ("focus_count", .int(focusCount))]
    }
}
