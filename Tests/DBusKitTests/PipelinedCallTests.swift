import TestSupport
import XCTest
@testable import DBusCore
@testable import DBusKit

/// `callPipelined` (timectl's status and start): every call is sent before any reply is awaited,
/// the peer handles them in order, and each gets its own reply or error.
final class PipelinedCallTests: XCTestCase {
    func testCallsAreAnsweredInOrderEachWithItsOwnReplyOrError() throws {
        let bus = try PrivateBus()
        let service = TestService()
        let loop = LoopThread()
        let server = try BusConnection(address: bus.address)
        try server.export(object: service.object)
        XCTAssertEqual(try server.requestName(TestService.name), .primaryOwner)
        server.attachToMainContext(loop.context)
        loop.start()
        let client = try BusConnection(address: bus.address)
        defer { loop.stop(); server.close(); client.close(); bus.stop() }

        func message(_ member: String, _ arguments: [DBusValue] = [], interface: String = TestService.interface) throws -> Message {
            let message = try Message(methodCall: TestService.name, path: TestService.path, interface: interface, member: member)
            try message.append(arguments)
            return message
        }
        let properties = StandardInterface.properties
        let results = try client.callPipelined([
            message("Set", [.string(TestService.interface), .string("Label"), .variant(.string("second"))], interface: properties),
            message("Get", [.string(TestService.interface), .string("Label")], interface: properties),
            message("Fail"),
            message("Add", [.int64(40), .int64(2)]),
            message("Missing"),
        ], timeoutMilliseconds: 5000)

        XCTAssertEqual(results.count, 5)
        XCTAssertEqual(try results[0].get(), [])
        XCTAssertEqual(try results[1].get(), [.variant(.string("second"))], "the Get was handled after the Set")
        XCTAssertThrowsError(try results[2].get()) { error in
            XCTAssertEqual(error as? BusError, BusError(name: "org.example.Test.Error.Nope", message: "Nope: this always fails ✗"))
        }
        XCTAssertEqual(try results[3].get(), [.int64(42)], "a failed call does not spoil the next")
        XCTAssertThrowsError(try results[4].get()) { XCTAssertEqual(($0 as? BusError)?.name, BusError.unknownMethod) }
    }

    func testNobodyThereIsAnErrorPerCall() throws {
        let bus = try PrivateBus()
        let client = try BusConnection(address: bus.address)
        defer { client.close(); bus.stop() }
        let calls = try (0..<2).map { _ in
            try Message(methodCall: "org.example.Nobody", path: "/", interface: "org.example.Nobody", member: "Hello")
        }
        let results = try client.callPipelined(calls, timeoutMilliseconds: 5000)
        XCTAssertEqual(results.count, 2)
        for result in results {
            XCTAssertThrowsError(try result.get()) { XCTAssertEqual(($0 as? BusError)?.name, BusError.serviceUnknown) }
        }
    }
}
