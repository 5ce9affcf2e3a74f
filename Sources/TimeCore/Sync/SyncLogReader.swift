import Glibc

/// Where reading a device's change files goes on from.
public struct SyncCursor: Equatable, Sendable {
    public var fileNumber = 1
    public var offset: Int64 = 0
    /// The next sequence number this device's records must have.
    public var nextSequence: Int64 = 1
    /// The checksum (`sum`) of the line that ends at `offset`, as written there: what a saved
    /// position is checked against (SyncPositions).
    public var lastSum = ""
    public init() {}
}

/// A complete line that cannot be applied: reading that device stops there until the file changes.
public struct SyncReadProblem: Equatable, Sendable, CustomStringConvertible {
    public let path: String
    public let offset: Int64
    public let reason: String
    public var description: String { "\(path) at byte \(offset): \(reason)" }
}

/// Reads the records other devices appended since the last read (docs/sync.md, "Reading the files
/// safely"). Stops at a partial line, a bad line or a sequence gap; never throws, never crashes.
public struct SyncLogReader: Sendable {
    public let layout: SyncLayout
    public private(set) var cursors: [String: SyncCursor] = [:]
    /// Well-formed records of a newer version read past since the last `takeSkipped()`.
    public private(set) var skipped: [SyncSkippedRecord] = []
    /// Devices whose `device.json` names a newer format, as of the last read: none of their
    /// records is read (docs/sync.md, "Versions").
    public private(set) var newerFormats: [String: Int64] = [:]

    /// The records of a newer version read past since the last call.
    public mutating func takeSkipped() -> [SyncSkippedRecord] {
        defer { skipped = [] }
        return skipped
    }

    public init(layout: SyncLayout, cursors: [String: SyncCursor] = [:]) {
        self.layout = layout; self.cursors = cursors
    }

    /// New records of every device but `own`, device by device in a fixed order; at most `limit`
    /// of them (a merge in batches, docs/sync.md "Enabling, disabling"): the cursors then stand
    /// after the last one taken, and the next call goes on from there.
    public mutating func readNew(except own: String?, limit: Int = .max) -> (records: [SyncRecord], problems: [SyncReadProblem]) {
        var records: [SyncRecord] = []
        var problems: [SyncReadProblem] = []
        let skippedBefore = skipped.count
        for device in layout.devices() where device != own {
            let (more, problem) = readNew(device: device, limit: limit - records.count - (skipped.count - skippedBefore))
            records += more
            if let problem { problems.append(problem) }
            if records.count + skipped.count - skippedBefore >= limit { break }
        }
        return (records, problems)
    }

    public mutating func readNew(device: String, limit: Int = .max) -> (records: [SyncRecord], problem: SyncReadProblem?) {
        var cursor = cursors[device] ?? SyncCursor()
        defer { cursors[device] = cursor }
        // A device file of a newer format: its records may mean what this version cannot tell.
        if let format = layout.format(of: device), format > SyncLayout.format {
            newerFormats[device] = format
            return ([], nil)
        }
        newerFormats[device] = nil
        let numbers = layout.changeFiles(of: device)
        var records: [SyncRecord] = []
        let skippedBefore = skipped.count
        for number in numbers where number >= cursor.fileNumber {
            if records.count + skipped.count - skippedBefore >= limit { break }
            let moving = number > cursor.fileNumber
            if moving && number != cursor.fileNumber + 1 { break }  // a file between has not arrived
            var trial = cursor
            if moving { trial.fileNumber = number; trial.offset = 0 }
            let path = layout.deviceFolder(device) + "/" + SyncLayout.changeFileName(number)
            let (read, clean, problem, passed) = SyncLogReader.read(path: path, device: device, cursor: &trial,
                                                                    limit: limit - records.count - (skipped.count - skippedBefore))
            // Move on to a newer file only once something of it was taken: until then an older file
            // may still grow (it arrived cut at a line's end).
            if moving && trial.offset == 0 { return (records, problem) }
            cursor = trial
            records += read
            skipped += passed.map { SyncSkippedRecord(device: device, fileNumber: number, at: $0.cursor, record: $0.record) }
            if !clean { return (records, problem) }
        }
        return (records, nil)
    }

