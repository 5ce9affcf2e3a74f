import CDBus

/// A D-Bus error: thrown by method handlers (and sent back as an error reply), and thrown by
/// client calls with the remote error's name and message.
public struct BusError: Error, Equatable, CustomStringConvertible, Sendable {
    public var name: String
    public var message: String

    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    public var description: String { "\(name): \(message)" }

    // Standard error names (dbus-protocol.h).
    public static let failed = "org.freedesktop.DBus.Error.Failed"
    public static let noMemoryName = "org.freedesktop.DBus.Error.NoMemory"
    public static let serviceUnknown = "org.freedesktop.DBus.Error.ServiceUnknown"
    public static let nameHasNoOwner = "org.freedesktop.DBus.Error.NameHasNoOwner"
    public static let noReply = "org.freedesktop.DBus.Error.NoReply"
    public static let disconnected = "org.freedesktop.DBus.Error.Disconnected"
    public static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
    public static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    public static let invalidSignature = "org.freedesktop.DBus.Error.InvalidSignature"
    public static let unknownMethod = "org.freedesktop.DBus.Error.UnknownMethod"
    public static let unknownObject = "org.freedesktop.DBus.Error.UnknownObject"
    public static let unknownInterface = "org.freedesktop.DBus.Error.UnknownInterface"
    public static let unknownProperty = "org.freedesktop.DBus.Error.UnknownProperty"
    public static let propertyReadOnly = "org.freedesktop.DBus.Error.PropertyReadOnly"
    public static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    public static let timeout = "org.freedesktop.DBus.Error.Timeout"

    static let noMemory = BusError(name: noMemoryName, message: "Out of memory")

    /// Takes over a set libdbus `DBusError` (and frees it).
    init(consuming error: inout CDBus.DBusError) {
        name = error.name.map { String(cString: $0) } ?? BusError.failed
        message = error.message.map { String(cString: $0) } ?? ""
        dbus_error_free(&error)
    }
}

/// Runs a libdbus call that reports failure through a `DBusError`, throwing it as a `BusError`.
func withDBusError<T>(_ body: (UnsafeMutablePointer<CDBus.DBusError>) -> T) throws -> T {
    var error = CDBus.DBusError()
    dbus_error_init(&error)
    let result = body(&error)
    if dbus_error_is_set(&error) != 0 {
        throw BusError(consuming: &error)
    }
    return result
}
