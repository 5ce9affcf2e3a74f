/// What this device publishes of a change (docs/sync.md, "Publishing"): for every field the
/// store's triggers noted as written, the store's value where it differs from the store's form
/// of the merged state (`SyncProjection`). A record thus carries only what a person's change set
/// (invariant 9 of the design): what the device derived (a same-name fold, a session following
/// its project into the surviving one, projects uncategorized with their category, a state a
/// roll-forward put back) is either never noted or equal to what the merged state says.
struct SyncPublisher {
    let store: Store
    let replica: SyncReplica
    let device: String

    /// Every field of a record, for a record that is compared whole (`full`, or inserted).
    private static let allFields: Set<String> = [SyncStore.wholeRecord]

    /// Drafts of this device's records for what the notes say was written, or with `full` for
    /// every difference between the store and the merged state (when sync is enabled: changes
    /// made while it was off were not noted). `resurrecting` lets a record inserted again under
    /// a global id the merged state holds as deleted (an undo of a delete) take a new id, since
    /// a delete wins for good (rule 2); it rewrites the row, so only inside a change. Nil when
    /// nothing was noted.
    func drafts(full: Bool, resurrecting: Bool) throws -> [SyncDraft]? {
        var noted: [SyncKind: [String: Set<String>]] = [:]
        var settings: Set<String> = full ? Set(SyncPlans.settings) : []
        if !full {
            let rows = try store.database.query("SELECT kind, gid, field FROM sync_dirty") { ($0.string(0), $0.string(1), $0.string(2)) }
            for (kind, gid, field) in rows {
                if let kind = SyncKind(rawValue: kind) { noted[kind, default: [:]][gid, default: []].insert(field) }
                if kind == SyncPlans.noteKind && SyncPlans.settings.contains(field) { settings.insert(field) }
            }
            guard !noted.isEmpty || !settings.isEmpty else { return nil }
            if resurrecting { try resurrect(&noted) }
        }
        let wholeKinds = full || noted[.category] != nil || noted[.project] != nil
        let categories = wholeKinds ? try store.categories() : []
        let projects = wholeKinds ? try store.projects() : []
        let sessions: [WorkSession] = full ? try store.allSessions()
            : try (noted[.session] ?? [:]).keys.sorted().compactMap { gid in
                try store.database.queryFirst("SELECT id FROM sessions WHERE gid = ?", .text(gid)) { $0.int(0) }
            }.compactMap { try store.session(id: $0) }
        let categoryGID = Dictionary(categories.map { ($0.id, $0.globalID) }, uniquingKeysWith: { a, _ in a })
        var projectGID = Dictionary(projects.map { ($0.id, $0.globalID) }, uniquingKeysWith: { a, _ in a })
        // A change of the timer writes one session: its project's global id is looked up alone.
        for session in sessions where projectGID[session.projectID] == nil {
            projectGID[session.projectID] = try store.database.queryFirst("SELECT coalesce(gid, '') FROM projects WHERE id = ?",
                                                                          .integer(session.projectID)) { $0.string(0) }
        }
        let storeCategories = Set(categories.map(\.globalID))
        let projection = SyncProjection(replica: replica) { gid in
            wholeKinds ? storeCategories.contains(gid)
                : (try? store.database.queryFirst("SELECT 1 FROM categories WHERE gid = ?", .text(gid)) { _ in true }) == true
        }
        var drafts = Drafts(replica: replica, projection: projection, device: device)
        func written(_ kind: SyncKind, _ gid: String) -> Set<String>? { full ? SyncPublisher.allFields : noted[kind]?[gid] }
        for category in categories {
            guard let fields = written(.category, category.globalID) else { continue }
            drafts.compare(.category, category.globalID, SyncFields.category(category), written: fields)
        }
        for project in projects {
            guard let fields = written(.project, project.globalID) else { continue }
            let category = project.categoryID.flatMap { categoryGID[$0] } ?? ""
            drafts.compare(.project, project.globalID, SyncFields.project(project, categoryGID: category), written: fields)
        }
        for session in sessions {
            guard let fields = written(.session, session.globalID) else { continue }
            drafts.compare(.session, session.globalID, SyncFields.session(session, projectGID: projectGID[session.projectID] ?? ""),
                           written: fields, origin: true)
        }
        // Gone from the store: deleted here, unless it lives on as a same-name alias.
        let present: [SyncKind: Set<String>] = [
            .category: storeCategories, .project: Set(projects.map(\.globalID)), .session: Set(sessions.map(\.globalID)),
        ]
        var gone: [SyncKind: Set<String>] = noted.mapValues { Set($0.keys) }
        if full {
            // Made here (by this device's own records) and gone from the store: deleted while sync
            // was off. A project or category that lives on under another's id is skipped below.
            for kind in [SyncKind.category, .project, .session] {
                for entity in replica.live(kind) where entity.created?.device == device { gone[kind, default: []].insert(entity.id) }
            }
        }
        for kind in [SyncKind.category, .project, .session] {
            for id in (gone[kind] ?? []).sorted() where !(present[kind]?.contains(id) ?? false) {
                drafts.delete(kind, id, unlessLivingOnIn: present[kind] ?? [])
            }
        }
        // The shared settings: fields of this device's own `device` record (SyncPlans).
        var shared: [String: JSON] = [:]
        for field in settings.sorted() where !SyncPlans.publishAsBefore {
            let stored = try SyncPlans.stored(field, in: store)
            if stored != SyncPlans.setting(field, in: replica) ?? SyncPlans.defaultValue(field) {
                shared[field] = SyncPlans.recordValue(field, stored)
            }
        }
        var all = drafts.all
        if !shared.isEmpty {
            all.append(SyncDraft(kind: .device, id: device, operation: replica.entity(.device, device)?.created == nil ? .create : .set, fields: shared))
        }
        return all
    }

