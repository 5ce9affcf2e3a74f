import Glibc

/// The durable record of each change: two preallocated slot files, `slot-0.snapshot` and
/// `slot-1.snapshot`, in the snapshot folder. A change writes its snapshot into the slot of its
/// sequence number (overwritten in place) and flushes it with one fdatasync: no new file, no
/// rename, no folder flush. A slot is a header line padded to `headerSize` bytes,
/// `time-tracker-slot <sequence> <length> <sha256 of the body>`, then the body: a snapshot file
/// exactly as `state-…json` holds it (chunks it names are in the folder, flushed before it).
/// A slot torn by a power cut fails its checksum and the other slot (the change before) counts.
/// A slot may carry an attachment after the body (sync's outbox, SnapshotSlots+Attachment.swift):
/// its length is a fifth header field, and the checksum then covers body and attachment together;
/// it is never part of the snapshot's state.
final class SnapshotSlots {
    static let count = 2
    static let headerSize = 128
    static let magic = "time-tracker-slot"

    let directory: String
    private var descriptors: [Int32] = []

    static func path(_ directory: String, _ index: Int) -> String { directory + "/slot-\(index).snapshot" }

    /// Opens the slots, creating (and making durable) those that do not exist yet.
    init(directory: String) throws {
        self.directory = directory
        var created = false
        for index in 0..<SnapshotSlots.count {
            let path = SnapshotSlots.path(directory, index)
            let existed = Files.kind(path) == .regular
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else {
                descriptors.forEach { close($0) }
                throw FileError("open", path)
            }
            descriptors.append(fd)
            if !existed {
                guard fsync(fd) == 0 else { throw FileError("flush to disk", path) }
                created = true
            }
        }
        if created { try Files.syncDirectory(directory) }
    }

    deinit { descriptors.forEach { close($0) } }

    /// Writes one snapshot into its sequence's slot and flushes it: the change's one flush.
    func write(_ snapshot: [UInt8], attachment: [UInt8] = [], sequence: Int) throws {
        if let code = Files.injectedWriteFailure { throw FileError("write", directory, code: code) }
        let index = sequence % SnapshotSlots.count
        let path = SnapshotSlots.path(directory, index)
        let header = SnapshotSlots.header(sequence: sequence, snapshot: snapshot, attachment: attachment)
        let bytes = header + snapshot + attachment
        let fd = descriptors[index]
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress! + written, $0.count - written, off_t(written)) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError("write", path)
            }
            written += count
        }
        guard fdatasync(fd) == 0 else { throw FileError("flush to disk", path) }
        // Read back and compared, as every snapshot is.
        guard let read = try? Files.read(path), let body = try? SnapshotSlots.body(of: read), Files.same(body.bytes, snapshot),
              body.sequence == sequence, Files.same(SnapshotSlots.attachment(ofVerified: read), attachment) else {
            throw FileError("verify", path, code: EIO)
        }
    }

    /// Makes a slot hold nothing (for a change that was refused after its slot was written).
    func void(sequence: Int) {
        let fd = descriptors[sequence % SnapshotSlots.count]
        let zeros = [UInt8](repeating: 0, count: SnapshotSlots.headerSize)
        _ = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        _ = fdatasync(fd)
    }

    /// The snapshot a slot holds and its sequence, when its checksum holds.
    static func body(of bytes: [UInt8]) throws -> (sequence: Int, bytes: [UInt8]) {
        guard bytes.count >= headerSize else { throw SnapshotFormat.Failure.malformed("an empty slot") }
        let fields = String(decoding: bytes[0..<headerSize], as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 4, fields[0] == magic, let sequence = Int(fields[1]), let length = Int(fields[2]),
              length >= 0, headerSize + length <= bytes.count else { throw SnapshotFormat.Failure.malformed("a slot without its header") }
        let extra = fields.count >= 5 ? Int(fields[4].trimmingCharacters()) ?? -1 : 0
        guard extra >= 0, headerSize + length + extra <= bytes.count else { throw SnapshotFormat.Failure.malformed("a slot cut short") }
        let body = Array(bytes[headerSize..<(headerSize + length)])
        let covered = extra == 0 ? body : Array(bytes[headerSize..<(headerSize + length + extra)])
        guard SHA256.hex(covered) == fields[3].trimmingCharacters() else { throw SnapshotFormat.Failure.checksumMismatch }
        return (sequence, body)
    }

    /// The slots that verify, as entries (their path is the slot's).
    static func entries(_ directory: String) -> [SnapshotKeeper.Entry] {
        (0..<count).compactMap { index -> SnapshotKeeper.Entry? in
            let path = SnapshotSlots.path(directory, index)
            guard let bytes = try? Files.read(path), let slot = try? body(of: bytes),
                  let header = try? SnapshotFormat.read(slot.bytes) else { return nil }
            return SnapshotKeeper.Entry(sequence: slot.sequence, stateHash: header.stateHash, path: path)
        }.sorted { $0.sequence < $1.sequence }
    }

    /// The snapshot file's bytes at `path`: a slot's body, or the file itself.
    static func snapshotBytes(at path: String) throws -> [UInt8] {
        let bytes = try Files.read(path)
        return Files.baseName(path).hasPrefix("slot-") ? try body(of: bytes).bytes : bytes
    }
}

private extension Substring {
    func trimmingCharacters() -> String { String(self.filter { $0 != "\n" && $0 != " " }) }
}
