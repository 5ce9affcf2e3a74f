import TimeVersion

/// The root command.
struct Timectl: ParsableCommand {
    static let version = TimeVersion.string

    static let configuration = CommandConfiguration(
        name: "timectl",
        abstract: "Track your time from the command line: a client of time-agent over D-Bus.",
        discussion: """
            timectl talks to time-agent (io.github.timetracker.Time1 on the session bus), which D-Bus
            starts when needed. Dates are local time: '2026-11-25 09:00', '2026-11-25', 'today 9:00',
            'yesterday', 'yesterday 14:30', '09:00' (today).
            Exit status: 0 success, 1 the agent refused, 2 bad usage, 3 no agent could be reached.
            """,
        subcommands: [
            Start.self, Pause.self, Resume.self, Toggle.self, Stop.self, Note.self, Status.self,
            Report.self, Projects.self, ProjectGroup.self, Categories.self, Sessions.self, AddSession.self,
            EditSession.self, DeleteSession.self, Reminders.self, Currency.self, Target.self, Away.self, Undo.self, Redo.self, History.self,
            Watch.self, Import.self, Export.self, Sync.self, Focus.self, Shortcut.self, Help.self,
        ],
        runnable: false)

    init(_ arguments: ParsedArguments) throws {}
    func run(_ context: Context) throws {}

    /// Parses and runs; returns the exit status.
    static func main(_ arguments: [String]) -> Int32 {
        do {
            switch try ArgumentParser.parse(arguments, root: Timectl.self) {
            case .version:
                output("timectl \(version)")
            case .help(let chain):
                fputsOut(ArgumentParser.help(for: chain))
            case .run(let command):
                try command.run(Context())
            }
            return ExitStatus.success.rawValue
        } catch let error as UsageError {
            let path = (["timectl"] + error.commandPath).joined(separator: " ")
            printError("\(error.message)\nSee '\(path) --help'.")
            return ExitStatus.usage.rawValue
        } catch let error as RefusedError {
            printError(error.message)
            return ExitStatus.refused.rawValue
        } catch let error as UnreachableError {
            printError(error.message)
            return ExitStatus.unreachable.rawValue
        } catch {
            printError("\(error)")
            return ExitStatus.refused.rawValue
        }
    }
}

/// `timectl help [COMMAND…]`.
struct Help: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "help",
        abstract: "Show help for a command.",
        arguments: [Positional(name: "command", help: "A command, e.g. 'projects add'.", optional: true, variadic: true)])

    var words: [String]

    init(_ arguments: ParsedArguments) throws {
        words = (arguments.argument("command") ?? "").split(separator: " ").map(String.init)
    }

    func run(_ context: Context) throws {
        var chain: [any ParsableCommand.Type] = [Timectl.self]
        for word in words {
            guard let sub = chain.last!.configuration.subcommands.first(where: { $0.configuration.name == word }) else {
                throw UsageError(message: "unknown command '\(words.joined(separator: " "))'", commandPath: ["help"])
            }
            chain.append(sub)
        }
        fputsOut(ArgumentParser.help(for: chain))
    }
}
