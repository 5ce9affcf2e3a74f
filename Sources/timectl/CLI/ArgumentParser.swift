// A small command-line parser in the shape of swift-argument-parser: every subcommand is one type
// that declares its arguments and options (with their help text) in its `configuration`, builds
// itself from the parsed values in `init(_:)`, and does its work in `run(_:)`.

/// An option: a flag (`--json`) or an option with a value (`--color #3366cc`, `--color=#3366cc`).
struct Option: Sendable {
    var names: [String]
    /// The value's placeholder; nil for a flag.
    var valueName: String?
    var help: String

    static func flag(_ names: String..., help: String) -> Option {
        Option(names: names, valueName: nil, help: help)
    }

    static func value(_ names: String..., valueName: String, help: String) -> Option {
        Option(names: names, valueName: valueName, help: help)
    }

    var key: String { names[0] }
    var isFlag: Bool { valueName == nil }
}

/// A positional argument. A variadic one is last and takes every remaining word, joined by
/// spaces, so `timectl note fixed the build` needs no quotes.
struct Positional: Sendable {
    var name: String
    var help: String
    var optional = false
    var variadic = false
}

struct CommandConfiguration: Sendable {
    var name: String
    var abstract: String
    var discussion: String = ""
    var arguments: [Positional] = []
    var options: [Option] = []
    var subcommands: [any ParsableCommand.Type] = []
    /// False for a command that only groups subcommands.
    var runnable = true
    /// Not listed in its parent's help.
    var hidden = false
}

protocol ParsableCommand: SendableMetatype {
    static var configuration: CommandConfiguration { get }
    /// Reads the parsed arguments; throws `UsageError` for values that make no sense.
    init(_ arguments: ParsedArguments) throws
    func run(_ context: Context) throws
}

/// What the parser found for one command.
struct ParsedArguments {
    var commandPath: [String]
    var values: [String: String] = [:]
    var flags: Set<String> = []
    var positionals: [String: String] = [:]

    func value(_ name: String) -> String? { values[name] }
    func flag(_ name: String) -> Bool { flags.contains(name) }
    func argument(_ name: String) -> String? { positionals[name] }

    /// A required argument (the parser already checked that it is present).
    func required(_ name: String) -> String { positionals[name] ?? "" }

    func usageError(_ message: String) -> UsageError {
        UsageError(message: message, commandPath: commandPath)
    }
}

/// The result of parsing a command line.
enum ParseResult {
    case run(any ParsableCommand)
    case help([any ParsableCommand.Type])
    case version
}

enum ArgumentParser {
    static let helpOption = Option.flag("--help", "-h", help: "Show help information.")

    /// Finds the subcommand named by the leading words, then parses the rest against it.
    static func parse(_ arguments: [String], root: any ParsableCommand.Type) throws -> ParseResult {
        var chain: [any ParsableCommand.Type] = [root]
        var index = 0
        while index < arguments.count {
            let word = arguments[index]
            guard let sub = chain.last!.configuration.subcommands.first(where: { $0.configuration.name == word }) else { break }
            chain.append(sub)
            index += 1
        }
        let rest = Array(arguments[index...])
        let path = chain.dropFirst().map { $0.configuration.name }

        // --help anywhere before "--" wins over everything else.
        for word in rest {
            if word == "--" { break }
            if word == "--help" || word == "-h" { return .help(chain) }
        }
        if chain.count == 1, rest.first == "--version" || rest.first == "-V" { return .version }

        let command = chain.last!
        let configuration = command.configuration
        if !configuration.runnable {
            if let first = rest.first, !first.hasPrefix("-") {
                throw UsageError(message: "unknown command '\(first)'", commandPath: path)
            }
            if let first = rest.first {
                throw UsageError(message: "unknown option '\(first)'", commandPath: path)
            }
            throw UsageError(message: chain.count == 1 ? "missing command" : "missing subcommand", commandPath: path)
        }

        var parsed = ParsedArguments(commandPath: path)
        var words: [String] = []
        var onlyPositionals = false
        var i = 0
        while i < rest.count {
            let word = rest[i]
            i += 1
            if onlyPositionals || word == "-" || !word.hasPrefix("-") || isNumber(word) {
                words.append(word)
                continue
            }
            if word == "--" { onlyPositionals = true; continue }
            var name = word
            var inlineValue: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            guard let option = configuration.options.first(where: { $0.names.contains(name) }) else {
                throw UsageError(message: "unknown option '\(name)'", commandPath: path)
            }
            if option.isFlag {
                if inlineValue != nil {
                    throw UsageError(message: "option '\(name)' takes no value", commandPath: path)
                }
                parsed.flags.insert(option.key)
            } else if let inlineValue {
                parsed.values[option.key] = inlineValue
            } else {
                guard i < rest.count else {
                    throw UsageError(message: "option '\(name)' needs a value (\(option.valueName!))", commandPath: path)
                }
                parsed.values[option.key] = rest[i]
                i += 1
            }
        }

        let specs = configuration.arguments
        let required = specs.filter { !$0.optional }.count
        if words.count < required {
            let missing = specs[words.count]
            throw UsageError(message: "missing argument <\(missing.name)>", commandPath: path)
        }
        let variadic = specs.last?.variadic == true
        if !variadic && words.count > specs.count {
            let extra = words[specs.count]
            if specs.isEmpty && !configuration.subcommands.isEmpty {
                throw UsageError(message: "unknown command '\(extra)'", commandPath: path)
            }
            throw UsageError(message: "unexpected argument '\(extra)'", commandPath: path)
        }
        for (position, spec) in specs.enumerated() where position < words.count {
            if spec.variadic {
                parsed.positionals[spec.name] = words[position...].joined(separator: " ")
            } else {
                parsed.positionals[spec.name] = words[position]
            }
        }
        return .run(try command.init(parsed))
    }

