import CDBus

/// A method call sent and not yet answered; owns one reference to a `DBusPendingCall*`.
final class PendingCall {
    private let raw: OpaquePointer

    init(raw: OpaquePointer) { self.raw = raw }

    deinit { dbus_pending_call_unref(raw) }

    /// Blocks until the reply is there (libdbus makes a `NoReply` error reply when the timeout passes).
    func reply() throws -> Message {
        dbus_pending_call_block(raw)
        guard let reply = dbus_pending_call_steal_reply(raw) else {
            throw BusError(name: BusError.noReply, message: "No reply")
        }
        return Message(raw: reply, retain: false)
    }
}

extension BusConnection {
    /// Sends every call before waiting for any reply, then waits for all of them: the calls cost
    /// one round trip together (a bus keeps the order of one sender's messages to one receiver, so
    /// the peer handles them in this order). Each result is the reply's arguments or the error
    /// the peer (or the bus) answered with; a call that cannot be sent at all throws.
    public func callPipelined(_ messages: [Message], timeoutMilliseconds: Int32 = -1) throws -> [Result<[DBusValue], BusError>] {
        let raw = try connection()
        var pending: [PendingCall?] = []
        for message in messages {
            var call: OpaquePointer?
            guard dbus_connection_send_with_reply(raw, message.raw, &call, timeoutMilliseconds) != 0 else {
                throw BusError.noMemory
            }
            // libdbus gives no pending call when the connection is already closed.
            pending.append(call.map(PendingCall.init(raw:)))
        }
        dbus_connection_flush(raw)
        return pending.map { call in
            guard let call else {
                return .failure(BusError(name: BusError.disconnected, message: "The connection is closed"))
            }
            do {
                let reply = try call.reply()
                if let error = reply.error { return .failure(error) }
                return .success(try reply.arguments())
            } catch let error as BusError {
                return .failure(error)
            } catch {
                return .failure(BusError(name: BusError.failed, message: "\(error)"))
            }
        }
    }
}

/// The reply handler of one asynchronous call, kept alive by libdbus until it has run (or the
/// call was dropped) and released through `releaseReplyHandler`.
private final class ReplyHandler {
    let handle: (Result<[DBusValue], BusError>) -> Void
    init(_ handle: @escaping (Result<[DBusValue], BusError>) -> Void) { self.handle = handle }
}

private func replyArrived(_ pending: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let pending, let data else { return }
    let handler = Unmanaged<ReplyHandler>.fromOpaque(data).takeUnretainedValue()
    guard let raw = dbus_pending_call_steal_reply(pending) else {
        return handler.handle(.failure(BusError(name: BusError.noReply, message: "No reply")))
    }
    let reply = Message(raw: raw, retain: false)
    if let error = reply.error { return handler.handle(.failure(error)) }
    do {
        handler.handle(.success(try reply.arguments()))
    } catch let error as BusError {
        handler.handle(.failure(error))
    } catch {
        handler.handle(.failure(BusError(name: BusError.failed, message: "\(error)")))
    }
}

private func releaseReplyHandler(_ data: UnsafeMutableRawPointer?) {
    guard let data else { return }
    Unmanaged<ReplyHandler>.fromOpaque(data).release()
}

extension BusConnection {
    /// Sends a call and returns at once; `reply` runs when the answer (or libdbus' `NoReply`
    /// after `timeoutMilliseconds`) is dispatched, on the thread that dispatches this connection
    /// (the main loop it is attached to). For calls that may take long, such as one that makes
    /// the bus start a program, where blocking would stall everything else.
    public func callAsync(_ message: Message, timeoutMilliseconds: Int32 = -1,
                          reply: @escaping (Result<[DBusValue], BusError>) -> Void) throws {
        let raw = try connection()
        var call: OpaquePointer?
        guard dbus_connection_send_with_reply(raw, message.raw, &call, timeoutMilliseconds) != 0 else {
            throw BusError.noMemory
        }
        guard let call else { throw BusError(name: BusError.disconnected, message: "The connection is closed") }
        defer { dbus_pending_call_unref(call) }
        let handler = Unmanaged.passRetained(ReplyHandler(reply)).toOpaque()
        guard dbus_pending_call_set_notify(call, replyArrived, handler, releaseReplyHandler) != 0 else {
            Unmanaged<ReplyHandler>.fromOpaque(handler).release()
            throw BusError.noMemory
        }
        dbus_connection_flush(raw)
    }
}
