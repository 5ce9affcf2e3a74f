/// Devices run different versions for a while (docs/sync.md, "Versions"). A well-formed record
/// of a kind or an operation this version does not know (its checksum right) is not damage: the
/// reader keeps its place past it, the merged state counts its sequence number as read, and the
/// engine remembers where the first such record of each device is, so that a later version,
/// which understands it, reads that device's files again from there and merges what it skipped,
/// without a rebuild. A device file of a newer format is not read at all (its records may mean
/// what this version cannot tell), and read from its start once this version is updated.

/// The envelope of a record this version does not understand.
public struct SyncNotUnderstood: Equatable, Sendable {
    public let sequence: Int64
    public let hlc: HLC
    /// `kind "settings"`, `operation "move"`: what was not understood.
    public let what: String
}

/// A record of a newer version read past, with where it is.
public struct SyncSkippedRecord: Equatable, Sendable {
    public let device: String
    /// The cursor just before its line (its file, offset and sequence number).
    public let position: SyncCursor
    public let record: SyncNotUnderstood
    public var sequence: Int64 { record.sequence }

    init(device: String, fileNumber: Int, at cursor: SyncCursor, record: SyncNotUnderstood) {
        var position = cursor
        position.fileNumber = fileNumber
        position.lastSum = ""
        self.device = device; self.position = position; self.record = record
    }
}

/// The kinds and operations this build understands.
enum SyncUnderstanding {
    /// Tests only: kinds or operations this build treats as unknown (TIME_SYNC_TEST_UNKNOWN,
    /// comma-separated, e.g. `category`), so that a test runs the version before and after one
    /// that added them: the records skipped by the first are merged by the second.
    nonisolated(unsafe) static var hidden: Set<String> = {
        guard let value = getenv("TIME_SYNC_TEST_UNKNOWN") else { return [] }
        return Set(String(cString: value).split(separator: ",").map(String.init))
    }()

    static func kind(_ name: String) -> SyncKind? { hidden.contains(name) ? nil : SyncKind(rawValue: name) }
    static func operation(_ name: String) -> SyncOperation? { hidden.contains(name) ? nil : SyncOperation(rawValue: name) }

    /// What this build understands, as one string: records skipped by a build with another are read again.
    static var signature: String {
        let kinds = SyncKind.allCases.map(\.rawValue).filter { !hidden.contains($0) }
        let operations = [SyncOperation.create, .set, .delete].map(\.rawValue).filter { !hidden.contains($0) }
        return "format \(SyncLayout.format); kinds \(kinds.joined(separator: ",")); operations \(operations.joined(separator: ","))"
    }
}

import Glibc

extension SyncLayout {
    /// The format this version writes and reads (`device.json`'s `format`).
    public static let format: Int64 = 1

    /// The format a device's `device.json` names; nil when it is missing or unreadable (read as
    /// format 1: the file may arrive after the change files).
    public func format(of device: String) -> Int64? {
        guard let bytes = try? Files.read(deviceFolder(device) + "/device.json"), let value = try? JSON.parse(bytes) else { return nil }
        return value["format"]?.intValue
    }
}

/// What the engine remembers of records of a newer version, kept with the merged state (its
/// file's `sync_kept`, key `newer`), so that a rebuild forgets it and finds them again.
struct SyncNewerRecords: Equatable {
    struct First: Equatable {
        var position: SyncCursor
        var what: String
        /// `SyncUnderstanding.signature` of the build that skipped it.
        var understanding: String
    }
    /// Per device, the first record skipped and not merged since.
    var first: [String: First] = [:]
    /// Per device, where reading it again (a newer build) has got to.
    var rescan: [String: SyncCursor] = [:]

    static let key = "newer"

    mutating func remember(_ skipped: [SyncSkippedRecord]) {
        for record in skipped where first[record.device].map({ record.sequence < $0.position.nextSequence }) ?? true {
            first[record.device] = First(position: record.position, what: record.record.what, understanding: SyncUnderstanding.signature)
        }
    }

    /// Records skipped by a build that understood less are read again by this one.
    mutating func rescanWhatThisBuildMayUnderstand() {
        for (device, entry) in first where entry.understanding != SyncUnderstanding.signature {
            rescan[device] = rescan[device].map { $0.nextSequence < entry.position.nextSequence ? $0 : entry.position } ?? entry.position
            first[device] = nil
        }
    }

