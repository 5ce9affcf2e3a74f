import Glibc

/// Method calls on a connection of their own to a bus on a Unix socket, spoken in the wire
/// protocol without libdbus, for a one-shot client (timectl's hot commands): the authentication
/// (EXTERNAL), BEGIN, `Hello` and every call go out in one write and the replies come back
/// together, one round trip where libdbus takes four (AUTH, NEGOTIATE_UNIX_FD, Hello, the call).
/// The calls may start their destination (no NO_AUTO_START): D-Bus activation works as with libdbus.
public enum QuickCall {
    /// A method call.
    public struct Call: Sendable {
        public var destination: String
        public var path: String
        public var interface: String
        public var member: String
        public var arguments: [DBusValue]

        public init(destination: String, path: String, interface: String, member: String, arguments: [DBusValue] = []) {
            self.destination = destination
            self.path = path
            self.interface = interface
            self.member = member
            self.arguments = arguments
        }
    }

    /// How long the calls may take together, as libdbus' default reply timeout.
    static let timeoutMilliseconds = 25_000

    /// libdbus' words for a call that got no reply (timeout, or the bus went away).
    static let noReply = BusError(name: BusError.noReply, message: "Did not receive a reply. Possible causes include: "
        + "the remote application did not send a reply, the message bus security policy blocked the reply, "
        + "the reply timeout expired, or the network connection was broken.")

    /// Makes `calls` on the session bus (`DBUS_SESSION_BUS_ADDRESS`); each result is the reply's
    /// arguments or the error it carried. nil when QuickCall cannot be sure to do as libdbus
    /// would, before any call was delivered: the variable is unset, the address names another
    /// transport, no socket could be reached, or the bus did not accept the authentication.
    /// Use a `BusConnection` then: it reports those cases in libdbus' words.
    public static func session(_ calls: [Call]) -> [Result<[DBusValue], BusError>]? {
        guard let raw = getenv("DBUS_SESSION_BUS_ADDRESS"), raw.pointee != 0 else { return nil }
        return call(address: String(cString: raw), calls)
    }

    /// `session` for the bus at `address`.
    public static func call(address: String, _ calls: [Call]) -> [Result<[DBusValue], BusError>]? {
        guard !calls.isEmpty, let sockets = WireAddress.unixSockets(address) else { return nil }
        var messages: [UInt8] = []
        do {
            messages = try Wire.methodCall(serial: 1, destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                           interface: "org.freedesktop.DBus", member: "Hello", arguments: [])
            for index in calls.indices {
                let call = calls[index]
                try Validation.checkBusName(call.destination)
                try Validation.checkObjectPath(call.path)
                try Validation.checkInterface(call.interface)
                try Validation.checkMember(call.member)
                for argument in call.arguments { try argument.validate() }
                messages += try Wire.methodCall(serial: UInt32(index + 2), destination: call.destination, path: call.path,
                                                interface: call.interface, member: call.member, arguments: call.arguments)
            }
        } catch {
            return nil   // an invalid call or a file descriptor: libdbus says what is wrong
        }
        // libdbus tries the entries in order and uses the first it can connect to.
        for socket in sockets {
            guard let connection = WireSocket(socket.name) else { continue }
            return exchange(on: connection, guid: socket.guid, messages: messages, calls: calls.count)
        }
        return nil
    }

    private static func exchange(on connection: WireSocket, guid: String?, messages: [UInt8],
                                 calls: Int) -> [Result<[DBusValue], BusError>]? {
        let deadline = WireSocket.monotonicMilliseconds() + timeoutMilliseconds
        // "AUTH EXTERNAL" and the uid as hex digits of its decimal text.
        var greeting: [UInt8] = [0] + Array("AUTH EXTERNAL ".utf8)
        let digits = Array("0123456789abcdef".utf8)
        for byte in String(geteuid()).utf8 {
            greeting.append(digits[Int(byte >> 4)])
            greeting.append(digits[Int(byte & 15)])
        }
        greeting += Array("\r\n".utf8)
        // With a guid to check, the calls wait for the server's OK; else they follow at once.
        if guid == nil { greeting += Array("BEGIN\r\n".utf8) + messages }
        guard connection.send(greeting) else { return nil }

        var buffer: [UInt8] = []
        var lineEnd = 0
        while true {
            guard buffer.count < 512, connection.receive(into: &buffer, deadline: deadline) else { return nil }
            while lineEnd + 1 < buffer.count && !(buffer[lineEnd] == 13 && buffer[lineEnd + 1] == 10) { lineEnd += 1 }
            if lineEnd + 1 < buffer.count { break }
        }
        guard buffer.count > 3, buffer[0] == UInt8(ascii: "O"), buffer[1] == UInt8(ascii: "K"),
              buffer[2] == UInt8(ascii: " ") else { return nil }
        if let guid {
            guard String(decoding: buffer[3..<lineEnd], as: UTF8.self) == guid,
                  connection.send(Array("BEGIN\r\n".utf8) + messages) else { return nil }
        }

        // From here on the calls may have been delivered: never again nil.
        var results = [Result<[DBusValue], BusError>](repeating: .failure(noReply), count: calls)
        var answered = [Bool](repeating: false, count: calls)
        var unanswered = calls
        var start = lineEnd + 2
        while unanswered > 0 {
            do {
                guard let length = try WireMessage.length(of: buffer, at: start), buffer.count - start >= length else {
                    guard connection.receive(into: &buffer, deadline: deadline) else { break }
                    continue
                }
                let message = try WireMessage(buffer, at: start, length: length)
                start += length
                guard message.type == Wire.methodReturn || message.type == Wire.error else { continue }
                if message.replySerial == 1, let error = message.error {
                    return [Result<[DBusValue], BusError>](repeating: .failure(error), count: calls)   // Hello refused
                }
                let index = Int(message.replySerial) - 2
                guard index >= 0, index < calls, !answered[index] else { continue }
                answered[index] = true
                unanswered -= 1
                if let error = message.error {
                    results[index] = .failure(error)
                } else {
                    results[index] = .success(message.body)
                }
            } catch {
                break   // a message QuickCall cannot read: the calls not answered yet get no reply
            }
        }
        return results
    }
}
