import PathTrace
import Glibc
import CKernel

/// The durable record of each change: two preallocated slot files, `slot-0.snapshot` and
/// `slot-1.snapshot`, in the snapshot folder. A change writes its snapshot into the slot of its
/// sequence number (overwritten in place) and flushes it with one fdatasync: no new file, no
/// rename, no folder flush. A slot is a header line padded to `headerSize` bytes,
/// `time-tracker-slot2 <sequence> <length> <checksum> <snapshot length>`, then the body: a
/// snapshot file exactly as `state-…json` holds it, then the chunks it names that are not yet
/// known durable (written without a flush), each as `<name> <length> <sha256 of the bytes>\n<bytes>`.
/// A chunk file that a power cut took or tore is read from the slot instead (and written again at
/// the next start).
/// The checksum is the SHA-256 of the header's other fields, the snapshot without its payload, and
/// each part's line. The bytes it leaves out have a digest of their own that it covers: the
/// payload's in the snapshot's header (the state's name), each part's in its line. So a change
/// hashes its 10–20 KiB of payload once, not twice, and a chunk carried by change after change
/// only when it is first carried. A reader checks every digest.
/// Slots written before (magic `time-tracker-slot`, parts as `<name> <length>`) hash the whole
/// body, and still read.
/// A slot torn by a power cut fails a checksum and the other slot (the change before) counts.
/// A slot may carry an attachment in its body (sync's outbox, SnapshotSlots+Attachment.swift),
/// covered by the checksum and never part of the snapshot's state.
final class SnapshotSlots {
    static let count = 2
    static let headerSize = 128
    static let magic = "time-tracker-slot2"
    /// Slots whose checksum covers the whole body, payload included (read, never written).
    static let wholeBodyMagic = "time-tracker-slot"

