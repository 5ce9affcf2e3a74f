import DBusCore
import TimeClient

/// The focus timer in the Now view: the phase with a bar of what is left, and its buttons.
public struct FocusShown: Equatable {
    /// `Focus · 12 min left`, `Break · 3 min left`, `Focus paused`, `The break waits`, or "" when off.
    public var text: String
    /// What is left of the phase, 0…1 (its setting's length is the whole bar).
    public var left: Double
    public var showsBar: Bool
    public var showsStartFocus: Bool
    /// Skip while a phase runs; `Start break` / `Start focus` while one waits.
    public var skipLabel: String?
    public var showsExtend: Bool
    public var showsStopFocus: Bool
    /// The bar moves while a phase counts down (a break too, when the session is paused).
    public var ticks: Bool

    public init(properties p: AgentProperties, now: Int64) {
        let phase = p.focusState
        let secondsLeft = max(0, p.focusEnds - now)
        let minutes = (secondsLeft + 59) / 60
        let pausedFocus = phase == "focus" && p.state == "paused"
        switch phase {
        case "focus": text = pausedFocus ? "Focus paused with the session" : "Focus · \(minutes) min left"
        case "break": text = "Break · \(minutes) min left"
        case "long-break": text = "Long break · \(minutes) min left"
        case "waiting": text = "The next phase waits"
        default: text = ""
        }
        let whole = p.focusPhaseSeconds
        left = whole > 0 ? min(1, Double(secondsLeft) / Double(whole)) : 0
        showsBar = whole > 0 && !pausedFocus
        showsStartFocus = phase == "off" && (p.state != "idle" || !p.lastProject.isEmpty)
        skipLabel = phase == "off" ? nil : (phase == "waiting" ? "Start next phase" : "Skip")
        showsExtend = phase != "off" && phase != "waiting"
        showsStopFocus = phase != "off"
        ticks = showsBar
    }

    /// The same phase and buttons, only the time left moved.
    public func sameExceptTime(as other: FocusShown) -> Bool {
        var a = self, b = other
        (a.text, a.left, b.text, b.left) = ("", 0, "", 0)
        return a == b
    }

    // MARK: What each button asks of the agent

    public static let startFocus = AgentRequest("StartFocus", [.string("")])
    public static let skip = AgentRequest("SkipPhase")
    public static let extend = AgentRequest("ExtendPhase", [.uint32(5)])
    public static let stopFocus = AgentRequest("StopFocus")
}
