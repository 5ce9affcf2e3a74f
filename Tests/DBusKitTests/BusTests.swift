import CGLib
import Foundation
import TestSupport
import XCTest
@testable import DBusCore
@testable import DBusKit

final class BusTests: XCTestCase {
    var bus: PrivateBus!

    override func setUpWithError() throws {
        bus = try PrivateBus()
    }

    override func tearDown() {
        bus?.stop()
        bus = nil
    }

    /// Server on a GLib context iterated by its own thread; returns the server connection.
    private func startThreadedServer(_ service: TestService, loop: LoopThread) throws -> BusConnection {
        let server = try BusConnection(address: bus.address)
        try server.export(object: service.object)          // before requesting the name
        XCTAssertEqual(try server.requestName(TestService.name), .primaryOwner)
        server.attachToMainContext(loop.context)
        loop.start()
        return server
    }

    func testClientCallsExportedObjectOnAnotherConnection() throws {
        let service = TestService()
        let loop = LoopThread()
        let server = try startThreadedServer(service, loop: loop)
        let client = try BusConnection(address: bus.address)
        defer { loop.stop(); server.close(); client.close() }

        func call(_ member: String, _ args: [DBusValue] = [], interface: String = TestService.interface) throws -> [DBusValue] {
            try client.call(destination: TestService.name, path: TestService.path, interface: interface,
                            member: member, arguments: args, timeoutMilliseconds: 5000)
        }

        XCTAssertEqual(try call("Add", [.int64(40), .int64(2)]), [.int64(42)])
        XCTAssertEqual(try call("Greet", [.string("Zoë 🙂")]), [.string("Hello, Zoë 🙂!")])
        for value in DBusValueTests.samples {
            XCTAssertEqual(try call("Echo", [.variant(value)]), [.variant(value)], value.signature)
        }
        let sessions = try XCTUnwrap(try call("Sessions").first?.arrayValue)
        XCTAssertEqual(sessions.count, 2)
        XCTAssertEqual(sessions[0].variantDictionary?["segments"]?.arrayValue?.count, 2)
        XCTAssertEqual(sessions[1].variantDictionary?["segments"], .array(elementSignature: "(xx)", []))

        // Wrong signature: InvalidArgs naming the expected signature.
        XCTAssertThrowsError(try call("Add", [.string("two")])) { error in
            let busError = error as? BusError
            XCTAssertEqual(busError?.name, BusError.invalidArgs)
            XCTAssertTrue(busError?.message.contains("'xx'") ?? false, "\(error)")
        }
        // A handler's BusError reaches the client unchanged.
        XCTAssertThrowsError(try call("Fail")) { error in
            XCTAssertEqual(error as? BusError, BusError(name: "org.example.Test.Error.Nope", message: "Nope: this always fails ✗"))
        }
        XCTAssertThrowsError(try call("Missing")) { XCTAssertEqual(($0 as? BusError)?.name, BusError.unknownMethod) }
        XCTAssertThrowsError(try call("Add", interface: "org.example.Other")) {
            XCTAssertEqual(($0 as? BusError)?.name, BusError.unknownInterface)
        }
        // The server survived all of that.
        XCTAssertEqual(try call("Add", [.int64(.max), .int64(0)]), [.int64(.max)])

        // Peer.
        XCTAssertEqual(try call("Ping", interface: StandardInterface.peer), [])
        let machineID = try XCTUnwrap(try call("GetMachineId", interface: StandardInterface.peer).first?.stringValue)
        XCTAssertEqual(machineID.count, 32)

        // afterReply ran after Greet's reply.
        XCTAssertTrue(iterate(nil, timeout: 5) { service.afterReplyRan })

        // Introspection from the same table.
        let xml = try XCTUnwrap(try call("Introspect", interface: StandardInterface.introspectable).first?.stringValue)
        XCTAssertEqual(xml, introspectionXML(interfaces: service.object.interfaces))

        XCTAssertEqual(try client.getNameOwner(TestService.name), server.uniqueName)
        XCTAssertTrue(try client.nameHasOwner(TestService.name))
        XCTAssertFalse(try client.nameHasOwner("org.example.Nobody"))
    }

