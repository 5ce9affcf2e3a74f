import TimeClient
import DBusCore
import TimeJSON

/// A project argument shared by several commands.
let projectArgument = Positional(
    name: "project", help: "A project name (case does not matter), or #ID.", variadic: true)

struct Start: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "start",
        abstract: "Start tracking a project (stops the session of another project).",
        discussion: """
            Starting the project that is already open resumes it if it is paused.
            A project that does not exist yet is created (and said so on stderr), with --category
            (created too when missing) and --color; those two apply only when the project is created.
            With --at the session starts when you really began (the open session of another project
            ends then); a start over a completed session is refused, naming it, unless --adjust
            shortens that session to end there.
            """,
        arguments: [projectArgument],
        options: [.category("The category of a project created now."), .color("The color of a project created now."),
                  noCreateFlag, atOption, adjustFlag])

    var new: NewProject
    var at: Int64?, adjust: Bool
    init(_ arguments: ParsedArguments) throws {
        new = try NewProject(arguments, named: "project")
        at = try momentOption("--at", arguments, now: parsingNow())
        adjust = arguments.flag("--adjust")
        if adjust && at == nil { throw arguments.usageError("--adjust goes with --at") }
    }

    func run(_ context: Context) throws {
        if let at { return try startAt(at, context) }
        let started = try context.startProject(new.name, color: new.color, category: new.category, create: new.create)
        output("Started \(started.name.isEmpty ? new.name : started.name) (session \(started.session)).")
    }
}

struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "pause", abstract: "Pause the running session (nothing happens if it is already paused).",
        discussion: "With --at the pause begins when you really stopped working (not before the running stretch began); when already paused, the pause begins then instead.",
        options: [atOption])
    var at: Int64?
    init(_ arguments: ParsedArguments) throws { at = try momentOption("--at", arguments, now: parsingNow()) }
    func run(_ context: Context) throws {
        if let at {
            try context.agent().call("PauseAt", [.int64(at)])
            output("Paused at \(LocalTime.clockString(at)).")
            return
        }
        _ = try context.quickCall("Pause")
        output("Paused.")
    }
}

struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "resume", abstract: "Resume the paused session (nothing happens if it is running).",
        discussion: "With --at the work goes on from when you really came back (not before the pause began); when already running after a pause, the running stretch begins then instead.",
        options: [atOption])
    var at: Int64?
    init(_ arguments: ParsedArguments) throws { at = try momentOption("--at", arguments, now: parsingNow()) }
    func run(_ context: Context) throws {
        if let at {
            try context.agent().call("ResumeAt", [.int64(at)])
            output("Resumed at \(LocalTime.clockString(at)).")
            return
        }
        _ = try context.quickCall("Resume")
        output("Resumed.")
    }
}

struct Toggle: OneCallCommand {
    static let call = OneCall("Toggle", quick: true, name: "toggle",
                              abstract: "Pause if running, resume if paused, start the last project if idle; prints the new state.",
                              discussion: "Made for one keyboard shortcut.") { $0.first?.stringValue ?? "" }
}

struct Stop: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "stop", abstract: "Stop the open session (it is completed and kept).",
        discussion: "With --at it ends when you really stopped (not before it began): time after that is cut.",
        options: [atOption])
    var at: Int64?
    init(_ arguments: ParsedArguments) throws { at = try momentOption("--at", arguments, now: parsingNow()) }
    func run(_ context: Context) throws {
        if let at {
            let reply = try context.agent().call("StopAt", [.int64(at)])
            output("Stopped session \(reply.first?.integer ?? 0) at \(LocalTime.clockString(at)).")
            return
        }
        let reply = try context.quickCall("Stop")
        output("Stopped session \(reply.first?.integer ?? 0).")
    }
}

struct Note: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "note",
        abstract: "Add a line to the open session's note, or replace the note of any session.",
        discussion: "Without --session the text is appended as a new line to the open session's note.\nWith --session ID the note of that session is replaced ('' clears it).",
        arguments: [Positional(name: "text", help: "The note text.", variadic: true)],
        options: [.value("--session", valueName: "id", help: "Replace the note of this session instead.")])

    var text: String
    var session: UInt64?

    init(_ arguments: ParsedArguments) throws {
        text = arguments.required("text")
        if let value = arguments.value("--session") {
            guard let id = UInt64(value.trimmed.hasPrefix("#") ? String(value.trimmed.dropFirst()) : value.trimmed), id > 0 else {
                throw arguments.usageError("--session needs a session id (a positive number), not '\(value)'")
            }
            session = id
        } else if text.trimmed.isEmpty {
            throw arguments.usageError("the note is empty")
        }
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        if let session {
            try agent.call("SetNote", [.uint64(session), .string(text)])
            output(text.isEmpty ? "Cleared the note of session \(session)." : "Set the note of session \(session).")
        } else {
            try agent.call("AddNote", [.string(text)])
            output("Noted.")
        }
    }
}

