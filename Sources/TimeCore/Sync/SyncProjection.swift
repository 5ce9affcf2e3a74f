/// The store's form of a merged entity: the fields as the store holds them when it holds only what
/// the records say (docs/sync.md, "What a device derives"). Same-name groups resolve to their
/// representative (rule 3), a category that is gone leaves its projects uncategorized, segments
/// are the well-formed pairs. The materializer writes this form; the publisher compares the
/// store with it, so what the device derived is never mistaken for a change of the person's.
struct SyncProjection {
    let replica: SyncReplica
    /// Rule 3's same-name representatives, worked out once (not once per entity).
    let categoryTargets: [String: String]
    let projectTargets: [String: String]
    /// Whether the store holds a category row with this global id (the merge has written every
    /// live one; a change under way may have deleted one).
    let storeHasCategory: (String) -> Bool

    init(replica: SyncReplica, storeHasCategory: @escaping (String) -> Bool) {
        self.replica = replica
        self.storeHasCategory = storeHasCategory
        categoryTargets = replica.representatives(.category)
        projectTargets = replica.representatives(.project)
    }

    static let defaultColor = "#3465a4"

    func fields(_ entity: SyncEntity) -> [String: JSON] {
        switch entity.kind {
        case .category: return ["name": .string(entity["name"]?.stringValue ?? "")]
        case .project: return project(entity)
        case .session: return session(entity)
        case .device: return entity.fields.mapValues(\.value)
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

    private func project(_ entity: SyncEntity) -> [String: JSON] {
        [
            "name": .string(entity["name"]?.stringValue ?? ""),
            "color": .string(entity["color"]?.stringValue ?? SyncProjection.defaultColor),
            "category": .string(category(of: entity["category"]?.stringValue ?? "")),
            "archived": .bool(entity["archived"]?.boolValue ?? false),
        ]
    }

    private func session(_ entity: SyncEntity) -> [String: JSON] {
        [
            "project": .string(project(of: entity["project"]?.stringValue ?? "")),
            "start": .int(entity["start"]?.intValue ?? 0),
            "end": entity["end"]?.intValue.map(JSON.int) ?? .null,
            "note": .string(entity["note"]?.stringValue ?? ""),
            "unrecorded": .int(entity["unrecorded"]?.intValue ?? 0),
            "segments": .array(SyncProjection.segments(of: entity).map { .array([.int($0.start), $0.end.map(JSON.int) ?? .null]) }),
        ]
    }

    /// A session's segments as records carry them: `[start, end-or-null]` pairs; others are dropped.
    static func segments(of entity: SyncEntity) -> [Segment] {
        (entity["segments"]?.arrayValue ?? []).compactMap { pair in
            guard let values = pair.arrayValue, values.count == 2, let start = values[0].intValue else { return nil }
            return Segment(start: start, end: values[1].intValue)
        }
    }
}