    var json: String {
        func cursor(_ c: SyncCursor) -> [String: JSON] { ["file": .int(Int64(c.fileNumber)), "offset": .int(c.offset), "seq": .int(c.nextSequence)] }
        return JSON.sortedObject([
            "first": JSON.sortedObject(first.mapValues { entry in
                JSON.sortedObject(cursor(entry.position).merging(["what": .string(entry.what), "by": .string(entry.understanding)]) { a, _ in a })
            }),
            "rescan": JSON.sortedObject(rescan.mapValues { JSON.sortedObject(cursor($0)) }),
        ]).serialized
    }

    init() {}

    init(json text: String) {
        guard let value = try? JSON.parse(Array(text.utf8)) else { return }
        func cursor(_ value: JSON) -> SyncCursor? {
            guard let file = value["file"]?.intValue, let offset = value["offset"]?.intValue, let seq = value["seq"]?.intValue else { return nil }
            var c = SyncCursor()
            (c.fileNumber, c.offset, c.nextSequence) = (Int(file), offset, seq)
            return c
        }
        if case .object(let members)? = value["first"] {
            for (device, entry) in members {
                guard let position = cursor(entry), let what = entry["what"]?.stringValue, let by = entry["by"]?.stringValue else { continue }
                first[device] = First(position: position, what: what, understanding: by)
            }
        }
        if case .object(let members)? = value["rescan"] {
            for (device, entry) in members { if let position = cursor(entry) { rescan[device] = position } }
        }
    }
}

extension SyncReplicaStore {
    func newerRecords() throws -> SyncNewerRecords {
        try database.queryFirst("SELECT value FROM sync_kept WHERE key = ?", .text(SyncNewerRecords.key)) { SyncNewerRecords(json: $0.string(0)) }
            ?? SyncNewerRecords()
    }

    func writeNewerRecords(_ newer: SyncNewerRecords) throws {
        if newer == SyncNewerRecords() {
            try database.run("DELETE FROM sync_kept WHERE key = ?", .text(SyncNewerRecords.key))
        } else {
            try database.run("INSERT OR REPLACE INTO sync_kept(key, value) VALUES(?, ?)", .text(SyncNewerRecords.key), .text(newer.json))
        }
    }
}

extension SyncReplica {
    /// Records of a newer version read past: their sequence numbers count as read (so the
    /// device's later records follow on), and their clock readings as seen.
    mutating func markSkipped(_ skipped: [SyncSkippedRecord]) {
        for record in skipped { noteApplied(device: record.device, sequence: record.sequence, hlc: record.record.hlc) }
    }
}

extension SyncEngine {
    /// Devices whose records this version does not understand (some skipped, or a device file of a
    /// newer format): id, name and what. `SyncMessage` names them and asks for an update here.
    public var notUnderstood: [(device: String, name: String, what: String)] {
        var result: [String: String] = newer.first.mapValues(\.what)
        for (device, format) in reader.newerFormats { result[device] = "a device file of format \(format)" }
        return result.keys.sorted().map { id in (id, replica.entity(.device, id)?["name"]?.stringValue ?? id, result[id]!) }
    }

    /// Takes what the reader read past: counted as read, the first of each device remembered.
    func takeSkipped() {
        let skipped = reader.takeSkipped()
        guard !skipped.isEmpty else { return }
        replica.markSkipped(skipped)
        newer.remember(skipped)
    }

    /// One batch of reading a device's files again from its first record a build that understood
    /// less skipped, up to where the merge has read: what this build understands is applied (a
    /// record applied again changes nothing), what it still does not is remembered again.
    func rescanBatch(limit: Int) throws {
        guard let device = newer.rescan.keys.sorted().first, let from = newer.rescan[device] else { return }
        let end = reader.cursors[device]?.nextSequence ?? 1
        var again = SyncLogReader(layout: layout, cursors: [device: from])
        let (records, _) = again.readNew(device: device, limit: limit)
        let skipped = again.takeSkipped().filter { $0.sequence < end }
        let known = records.filter { $0.sequence < end }
        newer.remember(skipped)
        let reached = again.cursors[device] ?? from
        newer.rescan[device] = (records.isEmpty && skipped.isEmpty) || reached.nextSequence >= end ? nil : reached
        mergedSinceStart += known.count
        unmaterialized += replica.reapply(known)
        guard !unmaterialized.isEmpty else {
            try saveMergedState(force: true)
            return
        }
        let changed = unmaterialized
        batches += 1
        try tracker.change(recordingStep: false) {
            let store = tracker.store
            try SyncStore.keepingNotes(in: store) {
                try SyncMaterializer(store: store, replica: replica, device: self.device).apply(changed)
            }
            try writeMergedState(foreign: mergedCursors)
        }
        unmaterialized = []
        replica.didSave()
        try tracker.reload()
    }
}
