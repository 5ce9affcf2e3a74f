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

/// Appends this device's records to its own folder, rotating files at `rotationBytes`. It is the
/// only writer of that folder; it writes nowhere else.
///
/// Two ways to append (docs/sync.md, "One flush per change"): `append` writes and flushes at once
/// (enabling, start-up); `accept` takes records stamped inside a change whose slot already
/// carries them (the outbox), writes them without a flush, and `flush` makes them durable later,
/// a batch at a time. A new file is only started after the one before is flushed, so the records
/// not yet flushed are always the tail of the newest file.
public final class SyncLogWriter {
    public let layout: SyncLayout
    public let device: String
    public let rotationBytes: Int64
    public private(set) var clock: HybridClock
    public private(set) var nextSequence: Int64
    /// Records appended (or still to be appended) but not yet flushed: the outbox; and their lines.
    public private(set) var unflushed: [SyncRecord] = []
    private var unflushedLines: [[UInt8]] = []
    /// The lines of `unflushed`, one after the other (what the snapshot slot carries).
    public private(set) var unflushedText: [UInt8] = []
    /// The last sequence number written to the file (those of `unflushed` after it are still to
    /// be written: a write failed, and is tried again with the next records).
    private var writtenThrough: Int64 = 0
    /// Flushes of the log made so far (a benchmark counts them against the changes).
    public private(set) var flushes = 0
    /// The newest file and its size as of the last flush (or the start): a power cut keeps at least that.
    public private(set) var flushedThrough: (file: Int, size: Int64) = (1, 0)
    private var fileNumber: Int
    private var fileSize: Int64
    /// A file was started since the last flush: its name needs the folder flushed too.
    private var newFile = false

    public var folder: String { layout.deviceFolder(device) }
    private func path(_ number: Int) -> String { folder + "/" + SyncLayout.changeFileName(number) }

    /// Opens (or starts) the device's folder. A torn or unreadable end of the newest file, left by
    /// a crash or a power cut before it was flushed, is cut off so that the file stays readable by
    /// every other device (what was acknowledged is still in the outbox: see `reappend`).
    ///
    /// With `start` (where the store's merged state says the log was flushed through, and the
    /// line there checked) only what comes after it is read, not the whole log.
    public init(layout: SyncLayout, device: String, rotationBytes: Int64 = 4 << 20, from start: SyncCursor? = nil) throws {
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
        let start = start.flatMap { numbers.contains($0.fileNumber) ? $0 : nil }  // a file it names that is gone: all of it
        var cursor = start ?? SyncCursor()
        for number in numbers where number >= cursor.fileNumber {  // only at start: learns the last sequence number and clock reading
            let path = folder + "/" + SyncLayout.changeFileName(number)
            if number > cursor.fileNumber || start == nil { cursor.fileNumber = number; cursor.offset = 0 }
            // A few thousand lines at a time: a log read whole (a rebuild) held every record in memory.
            while true {
                let (records, clean, _, skipped) = SyncLogReader.read(path: path, device: device, cursor: &cursor, limit: 4096)
                if let last = records.last { clock.observe(last.hlc) }
                if let last = skipped.last { clock.observe(last.record.hlc) }  // written by a newer version of this device
                if clean || records.count + skipped.count < 4096 { break }
            }
            if number == fileNumber {
                fileSize = cursor.offset
                if (Files.size(path) ?? 0) != cursor.offset && truncate(path, off_t(cursor.offset)) != 0 {
                    throw FileError("cut the torn end of", path)
                }
            }
        }
        nextSequence = cursor.nextSequence
        writtenThrough = nextSequence - 1
        flushedThrough = (fileNumber, fileSize)
        if cursor.fileNumber != fileNumber { cursor.fileNumber = fileNumber; cursor.offset = 0 }
        flushedCursor = cursor
        lastWrittenSum = cursor.lastSum
    }

    /// Where a reader of this log can start after every flushed record (what the store's
    /// positions keep for this device): file, offset, next sequence number, and the line's sum.
    public private(set) var flushedCursor = SyncCursor()
    /// The `sum` of the last line written.
    private var lastWrittenSum = ""

    /// Lets merged records move the clock on, so that the next local change comes after them.
    public func observe(_ reading: HLC) { clock.observe(reading) }

    /// The drafts as records with the next sequence numbers and clock readings, and the clock
    /// after them; nothing is kept (a change may still be refused).
    public func stamp(_ drafts: [SyncDraft], wallMilliseconds: Int64) -> (records: [SyncRecord], clock: HybridClock) {
        var stampClock = clock
        var sequence = nextSequence
        let records = drafts.map { draft in
            defer { sequence += 1 }
            return SyncRecord(device: device, sequence: sequence, hlc: stampClock.tick(wallMilliseconds: wallMilliseconds),
                              kind: draft.kind, id: draft.id, operation: draft.operation, fields: draft.fields)
        }
        return (records, stampClock)
    }

    /// Takes records stamped by `stamp` (in a change that was committed) as this device's and
    /// writes them without a flush. A failed write keeps them to write with the next records.
    public func accept(_ records: [SyncRecord], lines: [[UInt8]]? = nil, clock stampClock: HybridClock) throws {
        guard let last = records.last else { return }
        unflushed += records
        let added = lines ?? records.map(\.lineBytes)
        unflushedLines += added
        for line in added { unflushedText += line }
        nextSequence = last.sequence + 1
        clock = stampClock
        try writePending()
    }

