import PathTrace
import CDBus

// One declarative table per object, in the spirit of sd-bus vtables: dispatch, signature
// checks, introspection, Properties and change signals all come from it.

/// A named, typed argument of a method or signal.
public struct Argument: Sendable, Equatable {
    public var name: String
    public var signature: String
    public init(_ name: String, _ signature: String) {
        self.name = name
        self.signature = signature
    }
}

/// An incoming method call, as a handler sees it.
public final class MethodCall {
    public let message: Message
    /// The arguments, already checked against the method's in-signature.
    public let arguments: [DBusValue]
    public let connection: BusConnection
    /// Runs after the reply has been sent and flushed: work that must not delay the caller.
    public var afterReply: (() -> Void)?

    init(message: Message, arguments: [DBusValue], connection: BusConnection) {
        self.message = message
        self.arguments = arguments
        self.connection = connection
    }

    /// The unique bus name of the caller.
    public var sender: String? { message.sender }
}

public struct Method {
    public var name: String
    public var inArgs: [Argument]
    public var outArgs: [Argument]
    public var doc: String?
    public var annotations: [String: String]
    public var handler: (MethodCall) throws -> [DBusValue]

    public init(name: String, inArgs: [Argument] = [], outArgs: [Argument] = [], doc: String? = nil,
                annotations: [String: String] = [:], handler: @escaping (MethodCall) throws -> [DBusValue]) {
        self.name = name
        self.inArgs = inArgs
        self.outArgs = outArgs
        self.doc = doc
        self.annotations = annotations
        self.handler = handler
    }

    public var inSignature: String { inArgs.map(\.signature).joined() }
    public var outSignature: String { outArgs.map(\.signature).joined() }
}

public struct Property {
    public enum Access: String, Sendable { case read, readWrite = "readwrite" }
    /// `org.freedesktop.DBus.Property.EmitsChangedSignal`.
    public enum EmitsChange: String, Sendable { case `true`, invalidates, const, `false` }

    public var name: String
    public var signature: String
    public var access: Access
    public var emitsChange: EmitsChange
    public var doc: String?
    public var get: () -> DBusValue
    public var set: ((DBusValue) throws -> Void)?
    /// The setter announces the change itself, together with whatever else it changed (one
    /// PropertiesChanged for the whole change), so Set sends none of its own.
    public var setterAnnounces: Bool

    public init(name: String, signature: String, access: Access = .read, emitsChange: EmitsChange = .true,
                doc: String? = nil, setterAnnounces: Bool = false, get: @escaping () -> DBusValue,
                set: ((DBusValue) throws -> Void)? = nil) {
        self.name = name
        self.signature = signature
        self.access = access
        self.emitsChange = emitsChange
        self.doc = doc
        self.setterAnnounces = setterAnnounces
        self.get = get
        self.set = set
    }
}

public struct Signal {
    public var name: String
    public var args: [Argument]
    public var doc: String?
    public init(name: String, args: [Argument] = [], doc: String? = nil) {
        self.name = name
        self.args = args
        self.doc = doc
    }
}

public struct Interface {
    public var name: String
    public var methods: [Method]
    public var properties: [Property]
    public var signals: [Signal]
    public var annotations: [String: String]

    public init(name: String, methods: [Method] = [], properties: [Property] = [], signals: [Signal] = [],
                annotations: [String: String] = [:]) {
        self.name = name
        self.methods = methods
        self.properties = properties
        self.signals = signals
        self.annotations = annotations
    }

    public func method(named name: String) -> Method? { methods.first { $0.name == name } }
    public func property(named name: String) -> Property? { properties.first { $0.name == name } }
}

public struct ExportedObject {
    public var path: String
    public var interfaces: [Interface]
    public init(path: String, interfaces: [Interface]) {
        self.path = path
        self.interfaces = interfaces
    }
    public func interface(named name: String) -> Interface? { interfaces.first { $0.name == name } }
}

// MARK: - Standard interfaces

public enum StandardInterface {
    public static let introspectable = "org.freedesktop.DBus.Introspectable"
    public static let properties = "org.freedesktop.DBus.Properties"
    public static let peer = "org.freedesktop.DBus.Peer"

    private static func unused(_ call: MethodCall) throws -> [DBusValue] { [] }

    /// Descriptions of the standard interfaces every exported object serves (for introspection).
    public static var descriptions: [Interface] { [
        Interface(name: introspectable, methods: [
            Method(name: "Introspect", outArgs: [Argument("xml_data", "s")], handler: unused),
        ]),
        Interface(name: peer, methods: [
            Method(name: "Ping", handler: unused),
            Method(name: "GetMachineId", outArgs: [Argument("machine_uuid", "s")], handler: unused),
        ]),
        Interface(name: properties, methods: [
            Method(name: "Get", inArgs: [Argument("interface_name", "s"), Argument("property_name", "s")],
                   outArgs: [Argument("value", "v")], handler: unused),
            Method(name: "GetAll", inArgs: [Argument("interface_name", "s")],
                   outArgs: [Argument("props", "a{sv}")], handler: unused),
            Method(name: "Set", inArgs: [Argument("interface_name", "s"), Argument("property_name", "s"),
                                         Argument("value", "v")], handler: unused),
        ], signals: [
            Signal(name: "PropertiesChanged", args: [Argument("interface_name", "s"),
                                                     Argument("changed_properties", "a{sv}"),
                                                     Argument("invalidated_properties", "as")]),
        ]),
    ] }
}