    /// Gives a new global id to every row inserted again under an id the merged state holds as
    /// deleted, so that it is published as created (and what refers to it follows, since the
    /// store's references are row ids).
    private func resurrect(_ noted: inout [SyncKind: [String: Set<String>]]) throws {
        for (kind, table) in [(SyncKind.category, "categories"), (.project, "projects"), (.session, "sessions")] {
            for (gid, fields) in noted[kind] ?? [:] where fields.contains(SyncStore.inserted) {
                guard replica.entity(kind, gid)?.deleted != nil,
                      let row = try store.database.queryFirst("SELECT id FROM \(table) WHERE gid = ?", .text(gid), row: { $0.int(0) })
                else { continue }
                let fresh = SyncRecord.newID()
                try store.database.run("UPDATE \(table) SET gid = ? WHERE id = ?", .text(fresh), .integer(row))
                // A session's chunk holds its global id: its day is written again with this
                // change, and a day the keeper keeps serialised takes the new id in.
                if kind == .session, let session = try store.session(id: row) { store.markChanged(session) }
                noted[kind]?[gid] = nil
                noted[kind, default: [:]][fresh] = [SyncStore.inserted]
            }
        }
    }
}

/// The drafts of one publish, built entity by entity.
private struct Drafts {
    let replica: SyncReplica
    let projection: SyncProjection
    let device: String
    private(set) var all: [SyncDraft] = []
    private var deleted = Set<String>()

    init(replica: SyncReplica, projection: SyncProjection, device: String) {
        self.replica = replica; self.projection = projection; self.device = device
    }

    /// The live members of an entity's same-name group (rule 3), itself included.
    private func members(_ kind: SyncKind, of id: String) -> [String] {
        let targets = kind == .category ? projection.categoryTargets : projection.projectTargets
        return targets.compactMap { $0.value == id && replica.entity(kind, $0.key)?.isLive == true ? $0.key : nil }.sorted()
    }