    /// Stamps, appends and flushes the drafts (with every record not flushed before them);
    /// returns the records as written. On failure the drafts are not kept: their sequence numbers
    /// and clock readings are used by the next ones.
    @discardableResult
    public func append(_ drafts: [SyncDraft], wallMilliseconds: Int64) throws -> [SyncRecord] {
        guard !drafts.isEmpty else { return [] }
        try writePending()
        let (records, stampClock) = stamp(drafts, wallMilliseconds: wallMilliseconds)
        let (number, size, written, kept) = (fileNumber, fileSize, writtenThrough, unflushed.count)
        do {
            unflushed += records
            for record in records {
                unflushedLines.append(record.lineBytes)
                unflushedText += unflushedLines.last!
            }
            try writePending()
            try flush()
        } catch {
            // Cut back to before the drafts (the records before them stay, written).
            _ = truncate(path(number), off_t(size))
            if fileNumber != number { unlink(path(fileNumber)) }
            (fileNumber, fileSize, writtenThrough) = (number, size, written)
            if unflushed.count > kept {
                unflushed.removeLast(unflushed.count - kept)
                unflushedLines.removeLast(unflushedLines.count - kept)
                unflushedText = unflushedLines.reduce(into: []) { $0 += $1 }
            }
            throw error
        }
        if let last = records.last { nextSequence = last.sequence + 1 }
        clock = stampClock
        return records
    }

    /// Makes every record appended so far durable: one fsync of the newest file (and of the
    /// folder when the file is new). The outbox is then empty.
    public func flush() throws {
        try writePending()
        guard !unflushed.isEmpty || newFile else { return }
        try flushFile()
        unflushed = []
        unflushedLines = []
        unflushedText = []
    }

    private func flushFile() throws {
        let fd = try descriptor(of: fileNumber)
        guard fsync(fd) == 0 else { throw FileError("flush", path(fileNumber)) }
        if newFile { try Files.syncDirectory(folder) }
        newFile = false
        flushes += 1
        flushedThrough = (fileNumber, fileSize)
        flushedCursor.fileNumber = fileNumber
        flushedCursor.offset = fileSize
        flushedCursor.nextSequence = writtenThrough + 1
        flushedCursor.lastSum = lastWrittenSum
    }

    /// Puts back the records of the outbox that a power cut took from the log: those from the
    /// next sequence number on, in order and without gaps, as the very same lines. Records the
    /// log already has are skipped, so doing it twice adds nothing. Returns how many were written.
    @discardableResult
    public func reappend(_ outbox: [SyncRecord]) throws -> Int {
        var missing: [SyncRecord] = []
        for record in outbox.sorted(by: { $0.sequence < $1.sequence }) where record.device == device && record.sequence >= nextSequence {
            guard record.sequence == nextSequence + Int64(missing.count) else { break }
            missing.append(record)
        }
        guard !missing.isEmpty else { return 0 }
        var reClock = clock
        for record in missing { reClock.observe(record.hlc) }
        try accept(missing, clock: reClock)
        try flush()
        return missing.count
    }

    /// Writes the records not written yet.
    private func writePending() throws {
        guard let last = unflushed.last, last.sequence > writtenThrough else { return }
        let first = unflushed.firstIndex { $0.sequence > writtenThrough }!
        try write(Array(unflushed[first...]), lines: Array(unflushedLines[first...]))
    }

    /// Writes records at the end of the log without a flush. A record starts the next file when
    /// the current one has reached `rotationBytes` (the same rule record by record, so lines put
    /// back after a power cut land exactly where they were); the full file is flushed first.
    private func write(_ records: [SyncRecord], lines: [[UInt8]]) throws {
        var index = 0
        while index < records.count {
            if fileSize > 0 && fileSize >= rotationBytes {
                try flushFile()
                fileNumber += 1
                fileSize = 0
                newFile = true
            }
            var bytes: [UInt8] = []
            while index < records.count && (fileSize + Int64(bytes.count) < rotationBytes || fileSize + Int64(bytes.count) == 0) {
                bytes += lines[index]
                index += 1
            }
            let target = path(fileNumber)
            let fd = try descriptor(of: fileNumber)
            if fileSize == 0 { newFile = true }
            var written = 0
            while written < bytes.count {
                let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 {
                    let failure = FileError("append to", target)
                    _ = ftruncate(fd, off_t(fileSize))
                    throw failure
                }
                written += count
            }
            fileSize += Int64(bytes.count)
            writtenThrough = records[index - 1].sequence
            lastWrittenSum = SyncCursor.sum(ofLine: lines[index - 1].dropLast())
        }
    }

    /// The newest file, kept open for appending and flushing while it is the one written (a change
    /// then costs one write, not an open, a write and a close).
    private var openFile: (number: Int, fd: Int32)?

    /// The file's descriptor, opened (and created) when it is not open yet; opened anew when the
    /// open one was removed or replaced meanwhile, so that no record goes into a file nobody sees.
    private func descriptor(of number: Int) throws -> Int32 {
        if let file = openFile, file.number == number {
            var info = stat()
            if fstat(file.fd, &info) == 0 && info.st_nlink > 0 { return file.fd }
        }
        closeFile()
        let target = path(number)
        let fd = open(target, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileError("open", target) }
        openFile = (number, fd)
        return fd
    }

    private func closeFile() {
        if let file = openFile { close(file.fd) }
        openFile = nil
    }

    deinit { closeFile() }
}