    func testPropertiesAndChangeSignals() throws {
        let service = TestService()
        let loop = LoopThread()
        let server = try startThreadedServer(service, loop: loop)
        let client = try BusConnection(address: bus.address)
        defer { loop.stop(); server.close(); client.close() }

        // The client observes signals on its own (test-thread) GLib context.
        let context = g_main_context_new()
        defer { g_main_context_unref(context) }
        client.attachToMainContext(context)
        var changes: [[DBusValue]] = []
        client.onSignal { message in
            if message.isSignal(interface: StandardInterface.properties, member: "PropertiesChanged"),
               message.path == TestService.path, let args = try? message.arguments() {
                changes.append(args)
            }
        }
        try client.addMatch("type='signal',sender='\(TestService.name)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path='\(TestService.path)'")

        func props(_ member: String, _ args: [DBusValue]) throws -> [DBusValue] {
            try client.call(destination: TestService.name, path: TestService.path, interface: StandardInterface.properties,
                            member: member, arguments: args, timeoutMilliseconds: 5000)
        }
        let iface = DBusValue.string(TestService.interface)

        XCTAssertEqual(try props("Get", [iface, .string("Label")]), [.variant(.string("initial"))])
        let all = try XCTUnwrap(try props("GetAll", [iface]).first?.variantDictionary)
        XCTAssertEqual(all["Label"], .string("initial"))
        XCTAssertEqual(all["Version"], .string("1.0"))
        XCTAssertNotNil(all["Calls"]?.uint32Value)

        XCTAssertEqual(try props("Set", [iface, .string("Label"), .variant(.string("renamed"))]), [])
        XCTAssertTrue(iterate(context) { !changes.isEmpty }, "PropertiesChanged arrives")
        XCTAssertEqual(changes.first, [iface, .vardict(["Label": .string("renamed")]), .stringArray([])])
        XCTAssertEqual(try props("Get", [iface, .string("Label")]), [.variant(.string("renamed"))])

        XCTAssertEqual(try props("Set", [iface, .string("Mode"), .variant(.string("loud"))]), [])
        XCTAssertTrue(iterate(context) { changes.count == 2 })
        XCTAssertEqual(changes.last, [iface, .vardict([:]), .stringArray(["Mode"])], "invalidates")

        func expect(_ name: String, _ member: String, _ args: [DBusValue]) {
            XCTAssertThrowsError(try props(member, args)) { XCTAssertEqual(($0 as? BusError)?.name, name, "\(member) \(args)") }
        }
        expect(BusError.propertyReadOnly, "Set", [iface, .string("Calls"), .variant(.uint32(3))])
        expect(BusError.invalidArgs, "Set", [iface, .string("Label"), .variant(.int32(3))])
        expect(BusError.invalidArgs, "Set", [iface, .string("Label"), .variant(.string(""))])    // setter refuses
        expect(BusError.unknownProperty, "Get", [iface, .string("Nope")])
        expect(BusError.unknownInterface, "Get", [.string("org.example.Nope"), .string("Label")])
        expect(BusError.invalidArgs, "Get", [iface])

        // emitPropertiesChanged carries several changes in one signal.
        let before = changes.count
        try server.emitPropertiesChanged(path: TestService.path, interface: TestService.interface,
                                         changed: ["Label": .string("a"), "Mode": .string("b")], invalidated: ["Calls"])
        server.flush()
        XCTAssertTrue(iterate(context) { changes.count == before + 1 })
        XCTAssertEqual(changes.last?[1].variantDictionary?.count, 2)
        XCTAssertEqual(changes.last?[2], .stringArray(["Calls"]))
    }

    func testRealToolsCallTheObjectOnAGLibLoop() throws {
        let service = TestService()
        let context = g_main_context_new()
        defer { g_main_context_unref(context) }
        let server = try BusConnection(address: bus.address)
        defer { server.close() }
        try server.export(object: service.object)
        XCTAssertEqual(try server.requestName(TestService.name), .primaryOwner)
        server.attachToMainContext(context)

        let gdbus = "/usr/bin/gdbus", busctl = "/usr/bin/busctl"
        let dest = ["--dest", TestService.name, "--object-path", TestService.path]

        var result = try runTool(gdbus, ["call", "--session"] + dest + ["--method", "org.example.Test.Greet", "World"], bus: bus, context: context)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "('Hello, World!',)")

