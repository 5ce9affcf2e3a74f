import Glibc

/// A change not yet stamped: the writer gives it the device's next sequence number and clock reading.
public struct SyncDraft: Equatable, Sendable {
    public var kind: SyncKind
    public var id: String
    public var operation: SyncOperation
    public var fields: [String: JSON]

    public init(kind: SyncKind, id: String, operation: SyncOperation, fields: [String: JSON] = [:]) {
        self.kind = kind; self.id = id; self.operation = operation; self.fields = fields
    }
}

/// Appends this device's records to its own folder, durably, rotating files at `rotationBytes`.
/// It is the only writer of that folder; it writes nowhere else.
public final class SyncLogWriter {
    public let layout: SyncLayout
    public let device: String
    public let rotationBytes: Int64
    public private(set) var clock: HybridClock
    public private(set) var nextSequence: Int64
    private var fileNumber: Int
    private var fileSize: Int64

    public var folder: String { layout.deviceFolder(device) }

    /// Opens (or starts) the device's folder. A torn last line, left by a crash mid-append and
    /// never acknowledged, is cut off so that the file stays readable by every other device.
    public init(layout: SyncLayout, device: String, rotationBytes: Int64 = 4 << 20) throws {
        self.layout = layout; self.device = device; self.rotationBytes = rotationBytes
        try Files.makePrivateDirectory(layout.deviceFolder(device))
        let identity = layout.deviceFolder(device) + "/device.json"
        if !Files.exists(identity) {
            let text = JSON.sortedObject(["device": .string(device), "format": .int(1)]).serialized + "\n"
            try Files.writeDurably(Array(text.utf8), to: identity)
        }
        let numbers = layout.changeFiles(of: device)
        fileNumber = numbers.last ?? 1
        clock = HybridClock()
        nextSequence = 1
        fileSize = 0
        var cursor = SyncCursor()
        for number in numbers {  // only at start: learns the last sequence number and clock reading
            let path = folder + "/" + SyncLayout.changeFileName(number)
            cursor.fileNumber = number; cursor.offset = 0
            let (records, _, _) = SyncLogReader.read(path: path, device: device, cursor: &cursor)
            if let last = records.last { clock.observe(last.hlc) }
            if number == fileNumber {
                fileSize = cursor.offset
                if (Files.size(path) ?? 0) != cursor.offset && truncate(path, off_t(cursor.offset)) != 0 {
                    throw FileError("cut the torn end of", path)
                }
            }
        }
        nextSequence = cursor.nextSequence
    }

    /// Lets merged records move the clock on, so that the next local change comes after them.
    public func observe(_ reading: HLC) { clock.observe(reading) }

    /// Stamps, appends and fsyncs the drafts; returns the records as written. On failure nothing
    /// is kept: the file is cut back and the sequence number and clock stay as they were.
    @discardableResult
    public func append(_ drafts: [SyncDraft], wallMilliseconds: Int64) throws -> [SyncRecord] {
        guard !drafts.isEmpty else { return [] }
        var stampClock = clock
        var sequence = nextSequence
        var records: [SyncRecord] = []
        var text = ""
        for draft in drafts {
            let record = SyncRecord(device: device, sequence: sequence, hlc: stampClock.tick(wallMilliseconds: wallMilliseconds),
                                    kind: draft.kind, id: draft.id, operation: draft.operation, fields: draft.fields)
            sequence += 1
            records.append(record)
            text += record.line
        }
        var number = fileNumber
        var size = fileSize
        if size > 0 && size >= rotationBytes { number += 1; size = 0 }
        let path = folder + "/" + SyncLayout.changeFileName(number)
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileError("open", path) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                let failure = FileError("append to", path)
                _ = ftruncate(fd, off_t(size))
                throw failure
            }
            written += count
        }
        if fsync(fd) != 0 {
            let failure = FileError("flush", path)
            _ = ftruncate(fd, off_t(size))
            throw failure
        }
        if size == 0 { try Files.syncDirectory(folder) }
        fileNumber = number
        fileSize = size + Int64(bytes.count)
        nextSequence = sequence
        clock = stampClock
        return records
    }
}
