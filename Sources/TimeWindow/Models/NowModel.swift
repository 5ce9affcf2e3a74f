import DBusCore
import TimeClient

/// What the Now view shows for the agent's state at a moment: computed, never stored.
public struct NowModel: Equatable {
    public var state: String
    public var projectName: String
    public var projectColor: String
    public var category: String
    public var elapsed: String
    public var note: String
    public var sessionID: UInt64
    public var showsPause: Bool
    public var showsResume: Bool
    public var showsStop: Bool
    /// `Continue Writing` when idle with a last project; nil otherwise.
    public var continueLabel: String?
    public var showsStartPicker: Bool
    /// "Today 2:30 · This week 12:00 of 40:00".
    public var totals: String
    /// The away spans waiting for an answer, one line each.
    public var away: [AwayLine]
    /// The storage banner (`restored`, `read-only`), nil when all is well.
    public var storageBanner: String?
    /// Whether controls that change data work (not read-only, agent connected).
    public var canChange: Bool
    /// The elapsed label moves (running): the view ticks once a second while it is visible.
    public var ticks: Bool
    /// "Started at 09:12", a button that corrects the start (accessible name "Started at"); nil when idle.
    public var startedAt: String?
    /// "09:12" (the open session's start), read after the button's name; "" when idle.
    public var startedTime: String
    /// "Paused since…" and "Stop at…" (an open session); "Start at…" is always there.
    public var showsCorrections: Bool
    /// The focus timer's phase, its bar and buttons (NowModel+Focus).
    public var focus: FocusShown

    public struct AwayLine: Equatable {
        public var id: UInt64
        public var text: String
        public var stopLabel: String
    }

    /// `status` is `GetStatus`' answer (today's and this week's totals) as it was at `statusTime`;
    /// `connected` whether the agent answers.
    public init(properties p: AgentProperties, status: [String: DBusValue], statusTime: Int64, now: Int64, connected: Bool) {
        state = p.state
        let open = state != "idle"
        projectName = open ? p.project : ""
        projectColor = open ? p.projectColor : ""
        category = open ? p.category : ""
        elapsed = Shown.hoursMinutesSeconds(open ? p.elapsed(at: now) : 0)
        note = p.note
        sessionID = p.sessionID
        showsPause = state == "running"
        showsResume = state == "paused"
        showsStop = open
        continueLabel = !open && !p.lastProject.isEmpty ? "Continue \(p.lastProject)" : nil
        showsStartPicker = !open
        // The totals move with a running timer, as the elapsed time does.
        let liveExtra = state == "running" ? max(0, now - statusTime) : 0
        let today = (status["today"]?.integer ?? 0) + liveExtra
        let week = (status["week"]?.integer ?? 0) + liveExtra
        let target = status["week_target"]?.integer ?? p.weeklyTarget
        totals = "Today \(Shown.hoursMinutes(today)) · This week \(Shown.hoursMinutes(week))"
            + (target > 0 ? " of \(Shown.hoursMinutes(target))" : "")
        away = p.pendingAway.map { span in
            let from = LocalTime.clockString(span.start)
            let to = span.end == 0 ? "now" : LocalTime.clockString(span.end)
            let minutes = ((span.end == 0 ? now : span.end) - span.start) / 60
            return AwayLine(id: span.id, text: "Away \(minutes) min: \(span.project) kept running \(from)–\(to) (\(Self.reason(span.reason)))",
                            stopLabel: "Stop at \(from)")
        }
        switch p.storageState {
        case "read-only": storageBanner = p.storageMessage.isEmpty ? "Editing is locked: the store could not be opened." : p.storageMessage
        case "restored": storageBanner = p.storageMessage.isEmpty ? "The store was damaged and was restored from a snapshot." : p.storageMessage
        default: storageBanner = nil
        }
        canChange = connected && !p.isReadOnly
        startedTime = open && p.sessionStart > 0 ? LocalTime.clockString(p.sessionStart) : ""
        startedAt = startedTime.isEmpty ? nil : "Started at \(startedTime)"
        showsCorrections = open
        focus = FocusShown(properties: p, now: now)
        ticks = state == "running" || focus.ticks
    }

    /// Whether only what a tick moves (the elapsed time, the totals) differs from `other`.
    public func sameExceptTime(as other: NowModel) -> Bool {
        guard focus.sameExceptTime(as: other.focus) else { return false }
        var a = self, b = other
        (a.elapsed, a.totals, b.elapsed, b.totals) = ("", "", "", "")
        (a.focus, b.focus) = (other.focus, other.focus)
        return a == b
    }

    static func reason(_ reason: String) -> String {
        switch reason {
        case "suspend": return "suspended"
        case "lock": return "screen locked"
        case "idle": return "no input"
        default: return "marked away"
        }
    }

    // MARK: What each control asks of the agent

    public static let pause = AgentRequest("Pause")
    public static let resume = AgentRequest("Resume")
    public static let stop = AgentRequest("Stop")
    public static func start(projectID: UInt64) -> AgentRequest { AgentRequest("StartProject", [.string("#\(projectID)")]) }
    public static func start(projectName: String) -> AgentRequest { AgentRequest("StartProject", [.string(projectName)]) }
    public static func resolveAway(_ id: UInt64, _ choice: String) -> AgentRequest {
        AgentRequest("ResolveAway", [.uint64(id), .string(choice)])
    }

    /// The note as typed, for the open session; nil when nothing changed.
    public func noteRequest(_ typed: String) -> AgentRequest? {
        guard sessionID != 0, typed != note else { return nil }
        return AgentRequest("SetNote", [.uint64(sessionID), .string(typed)])
    }
}