// MARK: - Registration and dispatch

extension BusConnection {
    /// Registers `object` at its path (possible before `requestName`).
    public func export(object: ExportedObject) throws {
        try Validation.checkObjectPath(object.path)
        for interface in object.interfaces {
            try Validation.checkInterface(interface.name)
            for method in interface.methods {
                guard Signature.isValid(method.inSignature), Signature.isValid(method.outSignature) else {
                    throw BusError(name: BusError.invalidSignature, message: "Bad signature in method \(interface.name).\(method.name)")
                }
            }
            for property in interface.properties where !Signature.isSingleCompleteType(property.signature) {
                throw BusError(name: BusError.invalidSignature, message: "Bad signature of property \(interface.name).\(property.name)")
            }
        }
        let raw = try connection()
        let registration = ObjectRegistration(object: object, connection: self)
        var vtable = DBusObjectPathVTable(unregister_function: nil, message_function: objectMessage,
                                          dbus_internal_pad1: nil, dbus_internal_pad2: nil,
                                          dbus_internal_pad3: nil, dbus_internal_pad4: nil)
        _ = try withDBusError {
            dbus_connection_try_register_object_path(raw, object.path, &vtable,
                                                     Unmanaged.passUnretained(registration).toOpaque(), $0)
        }
        registrations[object.path] = registration
    }

    /// Unregisters the object at `path`.
    public func unexport(path: String) {
        guard registrations[path] != nil, let raw else { return }
        dbus_connection_unregister_object_path(raw, path)
        registrations[path] = nil
    }

    /// Emits one `PropertiesChanged` signal with every change.
    public func emitPropertiesChanged(path: String, interface: String, changed: [String: DBusValue],
                                      invalidated: [String] = []) throws {
        try emitSignal(path: path, interface: StandardInterface.properties, name: "PropertiesChanged",
                       arguments: [.string(interface), .vardict(changed), .stringArray(invalidated)])
    }

    /// Children of `path` registered on this connection (names of the next path element).
    func registeredChildren(of path: String) -> [String] {
        guard let raw else { return [] }
        var children: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        guard dbus_connection_list_registered(raw, path, &children) != 0, let children else { return [] }
        defer { dbus_free_string_array(children) }
        var names: [String] = []
        var index = 0
        while let name = children[index] {
            names.append(String(cString: name))
            index += 1
        }
        return names.sorted()
    }
}

final class ObjectRegistration {
    let object: ExportedObject
    weak var connection: BusConnection?

    init(object: ExportedObject, connection: BusConnection) {
        self.object = object
        self.connection = connection
    }

    /// Handles one method call; false when it is not for us (libdbus then answers).
    func handle(_ message: Message) -> Bool {
        guard message.kind == .methodCall, let connection, let member = message.member else { return false }
        PathTrace.begin()
        defer { PathTrace.end() }
        let call: MethodCall
        var result: Result<[DBusValue], Error>
        do {
            let arguments = try message.arguments()
            call = MethodCall(message: message, arguments: arguments, connection: connection)
            PathTrace.mark("decode: the message's arguments")
        } catch {
            reply(to: message, on: connection, result: .failure(error), after: nil)
            return true
        }
        do {
            result = .success(try dispatch(interface: message.interface, member: member, call: call))
        } catch {
            result = .failure(error)
        }
        reply(to: message, on: connection, result: result, after: call.afterReply)
        return true
    }

    private func reply(to message: Message, on connection: BusConnection, result: Result<[DBusValue], Error>,
                       after: (() -> Void)?) {
        if !message.noReply {
            var response: Message?
            switch result {
            case .success(let values):
                if let reply = try? Message(replyTo: message) {
                    do {
                        try reply.append(values)
                        response = reply
                    } catch {
                        response = try? Message(errorReplyTo: message, error: BusError(
                            name: BusError.failed, message: "The reply could not be encoded: \(error)"))
                    }
                }
            case .failure(let error):
                let busError = error as? BusError ?? BusError(name: BusError.failed, message: "\(error)")
                response = try? Message(errorReplyTo: message, error: busError)
            }
            PathTrace.mark("reply: built")
            if let response { _ = try? connection.send(response) }
            PathTrace.mark("reply: sent")
        }
        if let after {
            connection.flush()
            PathTrace.mark("reply: flushed to the bus")
            after()
        }
    }

