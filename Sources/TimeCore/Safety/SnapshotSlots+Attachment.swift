/// A slot's attachment: bytes written and flushed with the change's snapshot, in the same
/// write and the same fdatasync, but outside the snapshot and its state hash (equal states stay
/// equal). Sync keeps its outbox there (docs/sync.md, "One flush per change").
extension SnapshotSlots {
    /// The header line: magic, sequence, body length, SHA-256 of body (and attachment), and the
    /// attachment's length when there is one; padded to `headerSize`.
    static func header(sequence: Int, snapshot: [UInt8], attachment: [UInt8]) -> [UInt8] {
        var text = "\(magic) \(sequence) \(snapshot.count) "
        text += attachment.isEmpty ? SHA256.hex(snapshot) : SHA256.hex(snapshot + attachment) + " \(attachment.count)"
        var header = Array(text.utf8)
        header += [UInt8](repeating: UInt8(ascii: " "), count: headerSize - 1 - header.count) + [UInt8(ascii: "\n")]
        return header
    }

    /// The attachment of a slot's bytes; empty when it has none or does not verify.
    static func attachment(of bytes: [UInt8]) -> [UInt8] {
        guard (try? body(of: bytes)) != nil else { return [] }
        return attachment(ofVerified: bytes)
    }

    /// The attachment of slot bytes whose checksum was already checked.
    static func attachment(ofVerified bytes: [UInt8]) -> [UInt8] {
        let fields = String(decoding: bytes[0..<headerSize], as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 5, let length = Int(fields[2]),
              let extra = Int(String(fields[4].filter { $0 != "\n" && $0 != " " })), extra > 0 else { return [] }
        return Array(bytes[(headerSize + length)..<(headerSize + length + extra)])
    }

    /// The attachment of the newest slot that verifies: what the last durable change carried.
    public static func newestAttachment(_ directory: String) -> [UInt8] {
        var best: (sequence: Int, bytes: [UInt8])?
        for index in 0..<count {
            guard let bytes = try? Files.read(path(directory, index)), let slot = try? body(of: bytes),
                  (try? SnapshotFormat.read(slot.bytes)) != nil else { continue }
            if best.map({ slot.sequence > $0.sequence }) ?? true { best = (slot.sequence, attachment(ofVerified: bytes)) }
        }
        return best?.bytes ?? []
    }
}
