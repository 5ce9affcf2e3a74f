/// The focus cycle's changes. Each is one durable, undoable change through the gate, and the
/// session's segments stay exact: a break that pauses the session closes its running segment at
/// the break's start, the next focus phase opens one at its own start.
extension Tracker {
    public var focusSettings: FocusSettings { (try? store.focusSettings()) ?? FocusSettings() }
    public var focusState: FocusState { (try? store.focusState()) ?? FocusState() }

    /// Focus phases completed on the local day of `time` (now by default): `FocusCount`.
    public func focusCount(onDayOf time: Int64? = nil) throws -> UInt32 {
        let day = LocalTime.date(of: time ?? now)
        let from = LocalTime.startOfDay(day), to = LocalTime.startOfDay(day.adding(days: 1))
        let phases = try store.focusPhases(overlapping: from, to) + (openSession.map { [(session: $0.id, phases: $0.focus)] } ?? [])
        var seen = Set<SessionID>(), count: UInt32 = 0
        for (session, spans) in phases where seen.insert(session).inserted {
            count += UInt32(spans.filter { $0.end >= from && $0.end < to }.count)
        }
        return count
    }

    /// `StartFocus`: tracks `reference` (`""`: the open session's project, else the last one) and
    /// starts a focus phase; a cycle already running goes on (its count of phases is kept).
    @discardableResult
    public func startFocus(_ reference: String) throws -> SessionID {
        let project: Project
        if !reference.trimmingWhitespace().isEmpty {
            project = try resolveProject(reference)
        } else if let open = openSession, let current = projectsByID[open.projectID] {
            project = current
        } else if let last = try lastProject() {
            project = last
        } else {
            throw TrackerError.noSuchProject("There is no project to focus on yet: give one (timectl focus PROJECT) or create it with CreateProject (timectl projects add NAME).")
        }
        let settings = focusSettings
        var state = focusState
        return try change {
            let time = now
            let id = try track(project, at: time)
            if state.isOff { state = FocusState() }
            try enter(.focus, at: time, state: &state, settings: settings)
            try store.setFocusState(state)
            describeStep("Started focus on \(project.name) until \(LocalTime.clock(state.ends))")
            return id
        }
    }

    /// `StopFocus`: the cycle ends; the session is not touched. No cycle: nothing changes.
    public func stopFocus() throws {
        guard !focusState.isOff else { return }
        try change {
            try store.setFocusState(FocusState())
            describeStep("Stopped the focus cycle")
        }
    }

    /// `SkipPhase`: the current phase ends now (a focus phase cut short is not counted) and the
    /// next begins: focus → its break, a break → focus, `waiting` → the phase that waits.
    public func skipPhase() throws {
        var state = focusState
        let settings = focusSettings
        let next: FocusPhase
        switch state.phase {
        case .off: throw TrackerError.invalidArgument("There is no focus cycle to skip in: start one with StartFocus (timectl focus).")
        case .focus: next = settings.breakAfter(completed: state.completed + 1)
        case .shortBreak, .longBreak: next = .focus
        case .waiting: next = state.next
        }
        // A long break taken by skipping ends that round of the cycle, as a completed phase would:
        // otherwise the next completed phase would be the round's last again and earn a second one.
        if state.phase == .focus && next == .longBreak { state.completed += 1 }
        try change {
            try enter(next, at: now, state: &state, settings: settings)
            try store.setFocusState(state)
            describeStep("Skipped to \(FocusText.name(of: next))")
        }
    }

    /// `ExtendPhase`: the running phase lasts `minutes` (1 to 60) longer.
    public func extendPhase(minutes: UInt32) throws {
        guard (1...60).contains(minutes) else {
            throw TrackerError.invalidArgument("A phase can be extended by 1 to 60 minutes at a time; got \(minutes).")
        }
        var state = focusState
        guard state.phase != .off && state.phase != .waiting else {
            throw TrackerError.invalidArgument(state.phase == .off
                ? "There is no focus phase to extend: start one with StartFocus (timectl focus)."
                : "No phase is running to extend: the next one waits to be started (timectl focus skip starts it).")
        }
        try change {
            state.ends += Int64(minutes) * focusMinuteSeconds
            if let left = state.pausedLeft { state.pausedLeft = left + Int64(minutes) * focusMinuteSeconds }
            try store.setFocusState(state)
            describeStep("Extended the \(FocusText.name(of: state.phase)) by \(minutes) min")
        }
    }

