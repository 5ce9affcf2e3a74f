import CDBus
import Glibc

/// Reply of `RequestName` (`DBUS_REQUEST_NAME_REPLY_*`).
public enum RequestNameReply: UInt32, Sendable {
    case primaryOwner = 1
    case inQueue = 2
    case exists = 3
    case alreadyOwner = 4
}

/// Flags of `RequestName` (`DBUS_NAME_FLAG_*`).
public struct RequestNameFlags: OptionSet, Sendable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let allowReplacement = RequestNameFlags(rawValue: 1)
    public static let replaceExisting = RequestNameFlags(rawValue: 2)
    public static let doNotQueue = RequestNameFlags(rawValue: 4)
}

/// A private connection to a message bus; owns the `DBusConnection*` (closed and unreferenced by
/// `close()` or deinit).
public final class BusConnection {
    /// The underlying libdbus connection (nil once closed).
    public private(set) var raw: OpaquePointer?
    /// What drives this connection from a main loop (DBusKit's GLib integration); detached on close.
    public var driver: (any ConnectionDriver)?
    private var filterInstalled = false
    private var signalHandlers: [(id: Int, handler: (Message) -> Void)] = []
    private var nextHandlerID = 0
    var registrations: [String: ObjectRegistration] = [:]

    /// Called once when the bus goes away (the local `Disconnected` signal is dispatched).
    public var onDisconnect: (() -> Void)?

    /// Connects to the session bus named by `DBUS_SESSION_BUS_ADDRESS` (libdbus' default lookup
    /// when it is unset) on a new private connection, and registers with the bus.
    public static func session() throws -> BusConnection {
        if let address = getenv("DBUS_SESSION_BUS_ADDRESS"), address.pointee != 0 {
            return try BusConnection(address: String(cString: address))
        }
        let connection = try withDBusError { dbus_bus_get_private(DBUS_BUS_SESSION, $0) }
        guard let connection else { throw BusError(name: BusError.failed, message: "Cannot connect to the session bus") }
        return BusConnection(adopting: connection)
    }

    /// Opens a private connection to `address`; `register` sends the bus `Hello`.
    public init(address: String, register: Bool = true) throws {
        let connection = try withDBusError { dbus_connection_open_private(address, $0) }
        guard let connection else { throw BusError(name: BusError.failed, message: "Cannot connect to \(address)") }
        raw = connection
        dbus_connection_set_exit_on_disconnect(connection, 0)
        if register {
            do {
                _ = try withDBusError { dbus_bus_register(connection, $0) }
            } catch {
                close()
                throw error
            }
        }
        installFilter()
    }

    private init(adopting connection: OpaquePointer) {
        raw = connection
        dbus_connection_set_exit_on_disconnect(connection, 0)
        installFilter()
    }

    deinit { close() }

    private func installFilter() {
        guard let raw else { return }
        filterInstalled = dbus_connection_add_filter(raw, connectionFilter, Unmanaged.passUnretained(self).toOpaque(), nil) != 0
    }

    func connection() throws -> OpaquePointer {
        guard let raw else { throw BusError(name: BusError.disconnected, message: "The connection is closed") }
        return raw
    }

    /// The unique name the bus gave this connection (":1.42").
    public var uniqueName: String? {
        guard let raw, let name = dbus_bus_get_unique_name(raw) else { return nil }
        return String(cString: name)
    }

    /// The id the server answered the authentication with: what an address' `guid=` must name.
    /// (dbus-daemon's equals its GetId; dbus-broker gives each listening socket an id of its own.)
    public var serverID: String? {
        guard let raw, let id = dbus_connection_get_server_id(raw) else { return nil }
        defer { dbus_free(id) }
        return String(cString: id)
    }

    public var isConnected: Bool {
        guard let raw else { return false }
        return dbus_connection_get_is_connected(raw) != 0
    }

    /// Closes the connection: its driver detached, objects unregistered, connection closed and
    /// unreferenced. Safe to call twice, and from inside a handler.
    public func close() {
        guard let raw else { return }
        driver?.detach()
        for path in registrations.keys { dbus_connection_unregister_object_path(raw, path) }
        if filterInstalled {
            dbus_connection_remove_filter(raw, connectionFilter, Unmanaged.passUnretained(self).toOpaque())
            filterInstalled = false
        }
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
        self.raw = nil
        // Kept until here: a dispatch in progress may still reference them.
        driver = nil
        registrations = [:]
        signalHandlers = []
    }

    /// Blocks until every queued outgoing message is written.
    public func flush() {
        if let raw { dbus_connection_flush(raw) }
    }

    // MARK: Bus names

    @discardableResult
    public func requestName(_ name: String, flags: RequestNameFlags = [.doNotQueue]) throws -> RequestNameReply {
        try Validation.checkBusName(name)
        let raw = try connection()
        let result = try withDBusError { dbus_bus_request_name(raw, name, flags.rawValue, $0) }
        guard result > 0, let reply = RequestNameReply(rawValue: UInt32(result)) else {
            throw BusError(name: BusError.failed, message: "RequestName returned \(result)")
        }
        return reply
    }

