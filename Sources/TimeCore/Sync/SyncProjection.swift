/// The store's form of a merged entity: the fields as the store holds them when it holds only what
/// the records say (docs/sync.md, "What a device derives"). Same-name groups resolve to their
/// representative (rule 3), a category that is gone leaves its projects uncategorized, segments
/// are the well-formed pairs. The materializer writes this form; the publisher compares the
/// store with it, so what the device derived is never mistaken for a change of the person's.
struct SyncProjection {
    let replica: SyncReplica
    /// Whether the store holds a category row with this global id (the merge has written every
    /// live one; a change under way may have deleted one).
    let storeHasCategory: (String) -> Bool
    private let groups: Groups

    init(replica: SyncReplica, storeHasCategory: @escaping (String) -> Bool) {
        self.replica = replica
        self.storeHasCategory = storeHasCategory
        groups = Groups(replica: replica)
    }

    /// Rule 3's same-name representatives, worked out once and only when asked for (a change of
    /// the timer or of a note never needs them).
    private final class Groups {
        let replica: SyncReplica
        init(replica: SyncReplica) { self.replica = replica }
        lazy var categories = replica.representatives(.category)
        lazy var projects = replica.representatives(.project)
    }

    var categoryTargets: [String: String] { groups.categories }
    var projectTargets: [String: String] { groups.projects }

    static let defaultColor = "#3465a4"

    /// The fields the store holds of each kind.
    static let names: [SyncKind: [String]] = [
        .category: ["name"], .project: ["name", "color", "category", "archived"],
        .session: ["project", "start", "end", "note", "unrecorded", "segments", "focus"],
    ]

    func fields(_ entity: SyncEntity) -> [String: JSON] {
        guard let names = SyncProjection.names[entity.kind] else { return entity.fields.mapValues(\.value) }
        var fields: [String: JSON] = [:]
        for name in names { fields[name] = field(name, of: entity) }
        return fields
    }

    /// One field of the store's form; only what it needs is worked out (a change of the timer or
    /// of a note never needs the same-name groups).
    func field(_ name: String, of entity: SyncEntity) -> JSON? {
        let value = entity[name]
        switch (entity.kind, name) {
        case (.category, "name"), (.project, "name"), (.session, "note"): return .string(value?.stringValue ?? "")
        case (.project, "color"): return .string(value?.stringValue ?? SyncProjection.defaultColor)
        case (.project, "category"): return .string(category(of: value?.stringValue ?? ""))
        case (.project, "archived"): return .bool(value?.boolValue ?? false)
        case (.session, "project"): return .string(project(of: value?.stringValue ?? ""))
        case (.session, "start"), (.session, "unrecorded"): return .int(value?.intValue ?? 0)
        case (.session, "end"): return value?.intValue.map(JSON.int) ?? .null
        case (.session, "segments"):
            return .array(SyncProjection.segments(of: entity).map { .array([.int($0.start), $0.end.map(JSON.int) ?? .null]) })
        case (.session, "focus"): return SyncFields.focus(SyncProjection.focus(of: entity))
        default: return value
        }
    }

    /// The representative of a project's same-name group (itself when alone or unknown).
    func project(of gid: String) -> String { projectTargets[gid] ?? gid }

    /// The category a project shows: the representative of its group while that is live and in
    /// the store, else none.
    func category(of gid: String) -> String {
        guard !gid.isEmpty else { return "" }
        let target = categoryTargets[gid] ?? gid
        return replica.entity(.category, target)?.isLive == true && storeHasCategory(target) ? target : ""
    }

    /// A session's completed focus phases as records carry them: `[start, end]` pairs (none when
    /// the record has no `focus`, as a record of a device before the focus timer); others are dropped.
    static func focus(of entity: SyncEntity) -> [FocusSpan] {
        (entity["focus"]?.arrayValue ?? []).compactMap { pair in
            guard let values = pair.arrayValue, values.count == 2, let start = values[0].intValue, let end = values[1].intValue,
                  end >= start else { return nil }
            return FocusSpan(start: start, end: end)
        }
    }

    /// A session's segments as records carry them: `[start, end-or-null]` pairs; others are dropped.
    static func segments(of entity: SyncEntity) -> [Segment] {
        (entity["segments"]?.arrayValue ?? []).compactMap { pair in
            guard let values = pair.arrayValue, values.count == 2, let start = values[0].intValue else { return nil }
            return Segment(start: start, end: values[1].intValue)
        }
    }
}