    /// The notification's `Skip break`: the break that runs or waits is skipped; focus starts now.
    public func skipBreak() throws {
        var state = focusState
        if state.phase.isBreak { return try skipPhase() }
        guard state.phase == .waiting, state.next.isBreak else { return }
        let settings = focusSettings
        try change {
            try enter(.focus, at: now, state: &state, settings: settings)
            try store.setFocusState(state)
            describeStep("Skipped the break")
        }
    }

    /// The notification's `+5 min`: while the next phase waits, the phase that just ended comes
    /// back for `minutes` more (a focus phase is counted again when it ends); otherwise the
    /// running phase is extended (`ExtendPhase`).
    public func moreOfEndedPhase(minutes: UInt32) throws {
        var state = focusState
        guard state.phase == .waiting, state.ended != .off else { return try extendPhase(minutes: minutes) }
        let settings = focusSettings
        try change {
            let time = now
            if state.ended == .focus, var open = openSession, open.focus.last?.start == state.endedStart {
                let before = open
                open.focus.removeLast()
                try store.updateSession(open, previous: before, segmentsChanged: false)
                openSession = open
                state.completed = state.completed > 0 ? state.completed - 1 : 0
            }
            let phase = state.ended, start = state.endedStart
            try enter(phase, at: time, state: &state, settings: settings)
            (state.start, state.ends) = (start, time + Int64(minutes) * focusMinuteSeconds)
            try store.setFocusState(state)
            describeStep("Gave the \(FocusText.name(of: phase)) \(minutes) more minutes")
        }
    }

    /// Ends every phase whose end has come, each at its exact end (the agent calls it when its one
    /// timer fires, and at a start). A focus phase that would start by itself waits instead while
    /// the person is away, or starts now when its break ended long ago (the agent was not running,
    /// the machine slept). Returns the phases that ended, oldest first; none: nothing changed.
    ///
    /// Durable like every change, but no step of the undo history: time made it, not the person.
    /// Undoing it would only bring back a phase whose end has passed, which the timer ends again
    /// at once, so Undo would seem to do nothing; a person's earlier step that this change
    /// touched since is refused by Undo with a sentence saying so (UndoHistory).
    @discardableResult
    public func advanceFocus(personAway: Bool = false) throws -> [FocusPhase] {
        let before = focusState
        guard before.isTiming, before.ends <= now else { return [] }
        var state = before
        let settings = focusSettings
        return try change(recordingStep: false) {
            let time = now
            var ended: [FocusPhase] = []
            while state.isTiming && state.ends <= time && ended.count < 64 {
                try endPhase(at: state.ends, now: time, state: &state, settings: settings, personAway: personAway, ended: &ended)
            }
            try store.setFocusState(state)
            return ended
        }
    }

    /// The person is back after being away (locked, idle or asleep) since `awayFrom`: a break
    /// that waited through an absence at least its length long counts as taken, and a focus
    /// phase that waited for the person starts now when it would have started by itself.
    @discardableResult
    public func focusPersonBack(awayFrom: Int64) throws -> [FocusPhase] {
        var ended = try advanceFocus(personAway: true)
        var state = focusState
        let settings = focusSettings
        guard state.phase == .waiting else { return ended }
        let time = now
        let breakTaken = state.next.isBreak && time - max(awayFrom, state.ends) >= settings.seconds(of: state.next, minute: focusMinuteSeconds)
        guard breakTaken || (state.next == .focus && settings.autoStart) else { return ended }
        try change(recordingStep: false) {  // made by the person's absence, as advanceFocus is by time
            if breakTaken {
                ended.append(state.next)
                (state.ended, state.endedStart, state.ends) = (state.next, max(awayFrom, state.ends), time)
                state.next = .focus
            }
            if settings.autoStart {
                try enter(.focus, at: time, state: &state, settings: settings)
            }
            try store.setFocusState(state)
        }
        return ended
    }

