import CDBus
@testable import DBusCore
import TextEscape
import XCTest

/// Bytes that are not UTF-8 in a string of a message from the bus: an unpaired surrogate
/// written as UTF-8 (ED A0 80), an overlong sequence (C0 AF), a byte UTF-8 never uses (FF).
/// The bus daemon refuses such a message, but a peer or a broken daemon could still send one.
final class InvalidTextTests: XCTestCase {
    private static let placeholder = "QQQQQQQQQ"
    private static let invalid: [UInt8] = [0x3C, 0xED, 0xA0, 0x80, 0x26, 0xFF, 0x22, 0xC0, 0xAF]

    /// A method call whose one string argument holds `invalid` (the same length as the placeholder).
    private func messageWithInvalidText() throws -> [UInt8] {
        var bytes = try Wire.methodCall(serial: 3, destination: "org.example.X", path: "/a", interface: "org.example.I",
                                        member: "M", arguments: [.string(Self.placeholder)])
        let needle = Array(Self.placeholder.utf8)
        let at = try XCTUnwrap((0...(bytes.count - needle.count)).first { Array(bytes[$0..<$0 + needle.count]) == needle })
        bytes.replaceSubrange(at..<at + needle.count, with: Self.invalid)
        return bytes
    }

    /// QuickCall's own reader (timectl's fast path) decodes it into valid text, each bad
    /// sequence a U+FFFD; escaped, it is valid markup with every reserved character escaped.
    func testTheWireReaderMakesValidTextOfIt() throws {
        let bytes = try messageWithInvalidText()
        let message = try WireMessage(bytes, at: 0, length: bytes.count)
        let text = try XCTUnwrap(message.body.first?.stringValue)
        XCTAssertFalse(text.unicodeScalars.contains { (0xD800...0xDFFF).contains($0.value) })
        XCTAssertTrue(text.hasPrefix("<\u{FFFD}"), text.debugDescription)
        XCTAssertTrue(text.contains("&") && text.contains("\""), text.debugDescription)
        let escaped = TextEscape.markup(text)
        XCTAssertTrue(escaped.hasPrefix("&lt;\u{FFFD}"), escaped)
        XCTAssertFalse(escaped.contains("<") || escaped.contains("\"") || escaped.replacingOccurrences(of: "&amp;", with: "")
                        .replacingOccurrences(of: "&lt;", with: "").replacingOccurrences(of: "&quot;", with: "").contains("&"), escaped)
        // Sent on, it is a valid D-Bus string again.
        XCTAssertNoThrow(try Validation.checkString(escaped))
        XCTAssertNoThrow(try Validation.checkString(text))
    }

    /// libdbus (the agent's reader) refuses the whole message: no Swift String is made of it.
    func testLibdbusRefusesTheMessage() throws {
        let bytes = try messageWithInvalidText()
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let read = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, Int32($0.count), &error) }
        }
        XCTAssertNil(read)
        XCTAssertNotEqual(dbus_error_is_set(&error), 0)
    }
}
