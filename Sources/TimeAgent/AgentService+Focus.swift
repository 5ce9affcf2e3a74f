import CGLib
import DBusKit
import Notifier
import TimeCore

/// The focus timer's part of the service: the contract's methods and properties, one GLib timer
/// for the end of the running phase (set again after every change, so a pause, a resume,
/// ExtendPhase or a correction moves it; nothing ticks), and the phase-end notification whose
/// answers end in the same functions as the methods.
struct FocusWatch {
    var source: UInt32 = 0
    /// FocusCount counts today's phases: while it is not 0, one timer for the next local
    /// midnight, when it goes back to 0 (one wake-up a day at most).
    var midnightSource: UInt32 = 0
    /// When the person left, while away (Presence): a break can be taken that way.
    var awayFrom: Int64?
    /// The end whose change the storage refused: tried again a minute later (the agent's minute,
    /// which tests shorten), not at once, or the timer would fire without pause.
    var failedEnd: Int64?
}

extension TimerProperties {
    mutating func setFocus(from tracker: Tracker) {
        let state = tracker.focusState, settings = tracker.focusSettings
        focusState = state.phase.rawValue
        focusEnds = state.publishedEnd
        focusCount = (try? tracker.focusCount()) ?? 0
        focusMinutes = settings.focusMinutes
        breakMinutes = settings.breakMinutes
        longBreakMinutes = settings.longBreakMinutes
        longBreakEvery = settings.longBreakEvery
        focusAutoStart = settings.autoStart
        pauseInBreaks = settings.pauseInBreaks
    }
}

extension AgentService {
    // MARK: The timer for the phase's end

    /// After every change: one timer for the end of the running phase, or none.
    func updateFocusTimer() {
        if focus.source != 0 { g_source_remove(focus.source); focus.source = 0 }
        if focus.midnightSource != 0 { g_source_remove(focus.midnightSource); focus.midnightSource = 0 }
        let now = tracker.clock.now()
        if published.focusCount > 0 {
            let midnight = LocalTime.startOfDay(LocalTime.date(of: now).adding(days: 1))
            focus.midnightSource = g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, UInt32(clamping: max(1, midnight - now)), focusMidnight,
                                                              Unmanaged.passUnretained(self).toOpaque(), nil)
        }
        let state = tracker.focusState
        // Read-only storage cannot end a phase: no timer for it.
        guard state.isTiming, tracker.readOnlyReason == nil else { return }
        let wait = max(0, state.ends - now, focus.failedEnd == state.ends ? minuteLength : 0)
        // A GLib timeout takes milliseconds in 32 bits: a far end is waited for in steps (the
        // timer is set again when it fires early), never multiplied past Int64.
        let delay = UInt32(clamping: min(wait, Int64(UInt32.max / 1000)) * 1000)
        focus.source = g_timeout_add_full(G_PRIORITY_DEFAULT, delay, focusPhaseDue, Unmanaged.passUnretained(self).toOpaque(), nil)
        Log.debug("focus: the \(state.phase.rawValue) ends in \(wait) s")
    }

    fileprivate func midnightPassed() {
        focus.midnightSource = 0
        refreshAfterChange()
    }

    fileprivate func focusTimerFired() {
        focus.source = 0
        do {
            let ended = try tracker.advanceFocus(personAway: focus.awayFrom != nil)
            focus.failedEnd = nil
            if let last = ended.last { announcePhaseEnd(last) }
        } catch {
            focus.failedEnd = tracker.focusState.ends
            Log.warning("could not end the focus phase: \(error)")
        }
        refreshAfterChange()
    }

    /// The person left (Presence, MarkAway): noted for the break an absence can stand for.
    func focusPersonLeft(at time: Int64) {
        if focus.awayFrom == nil { focus.awayFrom = time }
    }

    /// The person is back: a break as long as the absence is taken, a waiting focus phase starts.
    func focusPersonBack() throws {
        guard let from = focus.awayFrom else { return }
        focus.awayFrom = nil
        let ended = try tracker.focusPersonBack(awayFrom: from)
        if let last = ended.last { announcePhaseEnd(last) }
    }

    /// One notification says what comes next, with the answers that fit.
    func announcePhaseEnd(_ ended: FocusPhase) {
        guard let notifier else { return }
        let text = FocusNotificationText(ended: ended, state: tracker.focusState, project: (try? tracker.status())?.project?.name ?? "")
        notifier.showPhaseEnd(summary: text.summary, body: text.body, answers: text.answers)
        Log.info("focus: \(text.summary)")
    }

    /// An answer on the phase-end notification: the same functions as the methods.
    func answerFocus(_ answer: FocusAnswer) throws {
        let state = tracker.focusState
        switch answer {
        case .startBreak: if state.phase == .waiting && state.next.isBreak { try tracker.skipPhase() }
        case .startFocus: if state.phase == .waiting && state.next == .focus { try tracker.skipPhase() }
        case .moreTime: try tracker.moreOfEndedPhase(minutes: 5)
        case .skipBreak: try tracker.skipBreak()
        case .stopFocus: try tracker.stopFocus()
        }
    }

    /// The timer notification's line: `Focus until 10:25`, `Break until 10:30`, `Focus paused, 12 min left`.
    func timerFocusLine() -> String {
        let state = tracker.focusState
        switch state.phase {
        case .off: return ""
        case .waiting: return state.next == .focus ? "Focus waits to be started" : "\(FocusNotificationText.title(state.next)) waits to be started"
        case .focus where state.pausedLeft != nil: return "Focus paused, \(max(1, (state.pausedLeft! + 59) / 60)) min left"
        default: return "\(FocusNotificationText.title(state.phase)) until \(LocalTime.clock(state.ends))"
        }
    }

    // MARK: The interface table

    var focusMethods: [Method] {
        [
            changing("StartFocus", [Argument("project", "s")], [Argument("session", "t")],
                     "Starts (or continues) tracking project (\"\": the open session's project, else LastProject) and a focus phase of FocusMinutes.") { args in
                [.uint64(UInt64(try self.tracker.startFocus(args.string(0))))]
            },
            changing("StopFocus", [], [], "Ends the focus cycle; the tracked session is not touched. No cycle: nothing changes.") { _ in
                try self.tracker.stopFocus(); return []
            },
            changing("SkipPhase", [], [],
                     "Ends the current phase now and goes on to the next (focus → break, break → focus, waiting → the phase that waits).") { _ in
                try self.tracker.skipPhase(); return []
            },
            changing("ExtendPhase", [Argument("minutes", "u")], [], "The current phase lasts minutes (1 to 60) longer.") { args in
                try self.tracker.extendPhase(minutes: args.values[0].uint32Value ?? 0); return []
            },
        ]
    }

    var focusProperties: [Property] {
        [
            property("FocusState", "s", "off, focus, break, long-break, or waiting (a phase ended and the next waits to be started)."),
            property("FocusEnds", "x", "When the current phase ends (Unix seconds); 0 when off or waiting."),
            property("FocusCount", "u", "Focus phases completed today (local day)."),
            focusSetting("FocusMinutes", "Minutes of a focus phase (1 to 240).", { .uint32($0.focusMinutes) }) { try $0.setFocusMinutes($1.uint32Value ?? 0) },
            focusSetting("BreakMinutes", "Minutes of a break (1 to 240).", { .uint32($0.breakMinutes) }) { try $0.setBreakMinutes($1.uint32Value ?? 0) },
            focusSetting("LongBreakMinutes", "Minutes of a long break (1 to 240).", { .uint32($0.longBreakMinutes) }) {
                try $0.setLongBreakMinutes($1.uint32Value ?? 0)
            },
            focusSetting("LongBreakEvery", "A long break after this many focus phases; 0 for none.", { .uint32($0.longBreakEvery) }) {
                try $0.setLongBreakEvery($1.uint32Value ?? 0)
            },
            focusSetting("FocusAutoStart", "The next phase starts by itself; otherwise the cycle waits for the person.", { .bool($0.autoStart) }) {
                try $0.setFocusAutoStart($1.boolValue ?? false)
            },
            focusSetting("PauseInBreaks", "The tracked session pauses for a break and resumes with the next focus phase.", { .bool($0.pauseInBreaks) }) {
                try $0.setPauseInBreaks($1.boolValue ?? true)
            },
        ]
    }

    /// A read-write setting: a change like any other, one PropertiesChanged with it and CanUndo.
    private func focusSetting(_ name: String, _ doc: String, _ get: @escaping (FocusSettings) -> DBusValue,
                              set: @escaping (Tracker, DBusValue) throws -> Void) -> Property {
        let signature = TimerProperties().values[name]!.signature
        return Property(name: name, signature: signature, access: .readWrite, doc: doc, setterAnnounces: true) { [unowned self] in
            get(self.tracker.focusSettings)
        } set: { [unowned self] value in
            try contractCall { try set(self.tracker, value) }
            self.refreshAfterChange()
        }
    }
}

