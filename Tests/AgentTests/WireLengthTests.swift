import CDBus
import DBusKit
import XCTest

/// The fuzzer's `WireLength` against libdbus' own marshalling: the body length libdbus writes
/// into the header (bytes 4-7) is the oracle.
final class WireLengthTests: XCTestCase {
    private func libdbusBodyLength(_ values: [DBusValue]) throws -> Int {
        let message = try Message(methodCall: "org.example.X", path: "/a", interface: "org.example.I", member: "M")
        try message.append(values)
        dbus_message_set_serial(message.raw, 1)
        var bytes: UnsafeMutablePointer<CChar>?
        var length: Int32 = 0
        XCTAssertNotEqual(dbus_message_marshal(message.raw, &bytes, &length), 0)
        defer { dbus_free(bytes) }
        let header = UnsafeRawBufferPointer(start: bytes, count: Int(length))
        XCTAssertEqual(header[0], UInt8(ascii: "l"))
        return Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16 | Int(header[7]) << 24
    }

    func testBodyLengthsAgreeWithLibdbus() throws {
        let samples: [[DBusValue]] = [
            [], [.byte(1)], [.byte(1), .int64(2)], [.bool(true), .byte(3), .int16(-1), .uint16(2), .double(1.5)],
            [.string(""), .string("é"), .objectPath("/a/b"), .signature("a{sv}")],
            [.byte(7), .array(elementSignature: "x", [.int64(1), .int64(2)])],
            [.byte(7), .array(elementSignature: "x", [])],
            [.array(elementSignature: "(txxss)", (0..<5).map { i in
                .structure([.uint64(UInt64(i)), .int64(-1), .int64(2), .string(String(repeating: "n", count: i * 3)), .string("x")]) })],
            [.vardict(["a": .string("b"), "long": .array(elementSignature: "s", [.string("x"), .string("yz")]), "n": .uint32(3)])],
            [.byte(1), .variant(.structure([.byte(2), .int64(3)])), .variant(.array(elementSignature: "a{sv}", [.vardict([:])]))],
            [.dictionary(keySignature: "s", valueSignature: "s", [(.string("k"), .string("v")), (.string("k2"), .string(""))])],
            [.string(String(repeating: "👩‍💻", count: 1_000)), .array(elementSignature: "ay", [.array(elementSignature: "y", [.byte(1)])])],
        ]
        for values in samples {
            XCTAssertEqual(WireLength(values).body, try libdbusBodyLength(values), DBusValue.signature(of: values))
        }
    }

    func testTheLongestArrayAndTheBusLimit() {
        // The elements start after the length (offset 4): "abc" takes 4+3+1 (to 12), "d" 4+1+1.
        let array = DBusValue.array(elementSignature: "s", [.string("abc"), .string("d")])
        XCTAssertEqual(WireLength([array]).longestArray, 14)
        XCTAssertTrue(WireLength([array]).fitsTheBus)
        let big = String(repeating: "x", count: 1 << 20)
        let tooLong = DBusValue.array(elementSignature: "s", Array(repeating: .string(big), count: 65))
        XCTAssertFalse(WireLength([tooLong]).fitsTheBus, "an array over 64 MiB")
        XCTAssertTrue(WireLength([.array(elementSignature: "s", Array(repeating: .string(big), count: 63))]).fitsTheBus)
        XCTAssertFalse(WireLength((0..<129).map { _ in .string(big) }).fitsTheBus, "a message over 128 MiB")
    }
}
