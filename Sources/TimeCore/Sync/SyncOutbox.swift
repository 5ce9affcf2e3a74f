/// The outbox (docs/sync.md, "One flush per change"): this device's records that are written to
/// its log but not yet flushed there travel in the change's snapshot slot, which the change
/// flushes anyway. A first line names the folder and device they belong to; then one record line
/// each, exactly as in the log (each with its own checksum).
enum SyncOutbox {
    static func encode(folder: String, device: String, lines: [UInt8]) -> [UInt8] {
        encode(head: head(folder: folder, device: device), lines: [lines])
    }

    /// The first line, naming the folder and device (the same for every change while sync runs).
    static func head(folder: String, device: String) -> [UInt8] {
        Array((JSON.sortedObject(["outbox": .int(1), "folder": .string(folder), "device": .string(device)]).serialized + "\n").utf8)
    }

    /// The head, then the record lines of every part, one after the other; nothing without lines.
    static func encode(head: [UInt8], lines parts: [[UInt8]]) -> [UInt8] {
        let count = parts.reduce(0) { $0 + $1.count }
        guard count > 0 else { return [] }
        var bytes = head
        bytes.reserveCapacity(head.count + count)
        for part in parts { bytes += part }
        return bytes
    }

    /// The records of an attachment that belong to `folder` and `device`, up to the first that
    /// does not verify; none when it belongs elsewhere (sync was enabled on another folder since).
    static func decode(_ bytes: [UInt8], folder: String, device: String) -> [SyncRecord] {
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false)
        guard let first = lines.first, case .object(let members)? = try? JSON.parse(Array(first)) else { return [] }
        let head = Dictionary(members, uniquingKeysWith: { a, _ in a })
        guard head["outbox"]?.intValue == 1, head["folder"]?.stringValue == folder, head["device"]?.stringValue == device else { return [] }
        var records: [SyncRecord] = []
        for line in lines.dropFirst() where !line.isEmpty {
            guard let record = try? SyncRecord.decode(line, folderDevice: device) else { break }
            records.append(record)
        }
        return records
    }
}

/// Sync's step in the change gate: wraps the tracker's recorder (the snapshot keeper). Before
/// the state is recorded, this device's records for what the change wrote are stamped (and
/// `sync_dirty` emptied in the same transaction); the keeper's slot carries them with the
/// outbox; once the change is committed they are written to the log, unflushed.
final class SyncGate: ChangeRecorder {
    let inner: ChangeRecorder?
    weak var engine: SyncEngine?

    init(inner: ChangeRecorder?, engine: SyncEngine) { self.inner = inner; self.engine = engine }

    func recordState(of store: Store, changedDays: Set<String>, meanwhile: () throws -> Void) throws {
        do {
            try engine?.stageLocalRecords()
            if let inner {
                // Staging may mark sessions it gave a new global id (SyncPublisher.resurrect).
                try inner.recordState(of: store, changedDays: changedDays.union(store.changedDays), meanwhile: meanwhile)
            } else {
                try meanwhile()
            }
        } catch {
            engine?.dropStaged()
            throw error
        }
    }

    func changeCommitted() {
        inner?.changeCommitted()
        engine?.commitStaged()
    }

    func changeAbandoned() {
        inner?.changeAbandoned()
        engine?.dropStaged()
    }

    func tidyUp() { inner?.tidyUp() }

    /// The keeper under any gates.
    static func keeper(of recorder: ChangeRecorder?) -> SnapshotKeeper? {
        if let gate = recorder as? SyncGate { return keeper(of: gate.inner) }
        return recorder as? SnapshotKeeper
    }
}
