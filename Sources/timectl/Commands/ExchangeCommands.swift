import TimeClient
import DBusCore
import Glibc
import TimeJSON

/// `timectl import FORMAT [PATH] [--dry-run]`.
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "import",
        abstract: "Import history from Hamster, Timewarrior, Watson, or Time's own csv/json export.",
        discussion: """
            Without PATH each tool's default location is read: Hamster's $XDG_DATA_HOME/hamster/hamster.db,
            Timewarrior's $TIMEWARRIORDB/data (else ~/.timewarrior/data, else $XDG_DATA_HOME/timewarrior/data),
            Watson's $WATSON_DIR (else $XDG_CONFIG_HOME/watson). Importing the same data again adds nothing;
            running intervals are not imported; a bad file is refused whole and nothing changes.
            """,
        arguments: [
            Positional(name: "format", help: "hamster, timewarrior, watson, csv or json."),
            Positional(name: "path", help: "The tool's file or folder (csv and json: the file).", optional: true),
        ],
        options: [
            .flag("--dry-run", help: "Only show what would be added: counts, dates, projects and categories, warnings."),
            jsonFlag,
        ])

    var format: String, path: String, dryRun: Bool, json: Bool

    init(_ arguments: ParsedArguments) throws {
        format = arguments.required("format").trimmed.lowercased()
        let formats = ["hamster", "timewarrior", "watson", "csv", "json"]
        guard formats.contains(format) else {
            throw arguments.usageError("unknown format '\(format)'; use one of: \(formats.joined(separator: ", "))")
        }
        path = absolutePath(arguments.argument("path") ?? "")
        if path.isEmpty && (format == "csv" || format == "json") {
            throw arguments.usageError("give the \(format) file to import")
        }
        dryRun = arguments.flag("--dry-run")
        json = arguments.flag("--json")
    }

    func run(_ context: Context) throws {
        let reply = try context.agent().longCall("Import", [.string(format), .string(path), .bool(dryRun)])
        let result = reply.first?.variantDictionary ?? [:]
        if json {
            output(JSON(reply.first ?? .vardict([:])).text)
            return
        }
        let added = result["sessions"]?.integer ?? 0, skipped = result["skipped"]?.integer ?? 0
        let projects = result["projects"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let categories = result["categories"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let warnings = result["warnings"]?.arrayValue?.compactMap(\.stringValue) ?? []
        var lines: [String] = []
        let verb = dryRun ? "Would import" : "Imported"
        lines.append("\(verb) \(count(added, "session")) (\(count(skipped, "already present")) skipped).")
        if added > 0, let from = result["from"]?.integer, let to = result["to"]?.integer {
            lines.append("From \(LocalTime.dateTimeString(from)) to \(LocalTime.dateTimeString(to)).")
        }
        if !projects.isEmpty { lines.append("\(dryRun ? "Projects to create" : "Projects created"): \(projects.joined(separator: ", "))") }
        if !categories.isEmpty { lines.append("\(dryRun ? "Categories to create" : "Categories created"): \(categories.joined(separator: ", "))") }
        for warning in warnings { lines.append("Warning: \(warning)") }
        if dryRun { lines.append("Nothing was changed (dry run).") }
        output(lines.joined(separator: "\n"))
    }

    private func count(_ value: Int64, _ noun: String) -> String {
        noun == "already present" ? "\(value)" : "\(value) \(noun)\(value == 1 ? "" : "s")"
    }
}

/// `timectl export FORMAT [--from] [--to] [--project] [-o FILE]`.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "export",
        abstract: "Export completed sessions as csv, toggl (Toggl Track import), json (complete) or ical.",
        discussion: "Without --from and --to every session is exported. A bare day given to --to counts in full.",
        arguments: [Positional(name: "format", help: "csv, toggl, json or ical.")],
        options: [
            .value("--from", valueName: "when", help: "Sessions overlapping from this date/time on."),
            .value("--to", valueName: "when", help: "Up to this date/time."),
            .value("--project", valueName: "project", help: "Only this project (name, #ID or ID)."),
            .value("--output", "-o", valueName: "file", help: "Write to this file instead of standard output."),
        ])

    var format: String, from: Int64, to: Int64, project: String?, file: String?

    init(_ arguments: ParsedArguments) throws {
        format = arguments.required("format").trimmed.lowercased()
        let formats = ["csv", "toggl", "json", "ical"]
        guard formats.contains(format) else {
            throw arguments.usageError("unknown format '\(format)'; use one of: \(formats.joined(separator: ", "))")
        }
        let now = parsingNow()
        from = try dateOption("--from", arguments, now: now)?.time ?? 0
        to = 0
        if let end = try dateOption("--to", arguments, now: now) {
            to = end.hasTime ? end.time : LocalTime.startOfDay(end.time, offset: 1)
        }
        if from != 0 && to == 0 { to = Int64(253_402_300_800) }
        if to != 0 && from >= to { throw arguments.usageError("--from must come before --to") }
        project = arguments.value("--project")
        file = arguments.value("--output")
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        var projectID: UInt64 = 0
        if let project { projectID = try agent.resolveProject(project).id }
        let reply = try agent.longCall("Export", [.string(format), .int64(from), .int64(to), .uint64(projectID)])
        let text = reply.first?.stringValue ?? ""
        guard let file else { fputsOut(text); return }
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RefusedError(message: "cannot write \(file): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard writeAll(fd, text) else { throw RefusedError(message: "cannot write \(file): \(String(cString: strerror(errno)))") }
    }
}

/// A path the agent can open: relative paths are taken from timectl's working directory.
func absolutePath(_ raw: String) -> String {
    let path = raw.trimmed
    guard !path.isEmpty, !path.hasPrefix("/") else { return path }
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    guard getcwd(&buffer, buffer.count) != nil else { return path }
    let cwd = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return (cwd.hasSuffix("/") ? cwd : cwd + "/") + (path.hasPrefix("./") ? String(path.dropFirst(2)) : path)
}

extension AgentClient {
    /// A call that may take long (importing 100,000 records): ten minutes instead of libdbus' 25 s.
    func longCall(_ member: String, _ arguments: [DBusValue]) throws -> [DBusValue] {
        do {
            let message = try Message(methodCall: Time1.busName, path: Time1.path, interface: Time1.interface, member: member)
            try message.append(arguments)
            return try bus.call(message, timeoutMilliseconds: 600_000).arguments()
        } catch let error as BusError {
            throw translate(error)
        }
    }
}
