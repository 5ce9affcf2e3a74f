/// One entity as merged from every device's records (docs/sync.md, "Merge rules").
public struct SyncEntity: Equatable, Sendable {
    public let kind: SyncKind
    public let id: String
    /// Every field with the stamp of the record that wrote the value kept (rule 1).
    public private(set) var fields: [String: (value: JSON, stamp: SyncStamp)] = [:]
    /// The smallest stamp of a `create`; nil while only edits have arrived.
    public private(set) var created: SyncStamp?
    /// The smallest stamp of a `delete`: deleted for good (rule 2); the fields stay, as the last version.
    public private(set) var deleted: SyncStamp?

    init(kind: SyncKind, id: String) { self.kind = kind; self.id = id }

    /// An entity as the store kept it (SyncReplicaStore).
    init(kind: SyncKind, id: String, fields: [String: (value: JSON, stamp: SyncStamp)], created: SyncStamp?, deleted: SyncStamp?) {
        self.kind = kind; self.id = id; self.fields = fields; self.created = created; self.deleted = deleted
    }

    /// A session that is live and has no end: a running or paused timer (this device's or another's).
    var isOpenSession: Bool { kind == .session && isLive && self["end"]?.isNull == true }

    public var isLive: Bool { created != nil && deleted == nil }

    public subscript(field: String) -> JSON? { fields[field]?.value }

    public static func == (a: SyncEntity, b: SyncEntity) -> Bool {
        a.kind == b.kind && a.id == b.id && a.created == b.created && a.deleted == b.deleted
            && a.fields.count == b.fields.count
            && a.fields.allSatisfy { key, kept in b.fields[key].map { $0.value == kept.value && $0.stamp == kept.stamp } ?? false }
    }

    /// Applies one record; true when anything changed.
    mutating func apply(_ record: SyncRecord) -> Bool {
        let stamp = record.stamp
        var changed = false
        switch record.operation {
        case .create:
            if created.map({ stamp < $0 }) ?? true { created = stamp; changed = true }
        case .delete:
            if deleted.map({ stamp < $0 }) ?? true { deleted = stamp; changed = true }
        case .set: break
        }
        for (key, value) in record.fields {
            if let kept = fields[key], !(kept.stamp < stamp) { continue }
            fields[key] = (value, stamp)
            changed = true
        }
        return changed
    }
}

/// The sequence numbers of one device's records applied so far: all below `through`, and the
/// few above it that arrived out of order (a device's files are read in order, so normally none).
struct AppliedSequences: Equatable {
    var through: Int64 = 1
    var extra: Set<Int64> = []

    func contains(_ sequence: Int64) -> Bool { sequence < through || extra.contains(sequence) }

    /// False when it was applied already.
    mutating func insert(_ sequence: Int64) -> Bool {
        guard !contains(sequence) else { return false }
        if sequence == through {
            through += 1
            while extra.remove(through) != nil { through += 1 }
        } else {
            extra.insert(sequence)
        }
        return true
    }

    var count: Int { Int(through - 1) + extra.count }
}

/// The merged state of every record seen: a function of the set of records, not of their order.
///
/// Either wholly in memory, or kept in the store (`SyncReplicaStore`, docs/sync.md, "Start-up"):
/// then devices, categories, projects and open sessions are in memory, and any other session is
/// read from the store when asked for, so memory does not grow with the history. What records
/// change is written back by `write(to:)` inside a transaction of the caller's.
public struct SyncReplica {
    /// Every entity in memory; with a store behind, the few kinds, open sessions, and the
    /// sessions changed since the last save.
    private var entities: [SyncKind: [String: SyncEntity]] = [:]
    /// Highest stamp seen, to move the local clock past it.
    public private(set) var newest: HLC?
    /// Records applied, by device: applying one again changes nothing.
    private var applied: [String: AppliedSequences] = [:]
    public private(set) var newestByDevice: [String: HLC] = [:]
    let backing: SyncReplicaStore?
    /// Entities and devices changed since the last `write(to:)` that was committed, each with the
    /// number of its latest change (a change made after a write, before its commit, stays unsaved).
    private var unsaved: [EntityKey: Int] = [:]
    private var unsavedDevices: [String: Int] = [:]
    private var changeNumber = 0
    /// What the last `write(to:)` wrote, as of which change.
    private var written: (entities: [EntityKey: Int], devices: [String: Int]) = ([:], [:])
    /// Ids of open sessions (kept in memory with a store behind too).
    private var openSessionIDs: Set<String> = []
    /// The store holds sessions that memory does not: only then is it asked for one.
    private var sessionsLeftMemory = false