    /// A record in the store whose `written` fields may differ from the merged state.
    mutating func compare(_ kind: SyncKind, _ id: String, _ fields: [String: JSON], written: Set<String>, origin: Bool = false) {
        guard let entity = replica.entity(kind, id), entity.created != nil else {
            var created = fields
            if origin { created["origin"] = .string(device) }
            all.append(SyncDraft(kind: kind, id: id, operation: .create, fields: created))
            return
        }
        // Deleted for good (rule 2): an edit here does not bring it back.
        if entity.deleted != nil { return }
        let whole = written.contains(SyncStore.wholeRecord) || written.contains(SyncStore.inserted)
        let changed = fields.filter { (whole || written.contains($0.key)) && !merged(entity, $0.key, is: $0.value) }
        if !changed.isEmpty { all.append(SyncDraft(kind: kind, id: id, operation: .set, fields: changed)) }
        // A renamed project or category renames every member of its same-name group (rule 3).
        if let name = changed["name"], kind != .session {
            for member in members(kind, of: id) where member != id {
                all.append(SyncDraft(kind: kind, id: member, operation: .set, fields: ["name": .string(name.stringValue ?? "")]))
            }
        }
    }

    /// The store's value of a field is what the merged state says: as recorded, or as this device
    /// derives it (a reference resolved to its same-name representative or to none, a default for
    /// a field never recorded). Only those can differ from the recorded value, so only those are
    /// worked out (a pause compares its segments as they are).
    private func merged(_ entity: SyncEntity, _ field: String, is value: JSON) -> Bool {
        let recorded = entity[field]
        if recorded == value { return true }
        let derived = recorded == nil || (entity.kind, field) == (.session, "project") || (entity.kind, field) == (.project, "category")
        return derived && projection.field(field, of: entity) == value
    }

    /// A record gone from the store: deleted here. One that lives on as another's alias (folded
    /// by name) is not; a deleted representative takes its group's other members with it, or the
    /// name would come back with them.
    mutating func delete(_ kind: SyncKind, _ id: String, unlessLivingOnIn present: Set<String>) {
        guard let entity = replica.entity(kind, id), entity.isLive, !deleted.contains(id) else { return }
        let targets = kind == .category ? projection.categoryTargets : kind == .project ? projection.projectTargets : [:]
        if let target = targets[id], target != id, present.contains(target) { return }
        for member in [id] + (kind == .session ? [] : members(kind, of: id)) where !present.contains(member) && deleted.insert(member).inserted {
            all.append(SyncDraft(kind: kind, id: member, operation: .delete))
        }
    }
}

/// The fields of a record as sync writes them (docs/sync.md, "A record").
enum SyncFields {
    static func category(_ category: Category) -> [String: JSON] { ["name": .string(category.name)] }

    static func project(_ project: Project, categoryGID: String) -> [String: JSON] {
        if SyncPlans.publishAsBefore {
            return ["name": .string(project.name), "color": .string(project.color), "category": .string(categoryGID), "archived": .bool(project.archived)]
        }
        return ["name": .string(project.name), "color": .string(project.color), "category": .string(categoryGID), "archived": .bool(project.archived),
         "rate": project.rateCents.map(JSON.int) ?? .null, "weekly_target": .int(project.weeklyTarget)]
    }

    /// One more session field (as `focus` of issue 31 was added): add it here, to
    /// `SyncProjection.names[.session]` and `SyncProjection.field` (its value when no record carries
    /// it), to the session's row in `SyncMaterializer.session` (a field no record carries keeps the
    /// row's value, as `SyncPlans.plan` does, since older devices never write it), to a v10-style
    /// note of its column (SyncStore.noteTriggers, in a migration of its own) and to docs/sync.md's
    /// list of session fields. Older readers ignore it: the format number stays.
    static func session(_ session: WorkSession, projectGID: String) -> [String: JSON] {
        [
            "project": .string(projectGID), "start": .int(session.start), "end": session.end.map(JSON.int) ?? .null,
            "note": .string(session.note), "unrecorded": .int(session.unrecordedSeconds),
            "segments": .array(session.segments.map { .array([.int($0.start), $0.end.map(JSON.int) ?? .null]) }),
            "focus": focus(session.focus),
        ]
    }

    /// The completed focus phases of a session: `[[start, end], …]`.
    static func focus(_ spans: [FocusSpan]) -> JSON { .array(spans.map { .array([.int($0.start), .int($0.end)]) }) }
}
