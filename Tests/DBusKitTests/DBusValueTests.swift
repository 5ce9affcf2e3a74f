import XCTest
@testable import DBusCore
@testable import DBusKit

final class DBusValueTests: XCTestCase {
    static let samples: [DBusValue] = [
        .byte(0), .byte(255), .bool(true), .bool(false),
        .int16(.min), .int16(.max), .uint16(.max), .int32(.min), .int32(.max), .uint32(.max),
        .int64(.min), .int64(.max), .int64(0), .uint64(.max), .uint64(0),
        .double(3.25), .double(-0.0), .double(.infinity),
        .string(""), .string("plain"), .string("Écriture — 日本語 🚀👩‍💻"),
        .objectPath("/"), .objectPath("/io/github/timetracker/Time1"), .signature("a{sv}(xx)"),
        .array(elementSignature: "s", []), .array(elementSignature: "a{sv}", []),
        .stringArray(["a", "b", "ç"]),
        .array(elementSignature: "(xx)", [.structure([.int64(.min), .int64(.max)]), .structure([.int64(1), .int64(2)])]),
        .vardict([:]),
        .vardict(["state": .string("running"), "elapsed": .uint64(42), "today": .int64(-1),
                  "nested": .vardict(["ok": .bool(true)]), "segments": .array(elementSignature: "(xx)", [])]),
        .array(elementSignature: "a{sv}", [.vardict(["id": .uint64(1)]), .vardict([:])]),
        .dictionary(keySignature: "u", valueSignature: "as", [(.uint32(1), .stringArray(["x"])), (.uint32(2), .stringArray([]))]),
        .structure([.string("s"), .variant(.variant(.int32(7))), .array(elementSignature: "y", [.byte(1), .byte(2)])]),
        .variant(.structure([.bool(true), .double(1.5)])),
    ]

    func testSignatures() {
        XCTAssertEqual(DBusValue.vardict([:]).signature, "a{sv}")
        XCTAssertEqual(DBusValue.array(elementSignature: "(xx)", []).signature, "a(xx)")
        XCTAssertEqual(DBusValue.structure([.int64(1), .string("")]).signature, "(xs)")
        XCTAssertEqual(DBusValue.signature(of: [.string(""), .uint64(1)]), "st")
        XCTAssertEqual(Signature.split("sa{sv}(xx)aa{sv}t"), ["s", "a{sv}", "(xx)", "aa{sv}", "t"])
        XCTAssertTrue(Signature.isValid("a{sv}"))
        XCTAssertFalse(Signature.isValid("a{vs}"))
        XCTAssertFalse(Signature.isSingleCompleteType("ss"))
    }

    func testMessageRoundTripOfEveryType() throws {
        for value in Self.samples {
            let message = try Message(methodCall: "org.example.X", path: "/a", interface: "org.example.X", member: "M")
            try message.append([value, .variant(value)])
            XCTAssertEqual(message.signature, value.signature + "v")
            let read = try message.arguments()
            XCTAssertEqual(read, [value, .variant(value)], "round trip of \(value.signature)")
            XCTAssertEqual(read.first?.signature, value.signature)
        }
    }

    func testAccessors() {
        let dict = DBusValue.vardict(["b": .uint64(2), "a": .string("x")])
        guard case .dictionary(_, _, let entries) = dict else { return XCTFail() }
        XCTAssertEqual(entries.map { $0.0.stringValue }, ["a", "b"], "keys are sorted")
        XCTAssertEqual(dict.variantDictionary?["a"]?.stringValue, "x")
        XCTAssertEqual(dict.variantDictionary?["b"]?.uint64Value, 2)
        XCTAssertNil(DBusValue.stringArray([]).variantDictionary)
        XCTAssertEqual(DBusValue.stringArray(["q"]).arrayValue, [.string("q")])
        XCTAssertEqual(DBusValue.int64(-5).int64Value, -5)
        XCTAssertEqual(DBusValue.uint32(5).uint32Value, 5)
        XCTAssertEqual(DBusValue.bool(true).boolValue, true)
        XCTAssertNil(DBusValue.int32(1).stringValue)
    }

    func testInvalidValuesAreRefusedWithoutCrash() throws {
        // Raw bytes: libdbus' own UTF-8 validation runs before anything reaches a message.
        XCTAssertThrowsError(try Validation.checkStringBytes([0x61, 0xFF, 0xFE])) {
            XCTAssertEqual(($0 as? BusError)?.name, BusError.invalidArgs)
        }
        XCTAssertThrowsError(try Validation.checkStringBytes([0xED, 0xA0, 0x80]))  // a UTF-16 surrogate
        XCTAssertThrowsError(try Validation.checkStringBytes([0xC0, 0x80]))        // overlong NUL
        XCTAssertNoThrow(try Validation.checkStringBytes(Array("é🚀".utf8)))

        let message = try Message(methodCall: nil, path: "/a", interface: nil, member: "M")
        XCTAssertThrowsError(try message.append([.string("ok"), .string("nul\u{0}inside")]))
        XCTAssertThrowsError(try message.append([.objectPath("not/a/path")]))
        XCTAssertThrowsError(try message.append([.objectPath("/trailing/")]))
        XCTAssertThrowsError(try message.append([.signature("a{vs}")]))
        XCTAssertThrowsError(try message.append([.array(elementSignature: "s", [.int32(1)])]))
        XCTAssertThrowsError(try message.append([.structure([])]))
        XCTAssertEqual(message.signature, "", "nothing was appended")
        XCTAssertThrowsError(try Message(methodCall: "org.example.X", path: "bad", interface: nil, member: "M"))
    }

    func testIntrospectionXMLIsDeterministicAndComplete() {
        let object = TestService().object
        let xml = introspectionXML(interfaces: object.interfaces, children: ["child"])
        XCTAssertEqual(xml, introspectionXML(interfaces: object.interfaces, children: ["child"]))
        XCTAssertTrue(xml.hasPrefix("<!DOCTYPE node PUBLIC"))
        for needle in [
            "<interface name=\"org.example.Test\">",
            "<method name=\"Add\">",
            "<arg type=\"x\" name=\"a\" direction=\"in\"/>",
            "<arg type=\"x\" name=\"sum\" direction=\"out\"/>",
            "<method name=\"Fail\">",
            "<property name=\"Label\" type=\"s\" access=\"readwrite\">",
            "<property name=\"Calls\" type=\"u\" access=\"read\">",
            "<annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"const\"/>",
            "<annotation name=\"org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"invalidates\"/>",
            "<signal name=\"Changed\">",
            "<arg type=\"s\" name=\"what\"/>",
            "<interface name=\"org.freedesktop.DBus.Properties\">",
            "<interface name=\"org.freedesktop.DBus.Peer\">",
            "<annotation name=\"org.example.Annotation\" value=\"yes\"/>",
            "<node name=\"child\"/>",
        ] {
            XCTAssertTrue(xml.contains(needle), "missing \(needle) in\n\(xml)")
        }
        XCTAssertFalse(xml.contains("value=\"true\""))
    }
}