    private func dispatch(interface: String?, member: String, call: MethodCall) throws -> [DBusValue] {
        let signature = call.message.signature
        func check(_ expected: String) throws {
            guard signature == expected else {
                throw BusError(name: BusError.invalidArgs,
                               message: "Invalid arguments for \(member): expected signature '\(expected)', got '\(signature)'")
            }
        }
        // The standard interfaces first.
        switch (interface, member) {
        case (StandardInterface.introspectable?, "Introspect"), (nil, "Introspect"):
            try check("")
            let children = call.connection.registeredChildren(of: object.path)
            return [.string(introspectionXML(interfaces: object.interfaces, children: children))]
        case (StandardInterface.peer?, "Ping"), (nil, "Ping"):
            try check("")
            return []
        case (StandardInterface.peer?, "GetMachineId"), (nil, "GetMachineId"):
            try check("")
            guard let id = dbus_get_local_machine_id() else { throw BusError.noMemory }
            defer { dbus_free(id) }
            return [.string(String(cString: id))]
        case (StandardInterface.properties?, _):
            return try properties(member: member, call: call, check: check)
        default:
            break
        }
        let candidates = interface.map { name in object.interfaces.filter { $0.name == name } } ?? object.interfaces
        if let interface, candidates.isEmpty {
            throw BusError(name: BusError.unknownInterface, message: "Unknown interface '\(interface)' at \(object.path)")
        }
        guard let method = candidates.lazy.compactMap({ $0.method(named: member) }).first else {
            throw BusError(name: BusError.unknownMethod,
                           message: "Unknown method '\(member)'\(interface.map { " of interface '\($0)'" } ?? "") at \(object.path)")
        }
        try check(method.inSignature)
        let values = try method.handler(call)
        let returned = DBusValue.signature(of: values)
        guard returned == method.outSignature else {
            throw BusError(name: BusError.failed,
                           message: "\(member) returned signature '\(returned)' instead of '\(method.outSignature)'")
        }
        return values
    }

    private func lookUp(_ interfaceName: String) throws -> Interface {
        guard let interface = object.interface(named: interfaceName) else {
            throw BusError(name: BusError.unknownInterface, message: "Unknown interface '\(shown(interfaceName))' at \(object.path)")
        }
        return interface
    }

    private func lookUp(_ propertyName: String, in interface: Interface) throws -> Property {
        guard let property = interface.property(named: propertyName) else {
            throw BusError(name: BusError.unknownProperty,
                           message: "Unknown property '\(shown(propertyName))' of interface '\(interface.name)'")
        }
        return property
    }

    private func properties(member: String, call: MethodCall, check: (String) throws -> Void) throws -> [DBusValue] {
        let args = call.arguments
        switch member {
        case "Get":
            try check("ss")
            let interface = try lookUp(args[0].stringValue!)
            let property = try lookUp(args[1].stringValue!, in: interface)
            return [.variant(property.get())]
        case "GetAll":
            try check("s")
            let name = args[0].stringValue!
            guard let interface = object.interface(named: name) else {
                if name.isEmpty || StandardInterface.descriptions.contains(where: { $0.name == name }) {
                    return [.vardict([:])]
                }
                throw BusError(name: BusError.unknownInterface, message: "Unknown interface '\(shown(name))' at \(object.path)")
            }
            var values: [String: DBusValue] = [:]
            for property in interface.properties { values[property.name] = property.get() }
            return [.vardict(values)]
        case "Set":
            try check("ssv")
            let interface = try lookUp(args[0].stringValue!)
            let property = try lookUp(args[1].stringValue!, in: interface)
            guard property.access == .readWrite, let setter = property.set else {
                throw BusError(name: BusError.propertyReadOnly, message: "Property '\(property.name)' is read-only")
            }
            guard let value = args[2].variantValue, value.signature == property.signature else {
                throw BusError(name: BusError.invalidArgs,
                               message: "Property '\(property.name)' has type '\(property.signature)', got '\(args[2].variantValue?.signature ?? "")'")
            }
            let before = property.get()
            try setter(value)
            // PropertiesChanged announces a change: a Set to the current value is none.
            guard !property.setterAnnounces, property.get() != before else { return [] }
            switch property.emitsChange {
            case .true:
                try call.connection.emitPropertiesChanged(path: object.path, interface: interface.name,
                                                          changed: [property.name: property.get()])
            case .invalidates:
                try call.connection.emitPropertiesChanged(path: object.path, interface: interface.name,
                                                          changed: [:], invalidated: [property.name])
            case .const, .false:
                break
            }
            return []
        default:
            throw BusError(name: BusError.unknownMethod, message: "Unknown method '\(member)' of interface '\(StandardInterface.properties)'")
        }
    }
}

private func objectMessage(_ connection: OpaquePointer?, _ message: OpaquePointer?, _ data: UnsafeMutableRawPointer?) -> DBusHandlerResult {
    guard let message, let data else { return DBusHandlerResult(rawValue: 1) }
    let registration = Unmanaged<ObjectRegistration>.fromOpaque(data).takeUnretainedValue()
    // A handler may close the connection, which drops the registration: keep it alive until done.
    let handled = withExtendedLifetime(registration) { registration.handle(Message(raw: message, retain: true)) }
    return DBusHandlerResult(rawValue: handled ? 0 : 1)   // HANDLED : NOT_YET_HANDLED
}

/// A caller's string as an error message echoes it: at most 80 characters, so a 1 MiB argument
/// never comes back as a 1 MiB error.
func shown(_ text: String) -> String {
    text.count <= 80 ? text : String(text.prefix(80)) + "…"
}
