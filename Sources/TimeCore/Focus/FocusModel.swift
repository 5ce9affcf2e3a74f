/// The focus timer (the Pomodoro technique) inside the one timer: its settings, the state of the
/// current cycle, and the completed focus phases kept with their session. All of it is data of
/// the tracker (store v13, snapshot v11), so a kill -9, a restart or a restore gives the same
/// phase with the same end.

/// A phase of the focus cycle, as the contract's `FocusState` names it.
public enum FocusPhase: String, Sendable, CaseIterable {
    case off, focus
    case shortBreak = "break"
    case longBreak = "long-break"
    /// A phase ended and the next one waits to be started (`FocusAutoStart` off).
    case waiting

    public var isBreak: Bool { self == .shortBreak || self == .longBreak }
}

/// A completed focus phase of a session (UTC Unix seconds).
public struct FocusSpan: Equatable, Sendable {
    public var start: Int64
    public var end: Int64
    public init(start: Int64, end: Int64) { self.start = start; self.end = end }

    /// The store's form of a session's phases: `start-end` pairs separated by spaces ("" for none).
    static func storeText(_ spans: [FocusSpan]) -> String {
        spans.map { "\($0.start)-\($0.end)" }.joined(separator: " ")
    }

    /// Reads `storeText`; a malformed pair is left out (it cannot come from this code).
    static func spans(storeText text: String) -> [FocusSpan] {
        guard !text.isEmpty else { return [] }
        return text.split(separator: " ").compactMap { pair in
            let parts = pair.split(separator: "-")
            guard parts.count == 2, let start = Int64(parts[0]), let end = Int64(parts[1]) else { return nil }
            return FocusSpan(start: start, end: end)
        }
    }
}

/// The person's focus settings (contract: `FocusMinutes` … `PauseInBreaks`). Each device keeps
/// its own: they are not synced.
public struct FocusSettings: Equatable, Sendable {
    public var focusMinutes: UInt32 = 25
    public var breakMinutes: UInt32 = 5
    public var longBreakMinutes: UInt32 = 15
    /// A long break after this many focus phases; 0 for none.
    public var longBreakEvery: UInt32 = 4
    /// The next phase starts by itself; otherwise the cycle is `waiting` until the person starts it.
    public var autoStart = false
    /// The tracked session pauses for a break and resumes with the next focus phase.
    public var pauseInBreaks = true

    public init() {}

    /// A phase lasts 1 minute to 4 hours; a long break comes after 0 (never) to 12 focus phases.
    public static let minutesRange: ClosedRange<UInt32> = 1...240
    public static let everyRange: ClosedRange<UInt32> = 0...12

    enum Key {
        static let focus = "focus_minutes", shortBreak = "break_minutes", longBreak = "long_break_minutes"
        static let every = "long_break_every", autoStart = "focus_auto_start", pauseInBreaks = "pause_in_breaks"
        static let state = "focus_state"
    }

    /// The length of a phase in seconds (`minute`: 60, shorter in end-to-end tests).
    func seconds(of phase: FocusPhase, minute: Int64 = 60) -> Int64 {
        switch phase {
        case .focus: Int64(focusMinutes) * minute
        case .shortBreak: Int64(breakMinutes) * minute
        case .longBreak: Int64(longBreakMinutes) * minute
        case .off, .waiting: 0
        }
    }

    /// The break that follows the `completed`-th focus phase of a cycle.
    func breakAfter(completed: UInt32) -> FocusPhase {
        longBreakEvery > 0 && completed > 0 && completed % longBreakEvery == 0 ? .longBreak : .shortBreak
    }
}

/// Where the cycle stands.
public struct FocusState: Equatable, Sendable {
    public var phase: FocusPhase = .off
    /// While `waiting`: the phase that waits (focus, break or long-break).
    public var next: FocusPhase = .off
    /// When the current phase began (while waiting: when the phase that ended began).
    public var start: Int64 = 0
    /// When the current phase ends (while waiting: when the phase that ended ended). While the
    /// session is paused during focus: the end the phase would have if resumed at the pause.
    public var ends: Int64 = 0
    /// Seconds of focus left, while the session is paused during a focus phase (the phase pauses
    /// with it); nil otherwise.
    public var pausedLeft: Int64?
    /// Focus phases completed in this cycle (since it began or since the last long break).
    public var completed: UInt32 = 0
    /// The phase that ended last by itself, and its start (the notification's `+5 min` gives it
    /// five more minutes).
    public var ended: FocusPhase = .off
    public var endedStart: Int64 = 0

    public init() {}

    public var isOff: Bool { phase == .off }
    /// A phase runs toward its end: focus (not paused) or a break.
    public var isTiming: Bool { (phase == .focus && pausedLeft == nil) || phase.isBreak }
    /// `FocusEnds`: 0 when off or waiting.
    public var publishedEnd: Int64 { phase == .off || phase == .waiting ? 0 : ends }

    /// The canonical JSON kept in `meta` and in the snapshot, keys in byte order.
    var json: JSON {
        var members: [(String, JSON)] = [("completed", .int(Int64(completed))), ("ended", .string(ended.rawValue)),
                                         ("endedStart", .int(endedStart)), ("ends", .int(ends)), ("next", .string(next.rawValue))]
        if let pausedLeft { members.append(("pausedLeft", .int(pausedLeft))) }
        members += [("phase", .string(phase.rawValue)), ("start", .int(start))]
        return .object(members)
    }

