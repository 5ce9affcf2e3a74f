import CDBus
import Glibc
import TestSupport
import XCTest
@testable import DBusCore
@testable import DBusKit

/// QuickCall (timectl's hot commands): the wire format against libdbus' own, the bus addresses it
/// takes on and those it leaves to libdbus, and calls on a real dbus-daemon.
final class QuickCallTests: XCTestCase {
    func testAddressesItSpeaksAndThoseItLeavesToLibdbus() {
        func path(_ text: String) -> UnixSocketAddress.Name { .path(Array(text.utf8)) }
        XCTAssertEqual(WireAddress.unixSockets("unix:path=/run/user/1000/bus"),
                       [UnixSocketAddress(name: path("/run/user/1000/bus"))])
        XCTAssertEqual(WireAddress.unixSockets("unix:abstract=/tmp/dbus-AbC,guid=0123abcd"),
                       [UnixSocketAddress(name: .abstract(Array("/tmp/dbus-AbC".utf8)), guid: "0123abcd")])
        XCTAssertEqual(WireAddress.unixSockets("unix:path=/tmp/a%20b%3bc%2C%c3%a9"),
                       [UnixSocketAddress(name: path("/tmp/a b;c,é"))], "escaped values")
        XCTAssertEqual(WireAddress.unixSockets("unix:abstract=first;unix:path=/second"),
                       [UnixSocketAddress(name: .abstract(Array("first".utf8))), UnixSocketAddress(name: path("/second"))])
        for other in ["tcp:host=localhost,port=4000", "unix:path=/x;tcp:host=a,port=1", "unix:tmpdir=/tmp",
                      "unix:runtime=yes", "unix:path=/a,abstract=b", "unix:path=/a b", "unix:path=%zz", "unix:path=/a%2",
                      "unix:path=/a,path=/b", "unix:path=", "unix:", "nonsense", "", "unix:path=/x;", "autolaunch:"] {
            XCTAssertNil(WireAddress.unixSockets(other), other)
        }
    }