        result = try runTool(busctl, ["--user", "call", "--", TestService.name, TestService.path, TestService.interface, "Add", "xx", "-9223372036854775807", "-1"], bus: bus, context: context)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "x -9223372036854775808")

        result = try runTool(busctl, ["--address=\(bus.address)", "call", TestService.name, TestService.path, TestService.interface, "Sessions"], bus: bus, context: context)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("aa{sv} 2 "), result.stdout)

        // Wrong signature and a handler error, as the tools see them.
        result = try runTool(busctl, ["--user", "call", TestService.name, TestService.path, TestService.interface, "Add", "s", "x"], bus: bus, context: context)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("expected signature 'xx'"), result.stderr)
        result = try runTool(gdbus, ["call", "--session"] + dest + ["--method", "org.example.Test.Fail"], bus: bus, context: context)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("org.example.Test.Error.Nope"), result.stderr)

        // Properties through the tools.
        result = try runTool(busctl, ["--user", "get-property", TestService.name, TestService.path, TestService.interface, "Label"], bus: bus, context: context)
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "s \"initial\"", result.stderr)
        result = try runTool(busctl, ["--user", "set-property", TestService.name, TestService.path, TestService.interface, "Label", "s", "from busctl"], bus: bus, context: context)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(service.label, "from busctl")
        result = try runTool(busctl, ["--user", "set-property", TestService.name, TestService.path, TestService.interface, "Calls", "u", "1"], bus: bus, context: context)
        XCTAssertNotEqual(result.status, 0)
        XCTAssertTrue(result.stderr.lowercased().contains("read-only") || result.stderr.contains("PropertyReadOnly"), result.stderr)

        // Introspection parses in GDBus and in sd-bus.
        result = try runTool(gdbus, ["introspect", "--session", "--xml"] + dest, bus: bus, context: context)
        XCTAssertEqual(result.status, 0, result.stderr)
        result = try runTool(gdbus, ["introspect", "--session"] + dest, bus: bus, context: context)
        XCTAssertEqual(result.status, 0, result.stderr)
        for needle in ["interface org.example.Test", "Add(in  x a,", "Greet(", "readwrite s Label", "readonly u Calls", "Changed(s what)"] {
            XCTAssertTrue(result.stdout.contains(needle), "missing \(needle):\n\(result.stdout)")
        }
        result = try runTool(busctl, ["--user", "introspect", TestService.name, TestService.path], bus: bus, context: context)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains(".Add"), result.stdout)
        XCTAssertTrue(result.stdout.contains(".Label"), result.stdout)

        // Peer.Ping.
        result = try runTool(gdbus, ["call", "--session"] + dest + ["--method", "org.freedesktop.DBus.Peer.Ping"], bus: bus, context: context)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "()")
    }

    func testRequestNameReplies() throws {
        let first = try BusConnection(address: bus.address)
        let second = try BusConnection(address: bus.address)
        defer { first.close(); second.close() }
        let name = "org.example.Owned"
        XCTAssertEqual(try first.requestName(name), .primaryOwner)
        XCTAssertEqual(try first.requestName(name), .alreadyOwner)
        XCTAssertEqual(try second.requestName(name, flags: [.doNotQueue]), .exists)
        XCTAssertEqual(try second.requestName(name, flags: []), .inQueue)
        XCTAssertEqual(try second.getNameOwner(name), first.uniqueName)
        XCTAssertTrue(try first.releaseName(name))
        XCTAssertEqual(try first.getNameOwner(name), second.uniqueName)
        XCTAssertThrowsError(try first.getNameOwner("org.example.Nobody")) {
            XCTAssertEqual(($0 as? BusError)?.name, BusError.nameHasNoOwner)
        }
        XCTAssertThrowsError(try first.requestName("not a name"))
    }

    func testSessionHonoursEnvironmentAndDisconnectIsReported() throws {
        setenv("DBUS_SESSION_BUS_ADDRESS", bus.address, 1)
        let connection = try BusConnection.session()
        defer { connection.close() }
        XCTAssertTrue(connection.uniqueName?.hasPrefix(":") ?? false)
        let context = g_main_context_new()
        defer { g_main_context_unref(context) }
        connection.attachToMainContext(context)
        var disconnected = false
        connection.onDisconnect = {
            disconnected = true
            connection.close()   // closing from inside a dispatch is safe
        }
        bus.stop()
        XCTAssertTrue(iterate(context) { disconnected })
        XCTAssertFalse(connection.isConnected)
        XCTAssertThrowsError(try connection.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                 interface: "org.freedesktop.DBus", member: "GetId"))
    }

    func testIdleConnectionHasNoTimersOrReadySources() throws {
        let context = g_main_context_new()
        defer { g_main_context_unref(context) }
        let connection = try BusConnection(address: bus.address)
        defer { connection.close() }
        try connection.export(object: TestService().object)
        connection.attachToMainContext(context)
        while g_main_context_iteration(context, 0) != 0 {}   // settle
        var priority: gint = 0
        g_main_context_acquire(context)
        defer { g_main_context_release(context) }
        XCTAssertEqual(g_main_context_prepare(context, &priority), 0, "nothing ready")
        var timeout: gint = 0
        var fds = [GPollFD](repeating: GPollFD(), count: 16)
        let count = g_main_context_query(context, priority, &timeout, &fds, 16)
        XCTAssertEqual(timeout, -1, "no timer is pending: an idle connection never wakes up")
        XCTAssertGreaterThanOrEqual(count, 1, "the socket is watched")
        _ = g_main_context_check(context, priority, &fds, min(count, 16))
    }
}