    private static func isNumber(_ word: String) -> Bool {
        word.count > 1 && word.dropFirst().allSatisfy { $0.isNumber || $0 == "." }
    }

    // MARK: Help

    static func help(for chain: [any ParsableCommand.Type]) -> String {
        let command = chain.last!
        let configuration = command.configuration
        let path = chain.map { $0.configuration.name }.joined(separator: " ")
        var out = ""
        out += "OVERVIEW: \(configuration.abstract)\n"
        if !configuration.discussion.isEmpty {
            out += "\n" + configuration.discussion + "\n"
        }
        out += "\nUSAGE: \(path)"
        if !configuration.runnable {
            out += " <subcommand>"
        } else {
            if !configuration.subcommands.isEmpty { out += " [<subcommand>]" }
            for option in configuration.options {
                let text = option.isFlag ? option.key : "\(option.key) <\(option.valueName!)>"
                out += " [\(text)]"
            }
            for argument in configuration.arguments {
                var text = "<\(argument.name)>"
                if argument.variadic { text += " ..." }
                out += argument.optional ? " [\(text)]" : " \(text)"
            }
        }
        out += "\n"

        func rows(_ title: String, _ items: [(String, String)]) {
            guard !items.isEmpty else { return }
            out += "\n\(title):\n"
            let width = min(max(items.map { $0.0.count }.max() ?? 0, 10), 28)
            for (left, right) in items {
                let lines = right.split(separator: "\n", omittingEmptySubsequences: false)
                if left.count > width {
                    out += "  \(left)\n"
                    for line in lines { out += "  " + String(repeating: " ", count: width + 2) + line + "\n" }
                } else {
                    out += "  " + left + String(repeating: " ", count: width - left.count + 2) + lines[0] + "\n"
                    for line in lines.dropFirst() { out += "  " + String(repeating: " ", count: width + 2) + line + "\n" }
                }
            }
        }
        rows("ARGUMENTS", configuration.arguments.map { ("<\($0.name)>", $0.help) })
        var options = configuration.options.map { option -> (String, String) in
            var left = option.names.sorted { $0.count < $1.count }.joined(separator: ", ")
            if let value = option.valueName { left += " <\(value)>" }
            return (left, option.help)
        }
        if chain.count == 1 { options.append(("-V, --version", "Show the version.")) }
        options.append(("-h, --help", helpOption.help))
        rows("OPTIONS", options)
        rows("SUBCOMMANDS", configuration.subcommands.filter { !$0.configuration.hidden }
            .map { ($0.configuration.name, $0.configuration.abstract) })
        if !configuration.subcommands.isEmpty {
            out += "\n  See '\(chain[0].configuration.name) help <subcommand>' for detailed help.\n"
        }
        return out
    }
}
