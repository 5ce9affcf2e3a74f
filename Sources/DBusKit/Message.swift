import CDBus

/// A D-Bus message; owns one reference to a `DBusMessage*`.
public final class Message {
    /// The kind of message (`DBUS_MESSAGE_TYPE_*`).
    public struct Kind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let invalid = Kind(rawValue: 0)
        public static let methodCall = Kind(rawValue: 1)
        public static let methodReturn = Kind(rawValue: 2)
        public static let error = Kind(rawValue: 3)
        public static let signal = Kind(rawValue: 4)
        public var description: String {
            switch self {
            case .methodCall: return "method_call"
            case .methodReturn: return "method_return"
            case .error: return "error"
            case .signal: return "signal"
            default: return "invalid"
            }
        }
    }

    /// The underlying libdbus message.
    public let raw: OpaquePointer

    /// Takes ownership of one reference (`retain: false`) or adds one (`retain: true`).
    public init(raw: OpaquePointer, retain: Bool) {
        self.raw = raw
        if retain { dbus_message_ref(raw) }
    }

    deinit { dbus_message_unref(raw) }

    private static func make(_ pointer: OpaquePointer?) throws -> OpaquePointer {
        guard let pointer else { throw BusError.noMemory }
        return pointer
    }

    /// A method call. `destination` nil for peer-to-peer.
    public convenience init(methodCall destination: String?, path: String, interface: String?, member: String) throws {
        if let destination { try Validation.checkBusName(destination) }
        try Validation.checkObjectPath(path)
        if let interface { try Validation.checkInterface(interface) }
        try Validation.checkMember(member)
        self.init(raw: try Message.make(dbus_message_new_method_call(destination, path, interface, member)), retain: false)
    }

    /// A signal.
    public convenience init(signal path: String, interface: String, member: String) throws {
        try Validation.checkObjectPath(path)
        try Validation.checkInterface(interface)
        try Validation.checkMember(member)
        self.init(raw: try Message.make(dbus_message_new_signal(path, interface, member)), retain: false)
    }

    /// A method return replying to `call`.
    public convenience init(replyTo call: Message) throws {
        self.init(raw: try Message.make(dbus_message_new_method_return(call.raw)), retain: false)
    }

    /// An error reply to `call`.
    public convenience init(errorReplyTo call: Message, error: BusError) throws {
        var name = error.name
        if (try? Validation.checkErrorName(name)) == nil { name = BusError.failed }
        var text = error.message
        if (try? Validation.checkString(text)) == nil { text = "(unprintable error message)" }
        self.init(raw: try Message.make(dbus_message_new_error(call.raw, name, text)), retain: false)
    }

    private static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    public var kind: Kind { Kind(rawValue: dbus_message_get_type(raw)) }
    public var path: String? { Message.string(dbus_message_get_path(raw)) }
    public var interface: String? { Message.string(dbus_message_get_interface(raw)) }
    public var member: String? { Message.string(dbus_message_get_member(raw)) }
    public var sender: String? { Message.string(dbus_message_get_sender(raw)) }
    public var destination: String? { Message.string(dbus_message_get_destination(raw)) }
    public var errorName: String? { Message.string(dbus_message_get_error_name(raw)) }
    /// The signature of the body ("" when empty).
    public var signature: String { Message.string(dbus_message_get_signature(raw)) ?? "" }
    public var serial: UInt32 { dbus_message_get_serial(raw) }
    public var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }
    /// Whether the caller asked for no reply.
    public var noReply: Bool { dbus_message_get_no_reply(raw) != 0 }

    /// Whether this is the signal `interface.member`.
    public func isSignal(interface: String, member: String) -> Bool {
        dbus_message_is_signal(raw, interface, member) != 0
    }

    /// Whether the caller allows D-Bus activation of the destination (default true).
    public var autoStart: Bool {
        get { dbus_message_get_auto_start(raw) != 0 }
        set { dbus_message_set_auto_start(raw, newValue ? 1 : 0) }
    }

    /// Reads the body.
    public func arguments() throws -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(raw, &iter) != 0 else { return [] }
        return try DBusValue.readAll(&iter)
    }

    /// Appends values to the body. Everything is validated first: on error nothing is appended.
    public func append(_ values: [DBusValue]) throws {
        for value in values { try value.validate() }
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(raw, &iter)
        for value in values { try value.append(to: &iter) }
    }

    /// For an error message, the error it carries.
    public var error: BusError? {
        guard kind == .error else { return nil }
        let first = (try? arguments())?.first?.stringValue ?? ""
        return BusError(name: errorName ?? BusError.failed, message: first)
    }
}