    /// Releases a well-known name; true if it was owned.
    @discardableResult
    public func releaseName(_ name: String) throws -> Bool {
        try Validation.checkBusName(name)
        let raw = try connection()
        return try withDBusError { dbus_bus_release_name(raw, name, $0) } == 1
    }

    public func nameHasOwner(_ name: String) throws -> Bool {
        try Validation.checkBusName(name)
        let raw = try connection()
        return try withDBusError { dbus_bus_name_has_owner(raw, name, $0) } != 0
    }

    /// The unique name owning `name`; throws NameHasNoOwner when nobody does.
    public func getNameOwner(_ name: String) throws -> String {
        let reply = try call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                             interface: "org.freedesktop.DBus", member: "GetNameOwner",
                             arguments: [.string(name)])
        guard let owner = reply.first?.stringValue else {
            throw BusError(name: BusError.failed, message: "GetNameOwner returned no name")
        }
        return owner
    }

    /// Adds a match rule, e.g. "type='signal',interface='org.freedesktop.DBus.Properties'".
    public func addMatch(_ rule: String) throws {
        try Validation.checkString(rule)
        let raw = try connection()
        try withDBusError { dbus_bus_add_match(raw, rule, $0) }
    }

    public func removeMatch(_ rule: String) throws {
        try Validation.checkString(rule)
        let raw = try connection()
        try withDBusError { dbus_bus_remove_match(raw, rule, $0) }
    }

    // MARK: Client side

    /// Calls a method and blocks for the reply (D-Bus activation allowed). A remote error is
    /// thrown as a `BusError` with its name and message. `timeoutMilliseconds` -1: libdbus' default.
    public func call(destination: String?, path: String, interface: String?, member: String,
                     arguments: [DBusValue] = [], timeoutMilliseconds: Int32 = -1) throws -> [DBusValue] {
        let message = try Message(methodCall: destination, path: path, interface: interface, member: member)
        message.autoStart = true
        try message.append(arguments)
        return try call(message, timeoutMilliseconds: timeoutMilliseconds).arguments()
    }

    /// Sends a method call and blocks for its reply message.
    public func call(_ message: Message, timeoutMilliseconds: Int32 = -1) throws -> Message {
        let raw = try connection()
        let reply = try withDBusError { dbus_connection_send_with_reply_and_block(raw, message.raw, timeoutMilliseconds, $0) }
        guard let reply else { throw BusError(name: BusError.noReply, message: "No reply") }
        return Message(raw: reply, retain: false)
    }

    /// Queues a message for sending; returns its serial.
    @discardableResult
    public func send(_ message: Message) throws -> UInt32 {
        let raw = try connection()
        var serial: UInt32 = 0
        guard dbus_connection_send(raw, message.raw, &serial) != 0 else { throw BusError.noMemory }
        return serial
    }

    /// Emits a signal.
    public func emitSignal(path: String, interface: String, name: String, arguments: [DBusValue] = []) throws {
        let message = try Message(signal: path, interface: interface, member: name)
        try message.append(arguments)
        try send(message)
    }

    /// Calls `handler` for every signal this connection receives (see `addMatch` for signals
    /// not addressed to it). Returns an id for `removeSignalHandler`.
    @discardableResult
    public func onSignal(handler: @escaping (Message) -> Void) -> Int {
        nextHandlerID += 1
        signalHandlers.append((nextHandlerID, handler))
        return nextHandlerID
    }

    public func removeSignalHandler(_ id: Int) {
        signalHandlers.removeAll { $0.id == id }
    }

    fileprivate func filter(_ message: Message) {
        guard message.kind == .signal else { return }
        if message.isSignal(interface: "org.freedesktop.DBus.Local", member: "Disconnected"),
           message.path == "/org/freedesktop/DBus/Local" {
            let callback = onDisconnect
            onDisconnect = nil
            callback?()
            return
        }
        for entry in signalHandlers { entry.handler(message) }
    }
}

private let handlerResultNotYetHandled = DBusHandlerResult(rawValue: 1)

private func connectionFilter(_ connection: OpaquePointer?, _ message: OpaquePointer?, _ data: UnsafeMutableRawPointer?) -> DBusHandlerResult {
    guard let message, let data else { return handlerResultNotYetHandled }
    let bus = Unmanaged<BusConnection>.fromOpaque(data).takeUnretainedValue()
    withExtendedLifetime(bus) { bus.filter(Message(raw: message, retain: true)) }
    return handlerResultNotYetHandled
}

/// Drives a connection's watches, timeouts and dispatch from a main loop (`attachToMainContext`
/// in DBusKit does it on GLib's). This module needs no main loop: a one-shot client (timectl)
/// blocks on its calls and so loads neither GLib nor GObject.
public protocol ConnectionDriver: AnyObject {
    /// Stops driving the connection (called by `close()` before the connection is closed).
    func detach()
}
