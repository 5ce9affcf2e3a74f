import XCTest
@testable import TimeCore

/// A snapshot's name is the SHA-256 of its payload: taken up from a kept place, it must still be
/// exactly the one-shot digest (GLib's, computed apart), whatever changed where; and it must
/// resume only where the bytes before are the same.
final class ResumingSHA256Tests: XCTestCase {
    override func tearDown() { SHA256.usesHardware = SHA256.hardwareAvailable }

    private func glib(_ bytes: [UInt8]) -> String {
        SHA256.usesHardware = false
        defer { SHA256.usesHardware = SHA256.hardwareAvailable }
        return SHA256.hex(bytes)
    }

    private func hex(_ hasher: inout ResumingSHA256, _ bytes: [UInt8], _ resumable: [Int]) -> String {
        bytes.withUnsafeBytes { hasher.hex($0, resumable: resumable) }
    }

    func testEveryDigestIsTheWholeMessagesThroughChangesAnywhere() throws {
        try XCTSkipUnless(SHA256.hardwareAvailable, "this CPU has no SHA extensions: every message is hashed whole")
        var generator = SystemRandomNumberGenerator()
        var hasher = ResumingSHA256()
        var message = (0..<9000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        var resumed = 0
        for round in 0..<600 {
            switch round % 6 {
            case 0, 1: // the end rewritten (a Pause): a new tail of another length
                let cut = max(0, message.count - Int.random(in: 1...400, using: &generator))
                message = Array(message[..<cut]) + (0..<Int.random(in: 0...500, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            case 2: // one byte anywhere (a record renamed), even inside a kept place
                if !message.isEmpty { message[Int.random(in: 0..<message.count, using: &generator)] &+= 1 }
            case 3: // bytes inserted in the middle (a finished session)
                let at = Int.random(in: 0...message.count, using: &generator)
                message.insert(contentsOf: (0..<Int.random(in: 1...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }, at: at)
            case 4: // shortened to before the kept places, or to nothing
                message = Array(message.prefix(Int.random(in: 0...200, using: &generator)))
            default: // grown back
                message += (0..<Int.random(in: 4000...9000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
            let places = [Int.random(in: 0...message.count, using: &generator), Int.random(in: 0...message.count, using: &generator)].sorted()
            XCTAssertEqual(hex(&hasher, message, places), glib(message), "round \(round), \(message.count) bytes")
            if hasher.lastResumed > 0 { resumed += 1 }
        }
        XCTAssertGreaterThan(resumed, 100, "the hash was taken up from a kept place in few rounds")
    }

    func testAChangedEndIsAllThatIsHashedAndAChangedBeginningIsNotTrusted() throws {
        try XCTSkipUnless(SHA256.hardwareAvailable, "this CPU has no SHA extensions: every message is hashed whole")
        var hasher = ResumingSHA256()
        let stable = Array(String(repeating: "{\"name\":\"Project\"},", count: 400).utf8)
        let first = stable + Array("{\"open\":1}".utf8)
        XCTAssertEqual(hex(&hasher, first, [stable.count]), glib(first))
        XCTAssertEqual(hasher.lastResumed, 0)

        let paused = stable + Array("{\"open\":2,\"paused\":true}".utf8)
        XCTAssertEqual(hex(&hasher, paused, [stable.count]), glib(paused))
        XCTAssertEqual(hasher.lastResumed, stable.count / 64 * 64)
        XCTAssertLessThan(hasher.lastHashed, 128)

        // One byte of the kept part differs: hashed whole again, and right.
        var renamed = paused
        renamed[100] = UInt8(ascii: "X")
        XCTAssertEqual(hex(&hasher, renamed, [stable.count]), glib(renamed))
        XCTAssertEqual(hasher.lastResumed, 0)
        XCTAssertEqual(hasher.lastHashed, renamed.count)
        // The same bytes as the first again: taken up from the place the renamed one left.
        var back = first
        back[100] = UInt8(ascii: "X")
        XCTAssertEqual(hex(&hasher, back, [stable.count]), glib(back))
        XCTAssertGreaterThan(hasher.lastResumed, 0)
    }
}

/// The keeper's own payloads: a Pause and a Resume hash the end of the payload only, and every
/// snapshot still verifies (its file read back and hashed whole, by GLib as well).
final class PayloadHashResumedTests: KeeperTestCase {
    override func tearDown() {
        SHA256.usesHardware = SHA256.hardwareAvailable
        super.tearDown()
    }

    func testATimerChangeHashesOnlyTheEndOfItsPayload() throws {
        try XCTSkipUnless(SHA256.hardwareAvailable, "this CPU has no SHA extensions: every payload is hashed whole")
        for index in 1...30 { try tracker.createProject(name: "Project \(index)", color: "", category: "") }
        for _ in 0..<5 {
            clock.time += 60
            try tracker.startProject("Project 1")
            clock.time += 600
            try tracker.stop()
        }
        clock.time += 60
        try tracker.startProject("Project 2")
        for round in 0..<10 {
            for pausing in [true, false] {
                clock.time += 60
                if pausing { try tracker.pause() } else { try tracker.resume() }
                let newest = try XCTUnwrap(keeper.entries.last)
                let file = try Files.read(newest.path)
                let payloadLength = try SnapshotFormat.payloadRange(in: file).count
                XCTAssertGreaterThan(payloadLength, 3000)
                XCTAssertGreaterThan(keeper.payloadHasher.lastResumed, payloadLength - 700, "round \(round): hashed from far back")
                SHA256.usesHardware = false
                XCTAssertEqual(try SnapshotFormat.read(file).stateHash, newest.stateHash, "round \(round)")
                SHA256.usesHardware = SHA256.hardwareAvailable
            }
        }
    }
}
