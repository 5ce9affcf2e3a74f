import TimeClient
import DBusCore

/// `timectl focus`: the focus timer (the Pomodoro technique) inside the one timer. Every command
/// is one call or property of the agent; the agent decides and refuses (`timectl focus extend 0`).
struct Focus: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "focus",
        abstract: "Start a focus phase on a project (without one: the open session's, else the last).",
        discussion: """
            A focus phase tracks the project as usual; at its end a break is offered, and after every few
            focus phases a long one (timectl focus set). While the next phase waits, 'timectl focus skip'
            starts it. Pausing the session pauses a focus phase; stopping it ends the cycle. A project
            named like a subcommand is given after '--': timectl focus -- stop.
            """,
        arguments: [Positional(name: "project", help: "A project name (case does not matter), or #ID.", optional: true, variadic: true)],
        subcommands: [FocusStop.self, FocusSkip.self, FocusExtend.self, FocusStatus.self, FocusSet.self])

    var project: String
    init(_ arguments: ParsedArguments) throws { project = arguments.argument("project")?.trimmed ?? "" }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        let session = try agent.call("StartFocus", [.string(project)]).first?.integer ?? 0
        let name = try agent.property("Project").stringValue ?? project
        let ends = try agent.property("FocusEnds").integer ?? 0
        output("Focus on \(name) until \(LocalTime.clockString(ends)) (session \(session)).")
    }
}

struct FocusStop: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "stop", abstract: "End the focus cycle; the session goes on (timectl stop ends both).")
    init(_ arguments: ParsedArguments) throws {}
    func run(_ context: Context) throws {
        _ = try context.quickCall("StopFocus")
        output("The focus cycle ended.")
    }
}

struct FocusSkip: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "skip", abstract: "End the current phase now and start the next (focus → break, break → focus; a waiting phase starts).")
    init(_ arguments: ParsedArguments) throws {}
    func run(_ context: Context) throws {
        let agent = try context.agent()
        try agent.call("SkipPhase")
        output(try FocusStatus.line(agent, now: context.now))
    }
}

struct FocusExtend: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "extend", abstract: "Make the current phase longer.",
        arguments: [Positional(name: "duration", help: "Whole minutes, 1 to 60: 5m, 10, 1h.")])

    var minutes: UInt32
    init(_ arguments: ParsedArguments) throws {
        minutes = try focusMinutes(arguments.required("duration"), "extend", arguments)
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        try agent.call("ExtendPhase", [.uint32(minutes)])
        output(try FocusStatus.line(agent, now: context.now))
    }
}

struct FocusStatus: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "status", abstract: "Show the phase, when it ends, today's focus phases and the settings.")
    init(_ arguments: ParsedArguments) throws {}

    func run(_ context: Context) throws {
        let agent = try context.agent()
        output(try FocusStatus.line(agent, now: context.now))
        output(try FocusStatus.settingsLine(agent))
    }

    /// `Focus until 10:25 (12 min left); 3 focus phases today.`
    static func line(_ agent: AgentClient, now: Int64) throws -> String {
        let phase = try agent.property("FocusState").stringValue ?? "off"
        let ends = try agent.property("FocusEnds").integer ?? 0
        let count = try agent.property("FocusCount").integer ?? 0
        let today = "\(count) focus phase\(count == 1 ? "" : "s") today"
        let left = max(0, ends - now)
        switch phase {
        case "off": return "No focus cycle (timectl focus PROJECT starts one); \(today)."
        case "waiting": return "The next phase waits to be started (timectl focus skip starts it); \(today)."
        default:
            let name = phase == "focus" ? "Focus" : (phase == "long-break" ? "Long break" : "Break")
            let state = try agent.property("State").stringValue
            let paused = phase == "focus" && state == "paused"
            return paused ? "Focus paused with the session; \(today)."
                : "\(name) until \(LocalTime.clockString(ends)) (\((left + 59) / 60) min left); \(today)."
        }
    }

    /// `Focus 25 min, break 5 min, long break 15 min after every 4; …`
    static func settingsLine(_ agent: AgentClient) throws -> String {
        func number(_ name: String) throws -> Int64 { try agent.property(name).integer ?? 0 }
        let every = try number("LongBreakEvery")
        let long = every == 0 ? "no long breaks" : "long break \(try number("LongBreakMinutes")) min after every \(every)"
        let auto = try agent.property("FocusAutoStart").boolValue == true ? "the next phase starts by itself" : "each phase waits for you"
        let pause = try agent.property("PauseInBreaks").boolValue == true ? "breaks pause the session" : "breaks leave the session running"
        return "Focus \(try number("FocusMinutes")) min, break \(try number("BreakMinutes")) min, \(long); \(auto); \(pause)."
    }
}

struct FocusSet: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "set", abstract: "Set the lengths of phases and how the cycle goes on (each setting can be undone).",
        options: [
            .value("--focus", valueName: "duration", help: "A focus phase, e.g. 25m or 50 (whole minutes, 1 to 240)."),
            .value("--break", valueName: "duration", help: "A break, e.g. 5m."),
            .value("--long", valueName: "duration", help: "A long break, e.g. 15m."),
            .value("--every", valueName: "count", help: "A long break after this many focus phases; 0 for none."),
            .flag("--auto", help: "Start the next phase by itself."),
            .flag("--no-auto", help: "Wait for you to start the next phase (the default)."),
            .flag("--pause-in-breaks", help: "Pause the session for a break, resume it with the next focus phase (the default)."),
            .flag("--no-pause-in-breaks", help: "Leave the session running through breaks."),
        ])

    var settings: [(String, DBusValue)] = []

    init(_ arguments: ParsedArguments) throws {
        for (option, property) in [("--focus", "FocusMinutes"), ("--break", "BreakMinutes"), ("--long", "LongBreakMinutes")] {
            if let text = arguments.value(option) { settings.append((property, .uint32(try focusMinutes(text, option, arguments, upTo: 240)))) }
        }
        if let text = arguments.value("--every") {
            guard let count = UInt32(text.trimmed) else { throw arguments.usageError("--every takes a number of focus phases (0 for no long breaks), not '\(text)'") }
            settings.append(("LongBreakEvery", .uint32(count)))
        }
        for (on, off, property) in [("--auto", "--no-auto", "FocusAutoStart"), ("--pause-in-breaks", "--no-pause-in-breaks", "PauseInBreaks")] {
            if arguments.flag(on) && arguments.flag(off) { throw arguments.usageError("give \(on) or \(off), not both") }
            if arguments.flag(on) || arguments.flag(off) { settings.append((property, .bool(arguments.flag(on)))) }
        }
        if settings.isEmpty { throw arguments.usageError("nothing to set: give --focus, --break, --long, --every, --auto/--no-auto or --pause-in-breaks/--no-pause-in-breaks") }
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        for (property, value) in settings { try agent.setProperty(property, value) }
        output(try FocusStatus.settingsLine(agent))
    }
}

/// Whole minutes from what a person types (`5m`, `5`, `1h`), 1 to `limit`.
func focusMinutes(_ text: String, _ what: String, _ arguments: ParsedArguments, upTo limit: Int64 = 60) throws -> UInt32 {
    guard let seconds = DurationInput.seconds(text.trimmed), seconds > 0, seconds % 60 == 0, seconds / 60 <= limit else {
        throw arguments.usageError("\(what) takes whole minutes from 1 to \(limit), such as 5m or 25; not '\(text)'")
    }
    return UInt32(seconds / 60)
}
