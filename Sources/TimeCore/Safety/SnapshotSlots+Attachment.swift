/// A slot's attachment: bytes written and flushed with the change's snapshot, in the same
/// write and the same fdatasync, but outside the snapshot and its state hash (equal states stay
/// equal). Sync keeps its outbox there (docs/sync.md, "One flush per change"). It is the part of
/// the slot's body named `attachment`, beside the carried chunks (named by their SHA-256).
extension SnapshotSlots {
    static let attachmentName = "attachment"

    /// The attachment of a slot's bytes; empty when it has none or does not verify.
    static func attachment(of bytes: [UInt8]) -> [UInt8] {
        (try? body(of: bytes))?.carried[attachmentName] ?? []
    }

    /// The attachment of the newest slot that verifies: what the last durable change carried.
    public static func newestAttachment(_ directory: String) -> [UInt8] {
        var best: (sequence: Int, bytes: [UInt8])?
        for index in 0..<count {
            guard let bytes = try? Files.read(path(directory, index)), let slot = try? body(of: bytes),
                  (try? SnapshotFormat.read(slot.bytes)) != nil else { continue }
            if best.map({ slot.sequence > $0.sequence }) ?? true { best = (slot.sequence, slot.carried[attachmentName] ?? []) }
        }
        return best?.bytes ?? []
    }
}
