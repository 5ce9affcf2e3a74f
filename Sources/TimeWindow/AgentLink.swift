import DBusKit
import GtkKit
import TimeClient

/// An error the agent answered with, in its own words, or why it could not be asked.
public struct AgentError: Error, Equatable {
    /// The contract's name (`NoSuchProject`), or `Unreachable` when nobody answered.
    public var name: String
    public var message: String

    public init(name: String, message: String) { (self.name, self.message) = (name, message) }

    init(_ error: BusError) {
        let unreachable = error.name.hasPrefix("org.freedesktop.DBus.Error.")
            && !error.name.hasSuffix("InvalidArgs") && !error.name.hasSuffix("UnknownMethod")
        name = unreachable ? "Unreachable" : Time1.shortErrorName(error.name)
        message = unreachable ? "Time's agent did not answer (\(error.message)); the window reconnects by itself."
            : (error.message.isEmpty ? error.name : error.message)
    }
}

/// One call of the agent, as a view model asks for it (tested without a bus).
public struct AgentRequest: Equatable, Sendable {
    public var member: String
    public var arguments: [DBusValue]
    public init(_ member: String, _ arguments: [DBusValue] = []) { (self.member, self.arguments) = (member, arguments) }
}

/// The window's line to time-agent on the session bus, driven by GTK's main loop: asynchronous
/// calls (never blocking a frame), the properties kept current from `PropertiesChanged`, and
/// the agent's name followed, so that a restarted agent is found again. Nothing polls: a retry
/// timer runs only while the agent is gone.
public final class AgentLink {
    public enum Status: Equatable { case connecting, connected, reconnecting }

    private let bus: BusConnection
    public private(set) var properties = AgentProperties()
    public private(set) var status: Status = .connecting
    /// Called after the properties changed (the keys that did) or the status changed (empty set).
    public var onChange: ((Set<String>) -> Void)?
    /// Calls sent and not answered yet.
    public private(set) var callsInFlight = 0
    /// Called when the last call in flight has been answered (and what its answer started was sent).
    public var onSettled: (() -> Void)?
    private var retry: MainLoopTimer?
    private var retryDelay: UInt32 = 500
    private var signalHandler = 0

    public init() throws {
        bus = try BusConnection.session()
        bus.attachToMainContext(nil)
        try bus.addMatch(Time1.propertiesChangedRule)
        try bus.addMatch(Time1.ownerChangedRule)
        signalHandler = bus.onSignal { [weak self] message in self?.received(message) }
    }

    deinit { bus.removeSignalHandler(signalHandler) }

    /// Reads every property (starting the agent through D-Bus activation when it is not running).
    public func connect() {
        call(AgentRequest("GetAll", [.string(Time1.interface)]), interface: Time1.properties) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success(let reply):
                self.properties = AgentProperties(reply.first?.variantDictionary ?? [:])
                self.status = .connected
                self.retryDelay = 500
                self.retry = nil
                self.onChange?(Set(self.properties.values.keys))
            case .failure:
                self.lost()
            }
        }
    }

    /// Sends `request`; `reply` runs on the main loop with the answer.
    public func call(_ request: AgentRequest, interface: String = Time1.interface,
                     reply: @escaping (Result<[DBusValue], AgentError>) -> Void) {
        do {
            let message = try Message(methodCall: Time1.busName, path: Time1.path, interface: interface, member: request.member)
            message.autoStart = true
            try message.append(request.arguments)
            callsInFlight += 1
            do {
                try bus.callAsync(message, timeoutMilliseconds: 30_000) { [weak self] result in
                    reply(result.mapError(AgentError.init))
                    // After the reply ran: a call it sent in turn keeps the count above zero.
                    guard let self else { return }
                    self.callsInFlight -= 1
                    if self.callsInFlight == 0 { self.onSettled?() }
                }
            } catch {
                callsInFlight -= 1
                throw error
            }
        } catch let error as BusError {
            reply(.failure(AgentError(error)))
        } catch {
            reply(.failure(AgentError(name: "Failed", message: "\(error)")))
        }
    }

    /// Sets a read-write property.
    public func set(_ name: String, _ value: DBusValue, reply: @escaping (Result<[DBusValue], AgentError>) -> Void) {
        call(AgentRequest("Set", [.string(Time1.interface), .string(name), .variant(value)]),
             interface: Time1.properties, reply: reply)
    }

    private func received(_ message: Message) {
        if message.isSignal(interface: Time1.properties, member: "PropertiesChanged"), message.path == Time1.path {
            guard let arguments = try? message.arguments(), arguments.count >= 2,
                  arguments[0].stringValue == Time1.interface,
                  let changed = arguments[1].variantDictionary else { return }
            properties.merge(changed)
            onChange?(Set(changed.keys))
        } else if message.isSignal(interface: "org.freedesktop.DBus", member: "NameOwnerChanged"),
                  let arguments = try? message.arguments(), arguments.count == 3,
                  arguments[0].stringValue == Time1.busName {
            if arguments[2].stringValue?.isEmpty == false {
                connect()
            } else {
                lost()
            }
        }
    }

    /// The agent went away: say so, and ask again after a while (the bus starts it again).
    private func lost() {
        if status != .reconnecting {
            status = .reconnecting
            onChange?([])
        }
        guard retry?.isPending != true else { return }
        retry = MainLoopTimer(milliseconds: retryDelay) { [weak self] in self?.connect() }
        retryDelay = min(retryDelay * 2, 5_000)
    }
}