    struct EntityKey: Hashable { let kind: SyncKind; let id: String }

    public init() { backing = nil }

    /// The merged state the store keeps.
    init(loadingFrom backing: SyncReplicaStore) throws {
        self.backing = backing
        for (device, sequences, reading) in try backing.devices() {
            applied[device] = sequences
            newestByDevice[device] = reading
            if newest.map({ $0 < reading }) ?? true { newest = reading }
        }
        for kind in [SyncKind.device, .category, .project] {
            for entity in try backing.entities(kind) { entities[kind, default: [:]][entity.id] = entity }
        }
        sessionsLeftMemory = true
        for entity in try backing.openSessions() {
            entities[.session, default: [:]][entity.id] = entity
            openSessionIDs.insert(entity.id)
        }
    }

    /// An empty merged state with a store behind (emptied by the caller).
    init(emptyWith backing: SyncReplicaStore) { self.backing = backing }

    public var recordCount: Int { applied.values.reduce(0) { $0 + $1.count } }

    /// Records of `device` applied.
    func appliedCount(of device: String) -> Int { applied[device]?.count ?? 0 }

    public func contains(device: String, sequence: Int64) -> Bool { applied[device]?.contains(sequence) == true }

    /// Applies records in any order; returns the entities that changed (kind, id).
    @discardableResult
    public mutating func apply<Records: Sequence>(_ records: Records) -> [(SyncKind, String)] where Records.Element == SyncRecord {
        var changed: [(SyncKind, String)] = []
        for record in records {
            guard noteApplied(device: record.device, sequence: record.sequence, hlc: record.hlc) else { continue }
            var entity = entity(record.kind, record.id) ?? SyncEntity(kind: record.kind, id: record.id)
            if entity.apply(record) {
                entities[record.kind, default: [:]][record.id] = entity
                unsaved[EntityKey(kind: record.kind, id: record.id)] = changeNumber
                if entity.isOpenSession { openSessionIDs.insert(record.id) } else { openSessionIDs.remove(record.id) }
                changed.append((record.kind, record.id))
            }
        }
        return changed
    }

    /// Counts a record as read; false when it was already.
    @discardableResult
    mutating func noteApplied(device: String, sequence: Int64, hlc: HLC) -> Bool {
        guard applied[device, default: AppliedSequences()].insert(sequence) else { return false }
        changeNumber += 1
        unsavedDevices[device] = changeNumber
        if newest.map({ $0 < hlc }) ?? true { newest = hlc }
        if newestByDevice[device].map({ $0 < hlc }) ?? true { newestByDevice[device] = hlc }
        return true
    }

    /// Applies records already counted as read (their sequence numbers were read past by a build
    /// that did not understand them): applying a record twice changes nothing (rule 1, rule 2).
    mutating func reapply(_ records: [SyncRecord]) -> [(SyncKind, String)] {
        var changed: [(SyncKind, String)] = []
        for record in records {
            var entity = entity(record.kind, record.id) ?? SyncEntity(kind: record.kind, id: record.id)
            guard entity.apply(record) else { continue }
            changeNumber += 1
            entities[record.kind, default: [:]][record.id] = entity
            unsaved[EntityKey(kind: record.kind, id: record.id)] = changeNumber
            if entity.isOpenSession { openSessionIDs.insert(record.id) } else { openSessionIDs.remove(record.id) }
            changed.append((record.kind, record.id))
        }
        return changed
    }

    public func entity(_ kind: SyncKind, _ id: String) -> SyncEntity? {
        if let entity = entities[kind]?[id] { return entity }
        guard kind == .session, sessionsLeftMemory, let backing else { return nil }
        return backing.entity(kind, id)
    }

    /// Every entity of a kind, live or deleted (with a store behind, sessions are read from it).
    func every(_ kind: SyncKind) -> [SyncEntity] { all(kind) }

