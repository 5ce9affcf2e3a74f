import Glibc
import XCTest
@testable import TimeCore

/// A slot's checksum covers its header's other fields and leaves out the bytes that have a digest
/// of their own it covers: the snapshot's payload (named in the snapshot's header) and each carried
/// part (named in its line) (SnapshotSlots.swift). Any byte changed anywhere in a slot must still
/// make it fail, and a start then takes the other slot.
final class SlotChecksumTests: FoldersTestCase {
    private func slotPath(_ folder: Folder, _ index: Int) -> String { folder.snapshots + "/slot-\(index).snapshot" }

    /// The slot that holds the newest sequence, and its raw bytes.
    private func newestSlot(_ folder: Folder) throws -> (index: Int, bytes: [UInt8], sequence: Int) {
        let slots = try (0..<2).compactMap { index -> (Int, [UInt8], Int)? in
            let bytes = try Files.read(slotPath(folder, index))
            guard let body = try? SnapshotSlots.body(of: bytes) else { return nil }
            return (index, bytes, body.sequence)
        }
        let newest = try XCTUnwrap(slots.max { $0.2 < $1.2 })
        return (newest.0, newest.1, newest.2)
    }

    /// The header line's fields, read as a person would: split on spaces.
    private func headerFields(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes[0..<SnapshotSlots.headerSize], as: UTF8.self)
            .split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    }

    /// A first, a second change years back (its chunks travel in the slot), and a timer change.
    private func makeHistory(_ folder: Folder) throws -> DataHome {
        let home = try open(folder)
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        try home.tracker.addSession(project: 1, start: utc(2023, 3, 14, 9), duration: "1h", note: "years back")
        return home
    }

    func testTheChecksumCoversTheBodyWithoutThePayload() throws {
        let folder = makeFolder()
        _ = try makeHistory(folder)
        let slot = try newestSlot(folder)
        let fields = headerFields(slot.bytes)
        XCTAssertEqual(fields[0], "time-tracker-slot2")
        let body = Array(slot.bytes[SnapshotSlots.headerSize..<(SnapshotSlots.headerSize + Int(fields[2])!)])
        // The oracle: the payload found by its marker and the file's last brace, independently of the format code.
        let text = String(decoding: body[0..<Int(fields[4])!], as: UTF8.self)
        let marker = try XCTUnwrap(text.range(of: ",\"payload\":"))
        let closing = try XCTUnwrap(text.lastIndex(of: "}"))
        let prefix = Array(text[..<marker.upperBound].utf8), suffix = Array(text[closing...].utf8)
        // The parts: each line names the SHA-256 of the bytes after it; the lines are covered, the bytes not.
        var lines: [UInt8] = [], at = Int(fields[4])!, parts = 0
        while at < body.count {
            let newline = try XCTUnwrap(body[at...].firstIndex(of: UInt8(ascii: "\n")))
            let line = String(decoding: body[at..<newline], as: UTF8.self).split(separator: " ").map(String.init)
            XCTAssertEqual(line.count, 3)
            let bytes = Array(body[(newline + 1)..<(newline + 1 + Int(line[1])!)])
            XCTAssertEqual(line[2], SHA256.hex(bytes))
            lines += body[at...newline]
            at = newline + 1 + bytes.count
            parts += 1
        }
        XCTAssertEqual(parts, 4, "the change years back carries its day, month, year and root")
        let headerRest = Array("\(fields[0]) \(fields[1]) \(fields[2]) \(fields[4])\n".utf8)
        XCTAssertEqual(fields[3], SHA256.hex(headerRest + prefix + suffix + lines))
        XCTAssertNotEqual(fields[3], SHA256.hex(body), "the payload is not hashed a second time")
        // The payload's digest is the one the snapshot's header names.
        let payload = String(text[marker.upperBound..<closing])
        XCTAssertTrue(text.contains("\"sha256\":\"\(SHA256.hex(payload))\""))
    }

    /// One byte changed in the payload, in the snapshot's header, in a carried chunk or in the
    /// header line: the slot no longer verifies, and a start rolls forward from the other one.
    func testAByteChangedAnywhereFailsTheSlot() throws {
        let folder = makeFolder()
        _ = try makeHistory(folder)
        let slot = try newestSlot(folder)
        let fields = headerFields(slot.bytes)
        let snapshotEnd = SnapshotSlots.headerSize + Int(fields[4])!
        let text = String(decoding: slot.bytes, as: UTF8.self)
        let payloadAt = text.utf8.distance(from: text.startIndex, to: try XCTUnwrap(text.range(of: ",\"payload\":")).upperBound)
        let createdAt = text.utf8.distance(from: text.startIndex, to: try XCTUnwrap(text.range(of: "\"createdAt\":")).upperBound)
        let places = [
            "the payload": payloadAt + 40,
            "the snapshot's createdAt": createdAt,
            "the file's closing brace": snapshotEnd - 2,
            "a carried chunk": snapshotEnd + 150,
            "a carried chunk's digest": try XCTUnwrap(slot.bytes[snapshotEnd...].firstIndex(of: UInt8(ascii: "\n"))) - 10,
            "the header's sequence": fields[0].count + 1,
            "the header's snapshot length": fields[0].count + fields[1].count + fields[2].count + fields[3].count + 4,
        ]
        for (place, offset) in places {
            var torn = slot.bytes
            torn[offset] = torn[offset] == UInt8(ascii: "7") ? UInt8(ascii: "8") : UInt8(ascii: "7")
            XCTAssertThrowsError(try SnapshotSlots.body(of: torn), "a byte changed in \(place)")
        }
    }

    /// A torn newest slot: a start takes the other slot, the change before, and rolls forward to it.
    func testAStartTakesTheOtherSlotWhenThePayloadIsTorn() throws {
        let folder = makeFolder()
        let before: DataState
        let slot: (index: Int, bytes: [UInt8], sequence: Int)
        do {
            let home = try makeHistory(folder)
            before = try DataState(store: home.tracker.store)
            try home.tracker.setNote(session: 1, note: "lost with its slot")
            slot = try newestSlot(folder)
            // What a power cut may leave: the store without its last two commits, the newest kept
            // state file (never flushed) gone.
            try home.tracker.store.database.execute("DELETE FROM sessions")
            try home.tracker.store.database.execute(storeMarkInItsTable + "UPDATE snapshot_mark SET sequence = \(slot.sequence - 2)")
        }
        for name in Files.list(folder.snapshots) where name.hasPrefix(String(format: "state-%010d-", slot.sequence)) {
            Files.remove(folder.snapshots + "/" + name)
        }
        let text = String(decoding: slot.bytes, as: UTF8.self)
        let noteAt = text.utf8.distance(from: text.startIndex, to: try XCTUnwrap(text.range(of: "lost with its slot")).lowerBound)
        var torn = slot.bytes
        torn[noteAt] = UInt8(ascii: "L")
        try Files.writeDurably(torn, to: slotPath(folder, slot.index))
        XCTAssertEqual(SnapshotSlots.entries(folder.snapshots).map(\.sequence), [slot.sequence - 1])
        let home = try open(folder)
        XCTAssertEqual(try DataState(store: home.tracker.store), before, "rolled forward to the other slot's state")
    }

    /// Slots of the earlier format (the whole body hashed) with a carried chunk still read.
    func testAnEarlierSlotWithACarriedChunkStillReads() throws {
        let snapshot = Array("{\"a snapshot\":1}".utf8), chunk = Array("{\"sessions\":[]}".utf8)
        let body = snapshot + Array("\(SHA256.hex(chunk)) \(chunk.count)\n".utf8) + chunk
        var header = Array("\(SnapshotSlots.wholeBodyMagic) 9 \(body.count) \(SHA256.hex(body)) \(snapshot.count)".utf8)
        header += [UInt8](repeating: UInt8(ascii: " "), count: SnapshotSlots.headerSize - 1 - header.count) + [UInt8(ascii: "\n")]
        let read = try SnapshotSlots.body(of: header + body)
        XCTAssertEqual(read.sequence, 9)
        XCTAssertEqual(read.bytes, snapshot)
        XCTAssertEqual(read.carried, [SHA256.hex(chunk): chunk])
        var torn = header + body
        torn[torn.count - 3] = UInt8(ascii: "x")
        XCTAssertThrowsError(try SnapshotSlots.body(of: torn))
    }
}