/// The phase-end notification's words and answers.
struct FocusNotificationText {
    let summary: String
    let body: String
    let answers: [FocusAnswer]

    static func title(_ phase: FocusPhase) -> String {
        switch phase {
        case .focus: "Focus"
        case .shortBreak: "Break"
        case .longBreak: "Long break"
        case .off, .waiting: "Focus timer"
        }
    }

    init(ended: FocusPhase, state: FocusState, project: String) {
        let until = state.phase == .waiting || state.phase == .off ? "" : " until \(LocalTime.clock(state.ends))"
        if ended == .focus {
            summary = "Focus phase done"
            let next = state.phase == .waiting ? state.next : state.phase
            let name = next == .longBreak ? "a long break" : "a break"
            body = state.phase.isBreak ? "\(Self.title(state.phase)) started\(until)." : "Time for \(name)\(project.isEmpty ? "" : " from \(project)")."
            answers = [.startBreak, .moreTime, .skipBreak]
        } else {
            summary = ended == .longBreak ? "Long break over" : "Break over"
            body = state.phase == .focus ? "Focus started\(until)\(project.isEmpty ? "" : " on \(project)")." : "Back to \(project.isEmpty ? "focus" : project)?"
            answers = [.startFocus, .moreTime, .stopFocus]
        }
    }
}

private func focusMidnight(_ data: UnsafeMutableRawPointer?) -> gboolean {
    Unmanaged<AgentService>.fromOpaque(data!).takeUnretainedValue().midnightPassed()
    return 0 // G_SOURCE_REMOVE: updateFocusTimer sets the next one
}

private func focusPhaseDue(_ data: UnsafeMutableRawPointer?) -> gboolean {
    Unmanaged<AgentService>.fromOpaque(data!).takeUnretainedValue().focusTimerFired()
    return 0 // G_SOURCE_REMOVE: updateFocusTimer sets the next one
}