/// `--format` values shared by status and watch.
let formatOption = Option.value("--format", valueName: "format",
                                help: "text (default for status), waybar, json or plain.")

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "status",
        abstract: "Show the timer: state, project, elapsed time, today and this week.",
        discussion: "--format waybar prints the JSON of a waybar custom module (see desktop/waybar in the sources).",
        options: [formatOption, .flag("--json", help: "The same as --format json.")])

    enum Style: String { case text, waybar, json, plain }
    var style: Style

    init(_ arguments: ParsedArguments) throws {
        if let format = arguments.value("--format") {
            guard let style = Style(rawValue: format) else {
                throw arguments.usageError("unknown format '\(format)' (text, waybar, json or plain)")
            }
            self.style = style
        } else {
            style = .text
        }
        if arguments.flag("--json") {
            if arguments.value("--format") != nil && style != .json {
                throw arguments.usageError("--json and --format \(style.rawValue) contradict each other")
            }
            style = .json
        }
    }

    func run(_ context: Context) throws {
        // The properties, and for text and json GetStatus as well, in one round trip.
        let withStatus = style == .text || style == .json
        let replies = try context.quickCalls(withStatus ? [.getAll, .agent("GetStatus")] : [.getAll])
        let panel = PanelStatus(properties: try AgentClient.properties(fromGetAll: replies[0].reply()))
        switch style {
        case .waybar: output(panel.waybar(now: context.preciseNow()).text)
        case .plain: output(panel.plain(now: context.preciseNow()))
        case .json:
            let status = try replies[1].reply().first ?? .vardict([:])
            var members: [(String, JSON)] = []
            if case .object(let fields) = JSON(status) { members = fields }
            members.append(("running_since", .int(panel.runningSince)))
            members.append(("session_start", .int(panel.sessionStart)))
            members.append(("active_seconds", .int(panel.activeSeconds)))
            members.append(("storage_state", .string(panel.storageState)))
            members += panel.focusJSON
            output(JSON.object(members).text)
        case .text:
            let status = try replies[1].reply().first?.variantDictionary ?? [:]
            if panel.storageState != "ok" {
                printError("warning: storage is \(panel.storageState): \(panel.storageMessage)")
            }
            output(text(status, panel, context))
        }
    }

    func text(_ status: [String: DBusValue], _ panel: PanelStatus, _ context: Context) -> String {
        let state = status["state"]?.stringValue ?? panel.state
        var rows: [(String, String)] = [("State", state)]
        if state != "idle" {
            let project = status["project"]?.stringValue ?? panel.project
            let color = status["color"]?.stringValue ?? panel.color
            let category = status["category"]?.stringValue ?? ""
            var shown = Format.colored(project, color, enabled: context.color)
            if !category.isEmpty { shown += " (\(category))" }
            rows.append(("Project", shown))
            let session = status["session"]?.integer ?? panel.sessionID
            var line = Format.hms(status["elapsed"]?.integer ?? 0)
            if panel.sessionStart > 0 { line += ", session \(session) started \(LocalTime.dateTimeString(panel.sessionStart))" }
            rows.append(("Elapsed", line))
            let note = status["note"]?.stringValue ?? ""
            if !note.isEmpty {
                rows.append(("Note", note.split(separator: "\n", omittingEmptySubsequences: false)
                    .joined(separator: "\n          ")))
            }
        }
        if !panel.focusLine.isEmpty { rows.append(("Focus", panel.focusLine)) }
        rows.append(("Today", Format.hms(status["today"]?.integer ?? 0)))
        rows.append(("Week", Format.hms(status["week"]?.integer ?? 0)))
        return rows.map { $0.0 + ":" + String(repeating: " ", count: 9 - $0.0.count) + $0.1 }.joined(separator: "\n")
    }
}

struct Reminders: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "reminders",
        abstract: "Show or set the minutes of active time between reminders.",
        arguments: [Positional(name: "minutes", help: "A number of minutes, or 'off'. Without it: show the setting.", optional: true)],
        subcommands: [RemindersUntracked.self])

    var minutes: UInt32?

    init(_ arguments: ParsedArguments) throws {
        guard let text = arguments.argument("minutes")?.trimmed.lowercased() else { return }
        if text == "off" || text == "0" {
            minutes = 0
        } else if let value = UInt32(text), value <= 24 * 60 * 7 {
            minutes = value
        } else {
            throw arguments.usageError("reminders takes a number of minutes or 'off', not '\(text)'")
        }
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        if let minutes {
            try agent.setProperty("ReminderMinutes", .uint32(minutes))
        }
        let current = try agent.property("ReminderMinutes").integer ?? 0
        output(current == 0 ? "Reminders are off." : "Reminders every \(current) minutes of active time.")
    }
}
