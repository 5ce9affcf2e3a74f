import DBusCore

/// A command without arguments that calls one method of the agent and prints one line made
/// from its reply (pause, resume, toggle, stop, undo, redo, sync disable). The command declares
/// only its `call`: its name and help, the method, the line; parsing and running are shared.
protocol OneCallCommand: ParsableCommand {
    init()
    static var call: OneCall { get }
}

/// What a `OneCallCommand` is: its name and help, the method it calls and the line it prints.
struct OneCall: Sendable {
    var configuration: CommandConfiguration
    var method: String
    /// Through `Context.quickCall` (one round trip, for the commands bound to keys), else the client.
    var quick: Bool
    var line: @Sendable ([DBusValue]) -> String

    init(_ method: String, quick: Bool = false, name: String, abstract: String, discussion: String = "",
         line: @escaping @Sendable ([DBusValue]) -> String) {
        configuration = CommandConfiguration(name: name, abstract: abstract, discussion: discussion)
        self.method = method
        self.quick = quick
        self.line = line
    }
}

extension OneCallCommand {
    static var configuration: CommandConfiguration { call.configuration }

    init(_ arguments: ParsedArguments) throws { self.init() }

    func run(_ context: Context) throws {
        let reply = Self.call.quick ? try context.quickCall(Self.call.method) : try context.agent().call(Self.call.method)
        output(Self.call.line(reply))
    }
}
