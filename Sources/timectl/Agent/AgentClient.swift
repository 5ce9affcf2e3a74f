import DBusCore
import TimeClient

/// How to bring the agent up, appended to every "cannot reach" message.
let startHint = "Start it with 'systemctl --user start time-agent', or 'scripts/run.sh' from the source tree."

/// D-Bus errors that mean nobody is there to answer (exit status 3) rather than a refusal.
private let unreachableErrors: Set<String> = [
    BusError.serviceUnknown, BusError.nameHasNoOwner, BusError.noReply, BusError.disconnected,
    BusError.timeout, "org.freedesktop.DBus.Error.NoServer", "org.freedesktop.DBus.Error.FileNotFound",
    "org.freedesktop.DBus.Error.TimedOut", "org.freedesktop.DBus.Error.BadAddress",
    "org.freedesktop.DBus.Error.IOError", "org.freedesktop.DBus.Error.Spawn.ExecFailed",
]

/// Translates a D-Bus error into timectl's error kinds.
func translate(_ error: BusError) -> Error {
    if unreachableErrors.contains(error.name) || error.name.hasPrefix("org.freedesktop.DBus.Error.Spawn.") {
        let detail = error.message.isEmpty ? error.name : error.message
        return UnreachableError(message: "cannot reach time-agent (\(detail)). \(startHint)")
    }
    let name = Time1.shortErrorName(error.name)
    return RefusedError(message: error.message.isEmpty ? error.name : TerminalWords.translate(error.message), name: name)
}

/// One method call of the agent's object.
typealias AgentCall = QuickCall.Call

extension QuickCall.Call {
    /// A call of the agent's object on `interface` (by default the Time1 interface).
    static func agent(_ member: String, _ arguments: [DBusValue] = [], interface: String = Time1.interface) -> AgentCall {
        AgentCall(destination: Time1.busName, path: Time1.path, interface: interface, member: member, arguments: arguments)
    }

    /// `GetAll` of the Time1 interface's properties.
    static let getAll = agent("GetAll", [.string(Time1.interface)], interface: Time1.properties)

    /// `Get` of one property of the Time1 interface.
    static func property(_ name: String) -> AgentCall {
        agent("Get", [.string(Time1.interface), .string(name)], interface: Time1.properties)
    }
}

extension Result where Success == [DBusValue], Failure == BusError {
    /// The reply, or its error in timectl's kinds (`translate`).
    func reply() throws -> [DBusValue] {
        switch self {
        case .success(let values): return values
        case .failure(let error): throw translate(error)
        }
    }
}

/// A client of time-agent on the session bus. Every call may start the agent through D-Bus activation.
final class AgentClient {
    let bus: BusConnection

    init() throws {
        do {
            bus = try BusConnection.session()
        } catch let error as BusError {
            throw UnreachableError(message: "cannot connect to the session bus (\(error.message)). "
                + "Is DBUS_SESSION_BUS_ADDRESS set? \(startHint)")
        }
    }

    init(bus: BusConnection) { self.bus = bus }

    /// Calls a method of the Time1 interface.
    @discardableResult
    func call(_ member: String, _ arguments: [DBusValue] = [], autoStart: Bool = true) throws -> [DBusValue] {
        try call(interface: Time1.interface, member, arguments, autoStart: autoStart)
    }

    @discardableResult
    func call(interface: String, _ member: String, _ arguments: [DBusValue], autoStart: Bool = true) throws -> [DBusValue] {
        do {
            let message = try Message(methodCall: Time1.busName, path: Time1.path, interface: interface, member: member)
            message.autoStart = autoStart
            try message.append(arguments)
            return try bus.call(message).arguments()
        } catch let error as BusError {
            throw translate(error)
        }
    }

    /// Makes several calls in one round trip (all are sent before any reply is awaited, and the
    /// agent handles them in order); each result is the call's reply or its error (see `reply()`).
    func callPipelined(_ calls: [AgentCall]) throws -> [Result<[DBusValue], BusError>] {
        do {
            let messages = try calls.map { call in
                let message = try Message(methodCall: call.destination, path: call.path, interface: call.interface, member: call.member)
                try message.append(call.arguments)
                return message
            }
            return try bus.callPipelined(messages)
        } catch let error as BusError {
            throw translate(error)
        }
    }

    func allProperties(autoStart: Bool = true) throws -> [String: DBusValue] {
        let reply = try call(interface: Time1.properties, "GetAll", [.string(Time1.interface)], autoStart: autoStart)
        return try AgentClient.properties(fromGetAll: reply)
    }

    static func properties(fromGetAll reply: [DBusValue]) throws -> [String: DBusValue] {
        guard let dictionary = reply.first?.variantDictionary else {
            throw RefusedError(message: "the agent answered GetAll with an unexpected reply")
        }
        return dictionary
    }

    func property(_ name: String) throws -> DBusValue {
        let reply = try call(interface: Time1.properties, "Get", [.string(Time1.interface), .string(name)])
        guard let value = reply.first?.variantValue else {
            throw RefusedError(message: "the agent answered Get(\(name)) with an unexpected reply")
        }
        return value
    }

    func setProperty(_ name: String, _ value: DBusValue) throws {
        try call(interface: Time1.properties, "Set", [.string(Time1.interface), .string(name), .variant(value)])
    }

    // MARK: Typed helpers

    func listProjects() throws -> [Project] {
        let reply = try call("ListProjects")
        return (reply.first?.arrayValue ?? []).compactMap { $0.variantDictionary }.map(Project.init)
    }

    /// The project a person means by `text`: its name (trimmed, case-insensitive), "#ID", or a bare ID.
    func resolveProject(_ text: String) throws -> Project {
        let projects = try listProjects()
        let wanted = text.trimmed
        if wanted.hasPrefix("#"), let id = UInt64(wanted.dropFirst()) {
            if let project = projects.first(where: { $0.id == id }) { return project }
            throw RefusedError(message: "no project has the id \(id)")
        }
        let folded = wanted.lowercased()
        if let project = projects.first(where: { $0.name.trimmed.lowercased() == folded }) { return project }
        if let id = UInt64(wanted), let project = projects.first(where: { $0.id == id }) { return project }
        throw RefusedError(message: "no project is named '\(wanted)' (see 'timectl projects --all')")
    }
}