    /// Takes the complete, valid, in-sequence lines of one file from the cursor on. `clean` is
    /// true when the file was read to its end without stopping. With a `limit`, only about what
    /// that many lines take is read at a time (a batch must not read a whole 4 MiB file for a
    /// few hundred lines).
    /// Records of a newer version (well-formed, checksum right) are read past like records, each
    /// with the cursor before it, and count toward `limit`.
    static func read(path: String, device: String, cursor: inout SyncCursor, limit: Int = .max)
        -> (records: [SyncRecord], clean: Bool, problem: SyncReadProblem?, skipped: [(cursor: SyncCursor, record: SyncNotUnderstood)]) {
        var records: [SyncRecord] = []
        var skipped: [(cursor: SyncCursor, record: SyncNotUnderstood)] = []
        var window = limit == .max ? Int.max : max(1 << 16, min(limit, 1 << 14) * 1024)
        while true {
            guard let (bytes, atEnd) = tail(of: path, from: cursor.offset, atMost: window) else { return (records, false, nil, skipped) }
            var start = 0
            var lastLine: Range<Int>?
            defer { if let lastLine { cursor.lastSum = SyncCursor.sum(ofLine: bytes[lastLine]) } }
            while start < bytes.count {
                if records.count + skipped.count >= limit { return (records, false, nil, skipped) }  // the rest is the next batch's
                guard let end = bytes[start...].firstIndex(of: 10) else { break }
                let record: SyncRecord?
                let sequence: Int64
                var newer: SyncNotUnderstood?
                do {
                    record = try SyncRecord.decode(bytes[start..<end], folderDevice: device)
                    sequence = record!.sequence
                } catch {
                    guard let notUnderstood = error.notUnderstood else {
                        return (records, false, SyncReadProblem(path: path, offset: cursor.offset, reason: error.reason), skipped)
                    }
                    (record, sequence, newer) = (nil, notUnderstood.sequence, notUnderstood)
                }
                if sequence > cursor.nextSequence { return (records, false, nil, skipped) }  // an earlier one is missing
                if sequence == cursor.nextSequence {
                    if let record { records.append(record) }
                    if let newer { skipped.append((cursor, newer)) }
                    cursor.nextSequence += 1
                }
                cursor.offset += Int64(end + 1 - start)
                lastLine = start..<end
                start = end + 1
            }
            if atEnd { return (records, start == bytes.count, nil, skipped) }  // a line not ended: mid-copy
            if start == 0 { window = window > Int.max / 2 ? Int.max : window * 2 }  // a line longer than the window
        }
    }

    /// The bytes of a file from `offset` to its end; nil when it cannot be read or has shrunk.
    static func tail(of path: String, from offset: Int64) -> [UInt8]? {
        tail(of: path, from: offset, atMost: .max)?.bytes
    }

    /// The bytes of a file from `offset` on, at most `atMost`, and whether they reach its end;
    /// nil when it cannot be read or has shrunk.
    static func tail(of path: String, from offset: Int64, atMost: Int) -> (bytes: [UInt8], atEnd: Bool)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int64(info.st_size) >= offset else { return nil }
        var result: [UInt8] = []
        var position = offset
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while result.count < atMost {
            let wanted = min(chunk.count, atMost - result.count)
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, wanted, off_t(position)) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return (result, true) }
            result += chunk[0..<count]
            position += Int64(count)
        }
        // Exactly at the window's end: whether more follows is told by the next read.
        var probe: UInt8 = 0
        let more = pread(fd, &probe, 1, off_t(position))
        return (result, more == 0)
    }
}
