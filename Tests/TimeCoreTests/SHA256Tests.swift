import XCTest
@testable import TimeCore

/// Every snapshot, slot, chunk and sync record is named or checked by its SHA-256: the CPU's SHA
/// extensions and GLib must give the same digest, and both the standard one, on every length
/// around the block and padding edges.
final class SHA256Tests: XCTestCase {
    override func tearDown() { SHA256.usesHardware = SHA256.hardwareAvailable }

    private func digests(_ bytes: [UInt8]) -> (hardware: String?, glib: String) {
        let hardware = SHA256.hardwareAvailable
        SHA256.usesHardware = false
        let glib = SHA256.hex(bytes)
        SHA256.usesHardware = hardware
        return (hardware ? SHA256.hex(bytes) : nil, glib)
    }

    func testTheStandardVectors() {
        let vectors = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ]
        for (text, expected) in vectors {
            let (hardware, glib) = digests(Array(text.utf8))
            XCTAssertEqual(glib, expected, text)
            if let hardware { XCTAssertEqual(hardware, expected, text) }
        }
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        let (hardware, glib) = digests(million)
        XCTAssertEqual(glib, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        if let hardware { XCTAssertEqual(hardware, glib) }
    }

    func testBothPathsAgreeOnEveryLengthAroundTheBlocks() throws {
        try XCTSkipUnless(SHA256.hardwareAvailable, "this CPU has no SHA extensions: GLib's path is the only one")
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<4200).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for length in 0...bytes.count {
            let (hardware, glib) = digests(Array(bytes[0..<length]))
            XCTAssertEqual(hardware, glib, "length \(length)")
        }
        // A slice that does not start at its array's beginning, and a string.
        XCTAssertEqual(SHA256.hex(bytes[7..<3000]), digests(Array(bytes[7..<3000])).glib)
        XCTAssertEqual(SHA256.hex("väter\u{2028}"), digests(Array("väter\u{2028}".utf8)).glib)
    }
}