    /// Bytes QuickCall writes are read by libdbus as written, and libdbus' bytes read by QuickCall.
    func testWireFormatAgreesWithLibdbus() throws {
        for value in DBusValueTests.samples {
            let arguments = [value, .variant(value)]
            let ours = try Wire.methodCall(serial: 7, destination: "org.example.X", path: "/a/b", interface: "org.example.I",
                                           member: "M", arguments: arguments)
            var error = CDBus.DBusError()
            dbus_error_init(&error)
            let read = ours.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, Int32($0.count), &error) }
            }
            let message = try XCTUnwrap(read.map { Message(raw: $0, retain: false) }, "libdbus reads \(value.signature)")
            XCTAssertEqual(try message.arguments(), arguments, value.signature)
            XCTAssertEqual(message.member, "M")
            XCTAssertEqual(message.serial, 7)
            XCTAssertTrue(message.autoStart)

            let theirs = try Message(methodCall: "org.example.X", path: "/a/b", interface: "org.example.I", member: "M")
            try theirs.append(arguments)
            dbus_message_set_serial(theirs.raw, 9)
            var bytes: UnsafeMutablePointer<CChar>?
            var length: Int32 = 0
            XCTAssertNotEqual(dbus_message_marshal(theirs.raw, &bytes, &length), 0)
            defer { dbus_free(bytes) }
            let copied = Array(UnsafeBufferPointer(start: bytes, count: Int(length))).map { UInt8(bitPattern: $0) }
            XCTAssertEqual(try WireMessage.length(of: copied, at: 0), copied.count)
            let parsed = try WireMessage(copied, at: 0, length: copied.count)
            XCTAssertEqual(parsed.body, arguments, value.signature)
            XCTAssertEqual(parsed.serial, 9)
        }
    }

    func testCallsOnARealBusAnswerAsLibdbusDoes() throws {
        let bus = try PrivateBus()
        let service = TestService()
        let loop = LoopThread()
        let server = try BusConnection(address: bus.address)
        try server.export(object: service.object)
        XCTAssertEqual(try server.requestName(TestService.name), .primaryOwner)
        server.attachToMainContext(loop.context)
        loop.start()
        defer { loop.stop(); server.close(); bus.stop() }

        func call(_ member: String, _ arguments: [DBusValue] = [], interface: String = TestService.interface) -> QuickCall.Call {
            QuickCall.Call(destination: TestService.name, path: TestService.path, interface: interface, member: member, arguments: arguments)
        }
        let properties = StandardInterface.properties
        let calls = [
            call("Add", [.int64(40), .int64(2)]),
            call("Set", [.string(TestService.interface), .string("Label"), .variant(.string("quick"))], interface: properties),
            call("Get", [.string(TestService.interface), .string("Label")], interface: properties),
            call("Fail"),
            call("Sessions"),
            call("Missing"),
        ] + DBusValueTests.samples.map { call("Echo", [.variant($0)]) }
        // An unreachable socket first: like libdbus, QuickCall goes on to the next address.
        let address = "unix:abstract=/time-quickcall-test-nobody-\(getpid());" + bus.address
        let results = try XCTUnwrap(QuickCall.call(address: address, calls))
        XCTAssertEqual(results.count, calls.count)
        XCTAssertEqual(try results[0].get(), [.int64(42)])
        XCTAssertEqual(try results[1].get(), [])
        XCTAssertEqual(try results[2].get(), [.variant(.string("quick"))], "handled in order")
        XCTAssertThrowsError(try results[3].get()) { error in
            XCTAssertEqual(error as? BusError, BusError(name: "org.example.Test.Error.Nope", message: "Nope: this always fails ✗"))
        }
        let client = try BusConnection(address: bus.address)
        defer { client.close() }
        let sessions = try client.call(destination: TestService.name, path: TestService.path,
                                       interface: TestService.interface, member: "Sessions")
        XCTAssertEqual(try results[4].get(), sessions)
        XCTAssertThrowsError(try results[5].get()) { XCTAssertEqual(($0 as? BusError)?.name, BusError.unknownMethod) }
        for (index, value) in DBusValueTests.samples.enumerated() {
            XCTAssertEqual(try results[6 + index].get(), [.variant(value)], value.signature)
        }

        // Nobody owns the name and nothing can start it: the bus's own error, per call.
        let nobody = QuickCall.call(address: bus.address, [QuickCall.Call(destination: "org.example.Nobody", path: "/",
                                                                          interface: "org.example.Nobody", member: "Hello")])
        XCTAssertThrowsError(try XCTUnwrap(nobody).first?.get()) { XCTAssertEqual(($0 as? BusError)?.name, BusError.serviceUnknown) }
    }

    /// Whatever QuickCall cannot do as libdbus would is left to libdbus (nil), before anything was sent.
    func testLeavesToLibdbusWhatItCannotReach() throws {
        let call = QuickCall.Call(destination: "org.example.X", path: "/", interface: "org.example.X", member: "M")
        XCTAssertNil(QuickCall.call(address: "unix:path=/nonexistent/time-quickcall-bus", [call]))
        XCTAssertNil(QuickCall.call(address: "tcp:host=127.0.0.1,port=1", [call]))
        XCTAssertNil(QuickCall.call(address: "unix:path=/tmp", [QuickCall.Call(destination: "not a name", path: "/", interface: "a.b", member: "M")]))
        XCTAssertNil(QuickCall.call(address: "unix:path=/tmp", [QuickCall.Call(destination: "a.b", path: "/", interface: "a.b", member: "M",
                                                                               arguments: [.unixFD(0)])]))
        // A bus whose id is not the one the address names: libdbus refuses it in its own words.
        let bus = try PrivateBus()
        defer { bus.stop() }
        let other = bus.address.split(separator: ",").filter { !$0.hasPrefix("guid=") }.joined(separator: ",") + ",guid=0123456789abcdef0123456789abcdef"
        XCTAssertNil(QuickCall.call(address: other, [call]))
    }
}