    let directory: String
    private var descriptors: [Int32] = []
    /// Each slot's path, and the device and inode its open descriptor has (which never change
    /// while it is open): a change checks the path against them with one `stat`.
    private var paths: [String] = []
    private var identities: [(device: dev_t, inode: ino_t)] = []

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
            var opened = stat()
            guard fstat(fd, &opened) == 0 else {
                descriptors.forEach { close($0) }
                throw FileError("open", path)
            }
            paths.append(path)
            identities.append((opened.st_dev, opened.st_ino))
            if !existed {
                guard fsync(fd) == 0 else { throw FileError("flush to disk", path) }
                created = true
            }
        }
        if created { try Files.syncDirectory(directory) }
    }

    deinit { descriptors.forEach { close($0) } }

    /// Writes one snapshot into its sequence's slot and flushes it: the change's one flush.
    /// `carried`: chunks not yet known durable; `attachment`: bytes outside the snapshot (sync's
    /// outbox, SnapshotSlots+Attachment.swift), carried as a part named `attachment`.
    func write(_ snapshot: [UInt8], sequence: Int, carrying carried: [(sha256: String, bytes: [UInt8])] = [],
               attachment: [UInt8] = [], whileWritten: () throws -> Void = {}) throws {
        if let code = Files.injectedWriteFailure { throw FileError("write", directory, code: code) }
        let index = sequence % SnapshotSlots.count
        let path = paths[index]
        let parts = attachment.isEmpty ? carried : carried + [(sha256: SnapshotSlots.attachmentName, bytes: attachment)]
        let payload = try SnapshotFormat.payloadRange(in: snapshot)
        var covered = Array(snapshot[..<payload.lowerBound]) + snapshot[payload.upperBound...]
        var digests: [String: (bytes: [UInt8], sha256: String)] = [:]
        var lines: [[UInt8]] = []
        var bodyLength = snapshot.count
        for part in parts {
            // A part carried by the change before is not hashed again (the same bytes: one compare).
            let kept = partDigests[part.sha256]
            let digest = kept.flatMap { $0.bytes == part.bytes ? $0.sha256 : nil } ?? SHA256.hex(part.bytes)
            digests[part.sha256] = (part.bytes, digest)
            let line = Array("\(part.sha256) \(part.bytes.count) \(digest)\n".utf8)
            lines.append(line)
            bodyLength += line.count + part.bytes.count
            covered += line
        }
        partDigests = digests
        let checksum = SHA256.hex(SnapshotSlots.checksummedHeader(sequence: sequence, length: bodyLength, snapshotLength: snapshot.count) + covered)
        let header = Array("\(SnapshotSlots.magic) \(sequence) \(bodyLength) \(checksum) \(snapshot.count)".utf8)
        // The slot's bytes put together once: the header padded to its size, the snapshot, each
        // part after its line.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(SnapshotSlots.headerSize + bodyLength)
        bytes += header
        bytes += repeatElement(UInt8(ascii: " "), count: SnapshotSlots.headerSize - 1 - header.count)
        bytes.append(UInt8(ascii: "\n"))
        bytes += snapshot
        for (line, part) in zip(lines, parts) {
            bytes += line
            bytes += part.bytes
        }
        PathTrace.mark("slot: body and its checksum")
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
        // The disk starts on the bytes now, while the caller's other work runs (`whileWritten`);
        // the flush then waits for less. Nothing is promised before it returns.
        _ = time_start_writeback(fd, 0, off_t(bytes.count))
        PathTrace.mark("slot: write")
        try whileWritten()
        guard fdatasync(fd) == 0 else { throw FileError("flush to disk", path) }
        PathTrace.mark("slot: fdatasync")
        // Read back and compared, as every snapshot is: byte for byte with what was just written
        // and checksummed (hashing it again would prove no more, at the cost of a second hash).
        // Only what was written is read (the slot keeps the length of its longest snapshot), into
        // a buffer kept between changes.
        guard readBack(fd, count: bytes.count), readBuffer.withUnsafeBytes({ read in
            bytes.withUnsafeBytes { memcmp(read.baseAddress!, $0.baseAddress!, bytes.count) == 0 }
        }) else {
            throw FileError("verify", path, code: EIO)
        }
        // The file written is the one a start will read: the slot's path still names it (a
        // snapshot folder moved or replaced since the slots were opened would take the change's
        // only durable record with it).
        try checkStillAtItsPath(index)
    }

    private func checkStillAtItsPath(_ index: Int) throws {
        var named = stat()
        guard stat(paths[index], &named) == 0 else { throw FileError("verify", paths[index]) }
        guard identities[index] == (named.st_dev, named.st_ino) else { throw FileError("verify", paths[index], code: ESTALE) }
    }

    /// The buffer the slots are read back into, grown to the longest snapshot written.
    private var readBuffer: [UInt8] = []

    /// Reads the first `count` bytes of the slot at `fd` into `readBuffer`; false on a short read or an error.
    private func readBack(_ fd: Int32, count: Int) -> Bool {
        if readBuffer.count < count { readBuffer = [UInt8](repeating: 0, count: count) }
        var done = 0
        while done < count {
            let got = readBuffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(done)) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            done += got
        }
        return true
    }

    /// Makes a slot hold nothing (for a change that was refused after its slot was written).
    func void(sequence: Int) {
        let fd = descriptors[sequence % SnapshotSlots.count]
        let zeros = [UInt8](repeating: 0, count: SnapshotSlots.headerSize)
        _ = zeros.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
        _ = fdatasync(fd)
    }

    struct Body {
        var sequence: Int
        /// The snapshot file's bytes.
        var bytes: [UInt8]
        /// The chunks it carries, by SHA-256.
        var carried: [String: [UInt8]]
    }

    /// The SHA-256 of each part the last slot carried, with its bytes.
    private var partDigests: [String: (bytes: [UInt8], sha256: String)] = [:]

    /// The start of what a slot's checksum covers (`magic`): the header's other fields. Then come
    /// the snapshot without its payload and each part's line (name, length, SHA-256 of its bytes).
    static func checksummedHeader(sequence: Int, length: Int, snapshotLength: Int) -> [UInt8] {
        Array("\(magic) \(sequence) \(length) \(snapshotLength)\n".utf8)
    }

    /// The snapshot a slot holds, its sequence and the chunks it carries, when its checksums hold.
    static func body(of bytes: [UInt8]) throws -> Body {
        guard bytes.count >= headerSize else { throw SnapshotFormat.Failure.malformed("an empty slot") }
        let fields = String(decoding: bytes[0..<headerSize], as: UTF8.self).split(separator: " ", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters() }.filter { !$0.isEmpty }
        guard fields.count >= 4, fields[0] == magic || fields[0] == wholeBodyMagic, let sequence = Int(fields[1]),
              let length = Int(fields[2]), length >= 0, headerSize + length <= bytes.count
        else { throw SnapshotFormat.Failure.malformed("a slot without its header") }
        let body = Array(bytes[headerSize..<(headerSize + length)])
        // (A slot written before chunks were carried has four fields: all of it is the snapshot.)
        let snapshotLength = fields.count >= 5 ? Int(fields[4]) ?? -1 : length
        guard snapshotLength >= 0 && snapshotLength <= length else { throw SnapshotFormat.Failure.malformed("a slot's snapshot length") }
        let digested = fields[0] == magic
        var covered: [UInt8] = []
        if digested {
            // The payload's own digest, named in the snapshot's header; the parts' below.
            let snapshot = Array(body[0..<snapshotLength])
            let payload = try SnapshotFormat.verified(snapshot).payload.indices
            covered = checksummedHeader(sequence: sequence, length: length, snapshotLength: snapshotLength)
                + snapshot[..<payload.lowerBound] + snapshot[payload.upperBound...]
        } else {
            guard SHA256.hex(body) == fields[3] else { throw SnapshotFormat.Failure.checksumMismatch }
        }
        var carried: [String: [UInt8]] = [:]
        var at = snapshotLength
        while at < length {
            guard let newline = body[at...].firstIndex(of: UInt8(ascii: "\n")) else { throw SnapshotFormat.Failure.malformed("a slot's carried chunk") }
            let line = String(decoding: body[at..<newline], as: UTF8.self).split(separator: " ")
            guard line.count == (digested ? 3 : 2), let count = Int(line[1]), count >= 0, newline + 1 + count <= length
            else { throw SnapshotFormat.Failure.malformed("a slot's carried chunk") }
            let part = Array(body[(newline + 1)..<(newline + 1 + count)])
            if digested {
                guard SHA256.hex(part) == line[2] else { throw SnapshotFormat.Failure.checksumMismatch }
                covered += body[at...newline]
            }
            carried[String(line[0])] = part
            at = newline + 1 + count
        }
        if digested, SHA256.hex(covered) != fields[3] { throw SnapshotFormat.Failure.checksumMismatch }
        return Body(sequence: sequence, bytes: Array(body[0..<snapshotLength]), carried: carried)
    }

    /// The chunks a snapshot at `path` can be read with besides the folder's files: a slot's
    /// carried ones, index chunks carried as patches expanded against their durable base (left
    /// out when the base cannot be read).
    static func carried(at path: String) -> [String: [UInt8]] {
        guard Files.baseName(path).hasPrefix("slot-"), let bytes = try? Files.read(path), let slot = try? body(of: bytes) else { return [:] }
        let folder = Files.directoryName(path)
        var result = slot.carried
        for (name, bytes) in slot.carried where name != attachmentName && IndexPatch.isPatch(bytes) {
            result[name] = IndexPatch.apply(bytes) { hash in
                try? Files.read(folder + "/" + SnapshotKeeper.chunkName(hash))
            }
        }
        return result
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
