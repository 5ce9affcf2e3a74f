import DBusCore
import TimeClient

/// The small dialog that tells the timer what should have happened earlier (contract: "Fixing
/// what was forgotten"): when the open session really started ("Started at"), when it stopped
/// ("Stop at"), since when it was paused ("Paused since"), and a start (or switch) at a time
/// ("Start at"). It reads what was typed as timectl's `--at` does (TimeClient's MomentInput),
/// says what would happen before anything is sent, and, when the agent answers `Overlap`, offers
/// the shortening (`adjust`). The agent decides; this only checks what a person can fix at once.
public struct CorrectionForm: Equatable {
    public enum Kind: Equatable {
        /// The open session's start (`EditSession` start).
        case startedAt
        /// `StopAt`.
        case stopAt
        /// `PauseAt` (running: pause as of then; paused: the pause begins then instead).
        case pausedSince
        /// `StartProjectAt`: start (or switch to) a project at a time.
        case startAt
    }

    public let kind: Kind
    /// The open session as the agent's properties show it (idle: `state` is "idle").
    public let state: String
    public let openProject: String
    public let sessionID: UInt64
    public let sessionStart: Int64
    public let runningSince: Int64
    /// When the pause began, for a paused session (the end of its last stretch); 0 otherwise.
    public let pausedAt: Int64

    public init(kind: Kind, properties p: AgentProperties, pausedAt: Int64 = 0) {
        self.kind = kind
        state = p.state
        openProject = p.state == "idle" ? "" : p.project
        sessionID = p.sessionID
        sessionStart = p.sessionStart
        runningSince = p.runningSince
        self.pausedAt = pausedAt
    }

    /// The dialog's title; also the accessible name of the control that opens it.
    public var title: String {
        switch kind {
        case .startedAt: "Started at"
        case .stopAt: "Stop at"
        case .pausedSince: "Paused since"
        case .startAt: "Start at"
        }
    }

    /// The word on the button that sends it.
    public var action: String {
        switch kind {
        case .startedAt: "Save"
        case .stopAt: "Stop"
        case .pausedSince: "Pause"
        case .startAt: "Start"
        }
    }

    /// What the time field starts with: the time being corrected, where there is one.
    public var initialText: String {
        switch kind {
        case .startedAt: sessionStart > 0 ? LocalTime.clockString(sessionStart) : ""
        case .pausedSince: pausedAt > 0 ? LocalTime.clockString(pausedAt) : ""
        case .stopAt, .startAt: ""
        }
    }

    public static let hint = "9:00, 10 minutes ago, -10m"

    public struct Invalid: Error, Equatable {
        public var message: String
    }

    /// What would happen and the call that does it.
    public struct Plan: Equatable {
        /// "Writing will start at 09:00; Email's session ends 09:00."
        public var sentence: String
        /// The toast after it was done: "Writing stopped at 17:30."
        public var done: String
        public var request: AgentRequest
        /// The same call with `adjust` (after the agent answered `Overlap`); nil where it cannot help.
        public var adjusted: AgentRequest?
    }

    /// The plan for `typed` at `now`, starting `project` (`.startAt` only). Throws what to type
    /// instead; a time the agent would refuse at once (the future, over 24 hours back, before the
    /// session began) is said here already.
    public func plan(_ typed: String, now: Int64, project: (id: UInt64, name: String)? = nil) throws -> Plan {
        let text = typed.trimmed
        guard !text.isEmpty else { throw Invalid(message: "Type when it happened: \(Self.hint).") }
        guard let at = MomentInput.parse(text, now: now) else {
            throw Invalid(message: "'\(text)' is not a time. Type it as \(Self.hint).")
        }
        if at > now + 5 { throw Invalid(message: "\(LocalTime.clockString(at)) is in the future; give a time up to now.") }
        if at < now - 24 * 3600 {
            throw Invalid(message: "That is more than 24 hours ago; enter the past with Add time in the Day view.")
        }
        let clock = LocalTime.clockString(at)
        switch kind {
        case .startedAt:
            guard sessionID != 0 else { throw Invalid(message: "No session is open.") }
            let request = AgentRequest("EditSession", [.uint64(sessionID), .vardict(["start": .int64(at)])])
            return Plan(sentence: "\(openProject) will have started at \(clock) instead of \(LocalTime.clockString(sessionStart)).",
                        done: "\(openProject) started at \(clock).", request: request,
                        adjusted: AgentRequest("EditSession", [.uint64(sessionID), .vardict(["start": .int64(at), "adjust": .bool(true)])]))
        case .stopAt:
            guard sessionID != 0 else { throw Invalid(message: "No session is open.") }
            guard at >= sessionStart else {
                throw Invalid(message: "\(openProject) began at \(LocalTime.clockString(sessionStart)); it cannot stop before that.")
            }
            let cut = state == "running" ? max(0, now - at) : 0
            return Plan(sentence: "\(openProject) will stop at \(clock)" + (cut >= 60 ? "; the \(Self.spoken(cut)) after it are not counted." : "."),
                        done: "\(openProject) stopped at \(clock).", request: AgentRequest("StopAt", [.int64(at)]), adjusted: nil)
        case .pausedSince:
            guard sessionID != 0 else { throw Invalid(message: "No session is open.") }
            if state == "running" {
                guard at >= runningSince else {
                    throw Invalid(message: "\(openProject) has run since \(LocalTime.clockString(runningSince)); the pause cannot begin before that.")
                }
                let cut = max(0, now - at)
                return Plan(sentence: "\(openProject) will be paused since \(clock)" + (cut >= 60 ? "; the \(Self.spoken(cut)) since are not counted." : "."),
                            done: "\(openProject) paused since \(clock).", request: AgentRequest("PauseAt", [.int64(at)]), adjusted: nil)
            }
            return Plan(sentence: "\(openProject)'s pause will begin at \(clock)" + (pausedAt > 0 ? " instead of \(LocalTime.clockString(pausedAt))." : "."),
                        done: "\(openProject) paused since \(clock).", request: AgentRequest("PauseAt", [.int64(at)]), adjusted: nil)
        case .startAt:
            guard let project else { throw Invalid(message: "Choose the project to start.") }
            var sentence = "\(project.name) will start at \(clock)"
            if !openProject.isEmpty && openProject != project.name {
                guard at >= sessionStart else {
                    throw Invalid(message: "\(openProject) is open since \(LocalTime.clockString(sessionStart)); start \(project.name) from then on, or change \(openProject)'s start first.")
                }
                sentence += "; \(openProject)'s session ends \(clock)"
            }
            let reference = DBusValue.string("#\(project.id)")
            return Plan(sentence: sentence + ".", done: "\(project.name) started at \(clock).",
                        request: AgentRequest("StartProjectAt", [reference, .int64(at), .vardict([:])]),
                        adjusted: AgentRequest("StartProjectAt", [reference, .int64(at), .vardict(["adjust": .bool(true)])]))
        }
    }

    /// "40 min", "1 h 05 min".
    static func spoken(_ seconds: Int64) -> String {
        let minutes = max(0, seconds) / 60
        return minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h \(LocalTime.pad(Int(minutes % 60))) min"
    }

    /// After the agent answered `Overlap` with `message`: what the dialog says, and whether the
    /// shortening is offered (not when the agent says it never shortens that session).
    public static func overlapAnswer(_ message: String, plan: Plan) -> (text: String, offersShortening: Bool) {
        let offers = plan.adjusted != nil && !message.contains("never shortened")
        return (offers ? message + " Press “Shorten and \(plan.request.member == "EditSession" ? "save" : "start")” to end it there instead." : message,
                offers)
    }
}