    private func all(_ kind: SyncKind) -> [SyncEntity] {
        let inMemory = entities[kind] ?? [:]
        guard kind == .session, sessionsLeftMemory, let backing else { return Array(inMemory.values) }
        var stored: [SyncEntity] = []
        do { stored = try backing.entities(kind) } catch { backing.noteUnreadable(error) }
        var merged = Dictionary(stored.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        merged.merge(inMemory) { _, newer in newer }
        return Array(merged.values)
    }

    public func live(_ kind: SyncKind) -> [SyncEntity] {
        all(kind).filter(\.isLive).sorted { $0.id < $1.id }
    }

    /// Live sessions without an end, of every device.
    public var openSessions: [SyncEntity] {
        openSessionIDs.sorted().compactMap { entities[.session]?[$0] }
    }

    /// Rule 3: every live project or category id to the id of its same-name representative.
    public func representatives(_ kind: SyncKind) -> [String: String] {
        var groups: [String: [SyncEntity]] = [:]
        for entity in live(kind) { groups[SyncReplica.nameKey(entity["name"]?.stringValue ?? ""), default: []].append(entity) }
        var result: [String: String] = [:]
        var byName: [String: SyncEntity] = [:]
        for (key, members) in groups {
            let first = members.min { ($0.created!, $0.id) < ($1.created!, $1.id) }!
            for member in members { result[member.id] = first.id }
            byName[key] = first
        }
        // A deleted one whose name lived on when it was deleted (a same-name one made before the
        // delete, elsewhere, unseen) points there, so that what referred to it follows. A name
        // made again after the delete is a new thing: what referred to the deleted one stays without.
        for entity in all(kind) where entity.deleted != nil {
            if let target = byName[SyncReplica.nameKey(entity["name"]?.stringValue ?? "")], let made = target.created,
               let deleted = entity.deleted, made < deleted {
                result[entity.id] = target.id
            }
        }
        return result
    }

    // MARK: Kept in the store

    /// Writes what changed since the last committed write; call inside a transaction, then
    /// `didSave()` once it is committed (if it is not, the next write writes it all again).
    mutating func write(to backing: SyncReplicaStore) throws {
        // What was read back could not be trusted: the kept state is dropped, not added to.
        if backing.unreadable != nil {
            try backing.forget()
            written = (unsaved, unsavedDevices)
            return
        }
        for key in unsaved.keys {
            guard let entity = entities[key.kind]?[key.id] else { continue }
            try backing.write(entity)
        }
        for device in unsavedDevices.keys {
            try backing.writeDevice(device, applied: applied[device] ?? AppliedSequences(), newest: newestByDevice[device] ?? HLC(time: 0, counter: 0))
        }
        written = (unsaved, unsavedDevices)
    }

    /// The last write was committed: what it wrote and was not changed since is saved, and
    /// saved sessions that are not open leave memory (the store has them).
    mutating func didSave() {
        for (key, number) in written.entities where unsaved[key] == number { unsaved[key] = nil }
        for (device, number) in written.devices where unsavedDevices[device] == number { unsavedDevices[device] = nil }
        written = ([:], [:])
        guard backing != nil, let sessions = entities[.session], !sessions.isEmpty else { return }
        entities[.session] = sessions.filter { openSessionIDs.contains($0.key) || unsaved[EntityKey(kind: .session, id: $0.key)] != nil }
        sessionsLeftMemory = true
    }

    /// Sessions held in memory (with a store behind: open ones and those not saved yet).
    var sessionsInMemory: Int { entities[.session]?.count ?? 0 }
    var sessionIDsInMemory: [String] { entities[.session].map { Array($0.keys) } ?? [] }

    /// Something changed since the last committed write.
    var hasUnsaved: Bool { !unsaved.isEmpty || !unsavedDevices.isEmpty }

    static func nameKey(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.drop { $0 == " " || $0 == "\t" }.reversed()
            .drop { $0 == " " || $0 == "\t" }.reversed())).lowercased()
    }

    /// The history as a person sees it, one line per record: what every device must agree on.
    public func view() -> [String] {
        let projects = representatives(.project)
        let categories = representatives(.category)
        var lines: [String] = []
        for category in live(.category) where categories[category.id] == category.id {
            lines.append("category \(category.id) \(describe(category, [:]))")
        }
        for project in live(.project) where projects[project.id] == project.id {
            var fields = project.fields.mapValues(\.value)
            if let category = fields["category"]?.stringValue { fields["category"] = .string(categories[category] ?? category) }
            lines.append("project \(project.id) \(JSON.sortedObject(fields).serialized)")
        }
        for session in live(.session) {
            var fields = session.fields.mapValues(\.value)
            if let project = fields["project"]?.stringValue { fields["project"] = .string(projects[project] ?? project) }
            lines.append("session \(session.id) \(JSON.sortedObject(fields).serialized)")
        }
        for kind in SyncKind.allCases {
            for entity in all(kind).sorted(by: { $0.id < $1.id }) where entity.deleted != nil {
                lines.append("deleted \(kind.rawValue) \(entity.id) \(describe(entity, [:]))")
            }
        }
        return lines
    }

    private func describe(_ entity: SyncEntity, _ rename: [String: String]) -> String {
        JSON.sortedObject(entity.fields.mapValues(\.value)).serialized
    }
}