    // MARK: Settings (each one undoable step)

    public func setFocusMinutes(_ value: UInt32) throws {
        try setFocus(\.focusMinutes, value, name: "FocusMinutes", sentence: "Set focus phases to \(value) minutes")
    }
    public func setBreakMinutes(_ value: UInt32) throws {
        try setFocus(\.breakMinutes, value, name: "BreakMinutes", sentence: "Set breaks to \(value) minutes")
    }
    public func setLongBreakMinutes(_ value: UInt32) throws {
        try setFocus(\.longBreakMinutes, value, name: "LongBreakMinutes", sentence: "Set long breaks to \(value) minutes")
    }
    public func setLongBreakEvery(_ value: UInt32) throws {
        guard FocusSettings.everyRange.contains(value) else {
            throw TrackerError.invalidArgument("LongBreakEvery must be between 0 (no long breaks) and \(FocusSettings.everyRange.upperBound) focus phases; got \(value).")
        }
        try setFocusSetting({ $0.longBreakEvery = value },
                            sentence: value == 0 ? "Turned long breaks off" : "Set a long break after every \(value) focus phases")
    }
    public func setFocusAutoStart(_ value: Bool) throws {
        try setFocusSetting({ $0.autoStart = value },
                            sentence: value ? "Turned on starting the next phase by itself" : "Turned off starting the next phase by itself")
    }
    public func setPauseInBreaks(_ value: Bool) throws {
        try setFocusSetting({ $0.pauseInBreaks = value },
                            sentence: value ? "Turned on pausing the session in breaks" : "Turned off pausing the session in breaks")
    }

    private func setFocus(_ key: WritableKeyPath<FocusSettings, UInt32>, _ value: UInt32, name: String, sentence: String) throws {
        guard FocusSettings.minutesRange.contains(value) else {
            throw TrackerError.invalidArgument("\(name) must be between \(FocusSettings.minutesRange.lowerBound) and \(FocusSettings.minutesRange.upperBound) minutes; got \(value).")
        }
        try setFocusSetting({ $0[keyPath: key] = value }, sentence: sentence)
    }

    private func setFocusSetting(_ edit: (inout FocusSettings) -> Void, sentence: String) throws {
        var settings = focusSettings
        let before = settings
        edit(&settings)
        guard settings != before else { return }
        try change {
            try store.setFocusSettings(settings)
            describeStep(sentence)
        }
    }

    // MARK: Hooks of the timer's own changes (inside their change)

    /// The session paused: a focus phase pauses with it.
    func focusSessionPaused(at time: Int64) throws {
        var state = try store.focusState()
        guard state.phase == .focus, state.pausedLeft == nil else { return }
        state.pausedLeft = max(0, state.ends - max(time, state.start))
        try store.setFocusState(state)
    }

    /// A pause moved from `old` to `new` (PauseAt on a paused session): the focus time before it
    /// grows or shrinks by the difference, and so does what is left of the phase.
    func focusPauseMoved(from old: Int64, to new: Int64) throws {
        var state = try store.focusState()
        guard state.phase == .focus, let left = state.pausedLeft else { return }
        state.pausedLeft = max(0, left + max(old, state.start) - max(new, state.start))
        try store.setFocusState(state)
    }

    /// The running stretch's start moved from `old` to `new` (ResumeAt on a running session): a
    /// focus phase that went on at `old` goes on at `new`, its end moved by the difference.
    func focusResumeMoved(from old: Int64, to new: Int64) throws {
        var state = try store.focusState()
        guard state.phase == .focus, state.pausedLeft == nil, old >= state.start else { return }
        state.ends += max(new, state.start) - old
        try store.setFocusState(state)
    }

