import TimeClient
import DBusCore
import TimeJSON

/// `timectl away`: the time a running session kept counting while you were away, and your answer.
struct Away: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "away",
        abstract: "List away time waiting for an answer, or answer it: keep, discard or stop.",
        discussion: """
            When you leave while a session runs (suspend, screen lock, no input for the away minutes,
            or MarkAway from swayidle or xss-lock), the time stays counted and is listed here until
            you answer. 'keep' leaves it counted, 'discard' cuts it out of the session, 'stop' ends
            the session when you left. Without an ID the newest one is answered.
            """,
        options: [jsonFlag],
        subcommands: [AwayAnswer<KeepAnswer>.self, AwayAnswer<DiscardAnswer>.self, AwayAnswer<StopAnswer>.self])

    var json: Bool
    init(_ arguments: ParsedArguments) throws { json = arguments.flag("--json") }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        let spans = try agent.property("PendingAway").arrayValue ?? []
        if json {
            output(JSON.array(spans.map { span in
                guard case .structure(let f) = span, f.count == 5 else { return .null }
                return .sortedObject(["id": JSON(f[0]), "start": JSON(f[1]), "end": JSON(f[2]), "reason": JSON(f[3]), "project": JSON(f[4])])
            }).text)
            return
        }
        guard !spans.isEmpty else {
            output("No away time is waiting for an answer.")
            return
        }
        var table = Table(headers: ["ID", "FROM", "TO", "AWAY", "WHY", "PROJECT"])
        table.rightAligned = [0, 3]
        for span in spans {
            guard case .structure(let f) = span, f.count == 5 else { continue }
            let start = f[1].int64Value ?? 0, end = f[2].int64Value ?? 0
            let endText = end == 0 ? "now" : (LocalTime.dateString(end) == LocalTime.dateString(start)
                ? LocalTime.clockString(end) : LocalTime.dateTimeString(end))
            let seconds = (end == 0 ? parsingNow() : end) - start
            table.rows.append([Cell(String(f[0].integer ?? 0)), Cell(LocalTime.dateTimeString(start)), Cell(endText),
                               Cell(Format.hoursMinutes(seconds)), Cell(f[3].stringValue ?? ""), Cell(f[4].stringValue ?? "")])
        }
        fputsOut(table.render(color: context.color))
    }
}

/// One of the three answers; the command's name is the choice ResolveAway takes.
protocol AwayChoiceName { static var choice: String { get }; static var abstract: String { get } }
enum KeepAnswer: AwayChoiceName {
    static let choice = "keep", abstract = "Keep the away time counted."
}
enum DiscardAnswer: AwayChoiceName {
    static let choice = "discard", abstract = "Cut the away time out of its session (a running timer keeps running)."
}
enum StopAnswer: AwayChoiceName {
    static let choice = "stop", abstract = "End the session when you left."
}

struct AwayAnswer<Choice: AwayChoiceName>: ParsableCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(
            name: Choice.choice, abstract: Choice.abstract,
            arguments: [Positional(name: "id", help: "The away time's id (see 'timectl away'); the newest if omitted.", optional: true)])
    }

    var id: UInt64 = 0
    init(_ arguments: ParsedArguments) throws {
        if let text = arguments.argument("id") {
            let trimmed = text.trimmed
            guard let value = UInt64(trimmed.hasPrefix("#") ? String(trimmed.dropFirst()) : trimmed), value > 0 else {
                throw arguments.usageError("an away id is a positive number, not '\(text)'")
            }
            id = value
        }
    }

    func run(_ context: Context) throws {
        try context.agent().call("ResolveAway", [.uint64(id), .string(Choice.choice)])
        switch Choice.choice {
        case "keep": output("Kept the away time.")
        case "discard": output("Discarded the away time.")
        default: output("Stopped the session when you left.")
        }
    }
}
