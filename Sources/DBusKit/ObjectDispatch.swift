import CDBus
import PathTrace
import Glibc

// Registration and dispatch of an `ExportedObject`: a libdbus object-path vtable whose calls are
// checked against the table (signatures, interfaces, Properties) and answered from it.

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
            PathTrace.replied(message.member ?? "")
        }
        if let after {
            connection.flush()
            PathTrace.mark("reply: flushed to the bus")
            letTheReplyLeave()
            after()
        }
    }

    /// Gives the CPU up once, for as short as the kernel allows, between a reply and the work
    /// after it. Writing the reply to the bus socket wakes the bus daemon as a synchronous wake-up:
    /// the kernel expects the writer to sleep next and queues the daemon behind it (or on a CPU
    /// that is asleep and slow to wake, as a virtual machine's is). Computing on at once held the
    /// reply in the daemon's queue for as long as the work after it: measured, a Pause's reply
    /// reached the client 0.9 ms after it was sent with the work after it, 0.05 ms with this
    /// (docs/durable-path.md, round three). Sleeping on an expired timer lets whatever waits for
    /// this CPU run first; the work after the reply still runs before the next message is read.
    private func letTheReplyLeave() {
        var none = timespec(tv_sec: 0, tv_nsec: 0)
        _ = nanosleep(&none, nil)
        PathTrace.mark("reply: the CPU handed to the bus")
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
            if let afterGet = property.afterGet {
                let previous = call.afterReply
                call.afterReply = { previous?(); afterGet() }
            }
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