    init(json: JSON) throws {
        guard let phase = json["phase"]?.stringValue.flatMap(FocusPhase.init(rawValue:)),
              let next = json["next"]?.stringValue.flatMap(FocusPhase.init(rawValue:)),
              let ended = json["ended"]?.stringValue.flatMap(FocusPhase.init(rawValue:)),
              let start = json["start"]?.intValue, let ends = json["ends"]?.intValue, let endedStart = json["endedStart"]?.intValue,
              let completed = json["completed"]?.intValue, completed >= 0, completed <= Int64(UInt32.max),
              [start, ends, endedStart].allSatisfy({ (0...Tracker.latestTime).contains($0) })
        else { throw FocusDataError.malformed }
        self.phase = phase; self.next = next; self.ended = ended
        self.start = start; self.ends = ends; self.endedStart = endedStart; self.completed = UInt32(completed)
        if let left = json["pausedLeft"] {
            guard let value = left.intValue, (0...Tracker.latestTime).contains(value) else { throw FocusDataError.malformed }
            pausedLeft = value
        }
    }
}

enum FocusDataError: Error { case malformed }

extension FocusState {
    /// The `meta` form (its JSON); nil for text this code could not have written.
    init?(storeText text: String) {
        guard let json = try? JSON.parse(Array(text.utf8)), let state = try? FocusState(json: json) else { return nil }
        self = state
    }
}

/// The focus part of the data state: settings and the cycle (snapshot v11's `focus`).
public struct FocusData: Equatable, Sendable {
    public var settings = FocusSettings()
    public var state = FocusState()
    public init(settings: FocusSettings = FocusSettings(), state: FocusState = FocusState()) {
        self.settings = settings; self.state = state
    }
    public var isDefault: Bool { self == FocusData() }
}

extension Store {
    /// The settings and the cycle in one read of `meta` (a snapshot takes them at every change).
    public func focusData() throws -> FocusData {
        let keys = [FocusSettings.Key.focus, FocusSettings.Key.shortBreak, FocusSettings.Key.longBreak, FocusSettings.Key.every,
                    FocusSettings.Key.autoStart, FocusSettings.Key.pauseInBreaks, FocusSettings.Key.state]
        let rows = try database.query("SELECT key, value FROM meta WHERE key IN (?, ?, ?, ?, ?, ?, ?)",
                                      .text(keys[0]), .text(keys[1]), .text(keys[2]), .text(keys[3]), .text(keys[4]), .text(keys[5]),
                                      .text(keys[6])) { ($0.string(0), $0.string(1)) }
        let values = Dictionary(rows, uniquingKeysWith: { first, _ in first })
        var settings = FocusSettings()
        func number(_ key: String) -> UInt32? { values[key].flatMap { UInt32($0) } }
        if let value = number(FocusSettings.Key.focus) { settings.focusMinutes = value }
        if let value = number(FocusSettings.Key.shortBreak) { settings.breakMinutes = value }
        if let value = number(FocusSettings.Key.longBreak) { settings.longBreakMinutes = value }
        if let value = number(FocusSettings.Key.every) { settings.longBreakEvery = value }
        if let value = values[FocusSettings.Key.autoStart] { settings.autoStart = value == "1" }
        if let value = values[FocusSettings.Key.pauseInBreaks] { settings.pauseInBreaks = value == "1" }
        return FocusData(settings: settings, state: values[FocusSettings.Key.state].flatMap(FocusState.init(storeText:)) ?? FocusState())
    }

    public func focusSettings() throws -> FocusSettings { try focusData().settings }

    /// Writes the settings that differ from the store's.
    func setFocusSettings(_ settings: FocusSettings) throws {
        let current = try focusSettings()
        if settings.focusMinutes != current.focusMinutes { try setMeta(FocusSettings.Key.focus, String(settings.focusMinutes)) }
        if settings.breakMinutes != current.breakMinutes { try setMeta(FocusSettings.Key.shortBreak, String(settings.breakMinutes)) }
        if settings.longBreakMinutes != current.longBreakMinutes { try setMeta(FocusSettings.Key.longBreak, String(settings.longBreakMinutes)) }
        if settings.longBreakEvery != current.longBreakEvery { try setMeta(FocusSettings.Key.every, String(settings.longBreakEvery)) }
        if settings.autoStart != current.autoStart { try setMeta(FocusSettings.Key.autoStart, settings.autoStart ? "1" : "0") }
        if settings.pauseInBreaks != current.pauseInBreaks { try setMeta(FocusSettings.Key.pauseInBreaks, settings.pauseInBreaks ? "1" : "0") }
    }

    /// The cycle; a value this code cannot read (none can be written) reads as off.
    public func focusState() throws -> FocusState {
        try meta(FocusSettings.Key.state).flatMap(FocusState.init(storeText:)) ?? FocusState()
    }

    func setFocusState(_ state: FocusState) throws {
        guard state != (try focusState()) else { return }
        try setMeta(FocusSettings.Key.state, state.json.serialized(.compact))
    }

    func setFocusData(_ data: FocusData) throws {
        try setFocusSettings(data.settings)
        try setFocusState(data.state)
    }
}
