/// The merged state of the folder's records, kept in the store (schema v9, docs/sync.md,
/// "Start-up"), so that a start reads only what was appended since, not every device's whole
/// log, and memory does not grow with the history. It is derived data: neither in snapshots nor
/// in the undo history, and rebuilt from the folder whenever it cannot be trusted (another
/// folder, a store restored from a snapshot, positions that do not match the files).
final class SyncReplicaStore {
    let database: SQLiteDatabase

    init(database: SQLiteDatabase) { self.database = database }

    static let tables: Set<String> = ["sync_entities", "sync_devices"]

    static let schema = """
        CREATE TABLE sync_entities(
            kind TEXT NOT NULL,
            id TEXT NOT NULL,
            open INTEGER NOT NULL,
            state TEXT NOT NULL,
            PRIMARY KEY(kind, id)) WITHOUT ROWID;
        CREATE INDEX sync_entities_open ON sync_entities(kind) WHERE open = 1;
        CREATE TABLE sync_devices(
            device TEXT PRIMARY KEY,
            applied_through INTEGER NOT NULL,
            applied_extra TEXT NOT NULL,
            newest_time INTEGER NOT NULL,
            newest_counter INTEGER NOT NULL) WITHOUT ROWID;
        """

    /// Meta key: the folder root whose records the tables hold.
    static let rootKey = "sync_replica"

    /// Forgets everything (another folder, or positions that no longer match the files).
    func reset(root: String) throws {
        try database.execute("DELETE FROM sync_entities; DELETE FROM sync_devices")
        try database.run("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", .text(SyncReplicaStore.rootKey), .text(root))
        unreadable = nil
    }

    func root() throws -> String? {
        try database.queryFirst("SELECT value FROM meta WHERE key = ?", .text(SyncReplicaStore.rootKey)) { $0.string(0) }
    }

    // MARK: Entities

    /// Why a row could not be read back (a read error, a damaged row): from then on the kept
    /// state is not trusted, and the next write forgets it instead (the next start rebuilds).
    private(set) var unreadable: String?

    /// Nil when the entity has no row, or its row could not be read (then `unreadable` says why).
    func entity(_ kind: SyncKind, _ id: String) -> SyncEntity? {
        do {
            guard let text = try database.queryFirst("SELECT state FROM sync_entities WHERE kind = ? AND id = ?",
                                                     .text(kind.rawValue), .text(id), row: { $0.string(0) }) else { return nil }
            return decoded(kind: kind, id: id, text)
        } catch {
            unreadable = "\(error)"
            return nil
        }
    }

    func entities(_ kind: SyncKind) throws -> [SyncEntity] {
        try database.query("SELECT id, state FROM sync_entities WHERE kind = ?", .text(kind.rawValue)) { ($0.string(0), $0.string(1)) }
            .compactMap { decoded(kind: kind, id: $0.0, $0.1) }
    }

    func openSessions() throws -> [SyncEntity] {
        try database.query("SELECT id, state FROM sync_entities WHERE kind = 'session' AND open = 1") { ($0.string(0), $0.string(1)) }
            .compactMap { decoded(kind: .session, id: $0.0, $0.1) }
    }

    private func decoded(kind: SyncKind, id: String, _ text: String) -> SyncEntity? {
        guard let entity = SyncReplicaStore.decode(kind: kind, id: id, text) else {
            unreadable = "the row of \(kind.rawValue) \(id) in sync_entities is damaged"
            return nil
        }
        return entity
    }

    /// Remembers that a read of the kept state failed (see `unreadable`).
    func noteUnreadable(_ error: Error) { unreadable = "\(error)" }

    /// Forgets the kept state and the positions that go with it, so that the next start rebuilds
    /// it from the folder and compares every record with the store (a record applied to a damaged
    /// entity may not have been written into the store).
    func forget() throws {
        try database.execute("DELETE FROM sync_entities; DELETE FROM sync_devices")
        try database.run("DELETE FROM meta WHERE key IN (?, ?)", .text(SyncReplicaStore.rootKey), .text(SyncPositions.key))
    }

    func write(_ entity: SyncEntity) throws {
        try database.run("INSERT OR REPLACE INTO sync_entities(kind, id, open, state) VALUES(?, ?, ?, ?)",
                         .text(entity.kind.rawValue), .text(entity.id), .integer(entity.isOpenSession ? 1 : 0),
                         .text(SyncReplicaStore.encode(entity)))
    }

