import CGLib
import Foundation
import TestSupport
import XCTest
@testable import DBusCore
@testable import DBusKit

private func keepAwake(_ data: gpointer?) -> gboolean { 1 }

/// Iterates `context` until `condition` holds; false after `timeout` seconds.
@discardableResult
func iterate(_ context: OpaquePointer?, timeout: TimeInterval = 10, until condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    // Tests only: a short timer so the loop notices conditions that no source reports.
    let tick = g_timeout_source_new(5)!
    g_source_set_callback(tick, keepAwake, nil, nil)
    g_source_attach(tick, context)
    defer { g_source_destroy(tick); g_source_unref(tick) }
    while !condition() {
        if Date() > deadline { return false }
        g_main_context_iteration(context, 1)
    }
    return true
}

/// Runs a command line tool on the private bus while `context` keeps serving: the tool runs to
/// its end on a helper thread while this thread iterates the context that answers it.
func runTool(_ path: String, _ arguments: [String], bus: PrivateBus, context: OpaquePointer?) throws -> CommandResult {
    let outcome = ToolOutcome()
    let environment = bus.environment
    Thread {
        outcome.set(Result { try Command.run(path, arguments, environment: environment, timeout: 20) })
    }.start()
    iterate(context, timeout: 30) { outcome.isSet }
    return try outcome.get()
}

/// The result of a tool run on another thread, handed over under a lock.
private final class ToolOutcome: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<CommandResult, any Error>?

    func set(_ value: Result<CommandResult, any Error>) { lock.lock(); result = value; lock.unlock() }
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return result != nil }
    func get() throws -> CommandResult {
        lock.lock(); defer { lock.unlock() }
        guard let result else { throw FixtureError("the tool did not finish") }
        return try result.get()
    }
}

/// A GLib main context iterated on its own thread, for a server that a blocking client in the
/// test thread calls.
final class LoopThread: @unchecked Sendable {
    let context: OpaquePointer
    private let lock = NSLock()
    private var stopping = false
    private let done = DispatchSemaphore(value: 0)

    init() {
        context = g_main_context_new()
    }

    func start() {
        let thread = Thread { [self] in
            while !shouldStop() { g_main_context_iteration(context, 1) }
            done.signal()
        }
        thread.start()
    }

    private func shouldStop() -> Bool {
        lock.lock(); defer { lock.unlock() }
        return stopping
    }

    func stop() {
        lock.lock(); stopping = true; lock.unlock()
        g_main_context_wakeup(context)
        done.wait()
    }

    deinit { g_main_context_unref(context) }
}

/// The object the tests export: state and a table.
final class TestService: @unchecked Sendable {
    static let name = "org.example.DBusKitTest"
    static let path = "/org/example/Test"
    static let interface = "org.example.Test"

    var label = "initial"
    var mode = "quiet"
    var calls = 0
    var afterReplyRan = false

    var object: ExportedObject {
        ExportedObject(path: TestService.path, interfaces: [Interface(
            name: TestService.interface,
            methods: [
                Method(name: "Echo", inArgs: [Argument("value", "v")], outArgs: [Argument("value", "v")],
                       doc: "Returns its argument.") { call in
                    self.calls += 1
                    return call.arguments
                },
                Method(name: "Add", inArgs: [Argument("a", "x"), Argument("b", "x")], outArgs: [Argument("sum", "x")]) { call in
                    self.calls += 1
                    return [.int64(call.arguments[0].int64Value! &+ call.arguments[1].int64Value!)]
                },
                Method(name: "Greet", inArgs: [Argument("who", "s")], outArgs: [Argument("greeting", "s")]) { call in
                    call.afterReply = { self.afterReplyRan = true }
                    return [.string("Hello, \(call.arguments[0].stringValue!)!")]
                },
                Method(name: "Fail", doc: "Always fails.") { _ in
                    throw BusError(name: "org.example.Test.Error.Nope", message: "Nope: this always fails ✗")
                },
                Method(name: "Sessions", outArgs: [Argument("sessions", "aa{sv}")]) { _ in
                    [.array(elementSignature: "a{sv}", [
                        .vardict(["id": .uint64(1), "segments": .array(elementSignature: "(xx)", [
                            .structure([.int64(10), .int64(20)]), .structure([.int64(30), .int64(45)])])]),
                        .vardict(["id": .uint64(2), "segments": .array(elementSignature: "(xx)", [])]),
                    ])]
                },
            ],
            properties: [
                Property(name: "Label", signature: "s", access: .readWrite, emitsChange: .true, doc: "A label.",
                         get: { .string(self.label) },
                         set: { value in
                             guard let text = value.stringValue, !text.isEmpty else {
                                 throw BusError(name: BusError.invalidArgs, message: "Label must not be empty")
                             }
                             self.label = text
                         }),
                Property(name: "Mode", signature: "s", access: .readWrite, emitsChange: .invalidates,
                         get: { .string(self.mode) }, set: { self.mode = $0.stringValue! }),
                Property(name: "Calls", signature: "u", access: .read, emitsChange: .false,
                         get: { .uint32(UInt32(self.calls)) }),
                Property(name: "Version", signature: "s", emitsChange: .const, get: { .string("1.0") }),
            ],
            signals: [Signal(name: "Changed", args: [Argument("what", "s")], doc: "Something changed.")],
            annotations: ["org.example.Annotation": "yes"]
        )])
    }
}
