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

/// The merged state of every record seen: a function of the set of records, not of their order.
public struct SyncReplica: Sendable {
    public private(set) var entities: [SyncKind: [String: SyncEntity]] = [:]
    /// Highest stamp seen, to move the local clock past it.
    public private(set) var newest: HLC?
    /// Records applied, by device: applying one again changes nothing.
    private var applied: [String: Set<Int64>] = [:]
    public private(set) var newestByDevice: [String: HLC] = [:]

    public init() {}

    public var recordCount: Int { applied.values.reduce(0) { $0 + $1.count } }

    public func contains(device: String, sequence: Int64) -> Bool { applied[device]?.contains(sequence) == true }

    /// Applies records in any order; returns the entities that changed (kind, id).
    @discardableResult
    public mutating func apply<Records: Sequence>(_ records: Records) -> [(SyncKind, String)] where Records.Element == SyncRecord {
        var changed: [(SyncKind, String)] = []
        for record in records {
            guard applied[record.device, default: []].insert(record.sequence).inserted else { continue }
            if newest.map({ $0 < record.hlc }) ?? true { newest = record.hlc }
            if newestByDevice[record.device].map({ $0 < record.hlc }) ?? true { newestByDevice[record.device] = record.hlc }
            var entity = entities[record.kind]?[record.id] ?? SyncEntity(kind: record.kind, id: record.id)
            if entity.apply(record) {
                entities[record.kind, default: [:]][record.id] = entity
                changed.append((record.kind, record.id))
            }
        }
        return changed
    }

    public func entity(_ kind: SyncKind, _ id: String) -> SyncEntity? { entities[kind]?[id] }

    public func live(_ kind: SyncKind) -> [SyncEntity] {
        (entities[kind] ?? [:]).values.filter(\.isLive).sorted { $0.id < $1.id }
    }

    /// Rule 3: every live project or category id to the id of its same-name representative.
    public func representatives(_ kind: SyncKind) -> [String: String] {
        var groups: [String: [SyncEntity]] = [:]
        for entity in live(kind) { groups[SyncReplica.nameKey(entity["name"]?.stringValue ?? ""), default: []].append(entity) }
        var result: [String: String] = [:]
        var byName: [String: String] = [:]
        for (key, members) in groups {
            let first = members.min { ($0.created!, $0.id) < ($1.created!, $1.id) }!
            for member in members { result[member.id] = first.id }
            byName[key] = first.id
        }
        // A deleted one whose name lives on points there, so that what referred to it follows.
        for entity in (entities[kind] ?? [:]).values where entity.deleted != nil {
            if let target = byName[SyncReplica.nameKey(entity["name"]?.stringValue ?? "")] { result[entity.id] = target }
        }
        return result
    }

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
            for entity in (entities[kind] ?? [:]).values.sorted(by: { $0.id < $1.id }) where entity.deleted != nil {
                lines.append("deleted \(kind.rawValue) \(entity.id) \(describe(entity, [:]))")
            }
        }
        return lines
    }

    private func describe(_ entity: SyncEntity, _ rename: [String: String]) -> String {
        JSON.sortedObject(entity.fields.mapValues(\.value)).serialized
    }
}