    // MARK: Devices

    func devices() throws -> [(String, AppliedSequences, HLC)] {
        try database.query("SELECT device, applied_through, applied_extra, newest_time, newest_counter FROM sync_devices") { row in
            let extra = (try? JSON.parse(row.string(2)))?.arrayValue?.compactMap(\.intValue) ?? []
            return (row.string(0), AppliedSequences(through: row.int(1), extra: Set(extra)), HLC(time: row.int(3), counter: row.int(4)))
        }
    }

    func writeDevice(_ device: String, applied: AppliedSequences, newest: HLC) throws {
        let extra = JSON.array(applied.extra.sorted().map(JSON.int)).serialized
        try database.run("""
            INSERT OR REPLACE INTO sync_devices(device, applied_through, applied_extra, newest_time, newest_counter)
            VALUES(?, ?, ?, ?, ?)
            """, .text(device), .integer(applied.through), .text(extra), .integer(newest.time), .integer(newest.counter))
    }

    // MARK: The form of a row

    /// `{"s":[stamp…],"c":index,"d":index,"f":{field:[value,index]}}`: every distinct stamp once
    /// (a stamp is `[time,counter,device,seq]`; most fields share the one of their `create`),
    /// then the created and deleted stamps and each field's by their place in "s" (or null).
    static func encode(_ entity: SyncEntity) -> String {
        var stamps: [SyncStamp] = []
        func index(_ stamp: SyncStamp) -> Int {
            if let found = stamps.firstIndex(of: stamp) { return found }
            stamps.append(stamp)
            return stamps.count - 1
        }
        let created = entity.created.map(index), deleted = entity.deleted.map(index)
        let fields = entity.fields.map { ($0.key, $0.value.value, index($0.value.stamp)) }
        var out: [UInt8] = []
        out.reserveCapacity(384)
        out += #"{"s":["#.utf8
        for (position, stamp) in stamps.enumerated() {
            out += (position == 0 ? "[" : ",[").utf8
            JSON.writeDecimal(stamp.hlc.time, to: &out)
            out.append(0x2c)
            JSON.writeDecimal(stamp.hlc.counter, to: &out)
            out.append(0x2c)
            JSON.writeString(stamp.device, to: &out)
            out.append(0x2c)
            JSON.writeDecimal(stamp.sequence, to: &out)
            out.append(0x5d)
        }
        func write(_ index: Int?) {
            if let index { JSON.writeDecimal(Int64(index), to: &out) } else { out += "null".utf8 }
        }
        out += #"],"c":"#.utf8
        write(created)
        out += #","d":"#.utf8
        write(deleted)
        out += #","f":{"#.utf8
        for (position, (key, value, stamp)) in fields.enumerated() {
            if position > 0 { out.append(0x2c) }
            JSON.writeString(key, to: &out)
            out += ":[".utf8
            value.write(to: &out)
            out.append(0x2c)
            write(stamp)
            out.append(0x5d)
        }
        out += "}}".utf8
        return String(decoding: out, as: UTF8.self)
    }

    /// The entity of a row; nil when the row is not in the form `encode` writes.
    static func decode(kind: SyncKind, id: String, _ text: String) -> SyncEntity? {
        guard let value = try? JSON.parse(text), let list = value["s"]?.arrayValue, case .object(let members)? = value["f"] else { return nil }
        var stamps: [SyncStamp] = []
        for item in list {
            guard let parts = item.arrayValue, parts.count == 4, let time = parts[0].intValue, let counter = parts[1].intValue,
                  let device = parts[2].stringValue, let sequence = parts[3].intValue else { return nil }
            stamps.append(SyncStamp(hlc: HLC(time: time, counter: counter), device: device, sequence: sequence))
        }
        func stamp(_ value: JSON?) -> SyncStamp?? {
            guard let value, !value.isNull else { return .some(nil) }
            guard let index = value.intValue, stamps.indices.contains(Int(index)) else { return nil }
            return stamps[Int(index)]
        }
        var fields: [String: (value: JSON, stamp: SyncStamp)] = [:]
        for (key, entry) in members {
            guard let items = entry.arrayValue, items.count == 2, let kept = stamp(items[1]) ?? nil else { return nil }
            fields[key] = (items[0], kept)
        }
        guard let created = stamp(value["c"]), let deleted = stamp(value["d"]) else { return nil }
        return SyncEntity(kind: kind, id: id, fields: fields, created: created, deleted: deleted)
    }
}
