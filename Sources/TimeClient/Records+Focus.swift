/// The focus timer's properties as a client reads them (contract: "Focus and breaks").
extension AgentProperties {
    /// `off`, `focus`, `break`, `long-break` or `waiting`.
    public var focusState: String { values["FocusState"]?.stringValue ?? "off" }
    /// When the current phase ends; 0 when off or waiting.
    public var focusEnds: Int64 { values["FocusEnds"]?.integer ?? 0 }
    /// Focus phases completed today.
    public var focusCount: Int64 { values["FocusCount"]?.integer ?? 0 }

    /// The planned length of the current phase in seconds (its setting; an extended phase runs longer).
    public var focusPhaseSeconds: Int64 {
        let minutes: Int64
        switch focusState {
        case "focus": minutes = values["FocusMinutes"]?.integer ?? 25
        case "break": minutes = values["BreakMinutes"]?.integer ?? 5
        case "long-break": minutes = values["LongBreakMinutes"]?.integer ?? 15
        default: minutes = 0
        }
        return minutes * 60
    }
}