    /// The session resumed: a paused focus phase goes on, its end moved by the pause's length.
    func focusSessionResumed(at time: Int64) throws {
        var state = try store.focusState()
        guard state.phase == .focus, let left = state.pausedLeft else { return }
        (state.ends, state.pausedLeft) = (time + left, nil)
        try store.setFocusState(state)
    }

    /// `Stop` ends the cycle.
    func focusSessionStopped() throws {
        guard !(try store.focusState()).isOff else { return }
        try store.setFocusState(FocusState())
    }

    // MARK: Moving between phases

    /// Begins `phase` at `time`; a break pauses the running session (`PauseInBreaks`), a focus
    /// phase tracks: it resumes a paused session.
    private func enter(_ phase: FocusPhase, at time: Int64, state: inout FocusState, settings: FocusSettings) throws {
        (state.phase, state.next, state.start, state.pausedLeft) = (phase, .off, time, nil)
        state.ends = time + settings.seconds(of: phase, minute: focusMinuteSeconds)
        guard let open = openSession else { return }
        if phase.isBreak && settings.pauseInBreaks && open.isRunning {
            let start = open.segments.last!.start
            try store.closeRunningSegment(of: open.id, at: max(time, start))
            try endAwaySpan(at: max(time, start))
            openSession = try store.session(id: open.id)
        } else if phase == .focus && !open.isRunning {
            try store.openSegment(of: open.id, at: max(time, open.segments.last?.end ?? open.start))
            openSession = try store.session(id: open.id)
        }
    }

    /// The running phase ends at `end` (≤ `time`): a focus phase is recorded with the open session
    /// and counted; the next phase starts at `end` by itself, or waits.
    private func endPhase(at end: Int64, now time: Int64, state: inout FocusState, settings: FocusSettings,
                          personAway: Bool, ended: inout [FocusPhase]) throws {
        let phase = state.phase
        let next: FocusPhase
        if phase == .focus {
            if var open = openSession {
                let before = open
                if open.focus.last?.start == state.start { open.focus.removeLast() }
                open.focus.append(FocusSpan(start: state.start, end: end))
                try store.updateSession(open, previous: before, segmentsChanged: false)
                openSession = open
            }
            state.completed += 1
            next = settings.breakAfter(completed: state.completed)
        } else {
            next = .focus
        }
        ended.append(phase)
        (state.ended, state.endedStart) = (phase, state.start)
        // A focus phase starts by itself only for a person at the desk: after an absence, or a
        // break that ended long before anyone noticed, it starts when they are back.
        let late = time - end > 60
        if settings.autoStart && !(next == .focus && personAway) {
            try enter(next, at: next == .focus && late ? time : end, state: &state, settings: settings)
        } else {
            (state.phase, state.next, state.ends, state.pausedLeft) = (.waiting, next, end, nil)
        }
    }

    /// Starts or resumes `project` at `time` (StartProject's effect, inside a focus change).
    private func track(_ project: Project, at time: Int64) throws -> SessionID {
        if let open = openSession, open.projectID == project.id {
            if !open.isRunning {
                try store.openSegment(of: open.id, at: max(time, open.segments.last?.end ?? open.start))
                openSession = try store.session(id: open.id)
            }
            return open.id
        }
        if let open = openSession { try complete(open, at: time) }
        let id = try store.insertSession(WorkSession(id: 0, projectID: project.id, start: time, end: nil, unrecordedSeconds: 0,
                                                     note: "", segments: [Segment(start: time, end: nil)]))
        openSession = try store.session(id: id)
        return id
    }
}

/// Words for phases, shared by the history's sentences, the notifications and the tray.
public enum FocusText {
    public static func name(of phase: FocusPhase) -> String {
        switch phase {
        case .off: "focus cycle"
        case .focus: "focus phase"
        case .shortBreak: "break"
        case .longBreak: "long break"
        case .waiting: "next phase"
        }
    }
}
