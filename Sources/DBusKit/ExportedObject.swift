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
    /// Runs after the reply to a `Get` of this property alone (not `GetAll`) is sent: a client
    /// that asks for one property again may have lost it.
    public var afterGet: (() -> Void)?

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
