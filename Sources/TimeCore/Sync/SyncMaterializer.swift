/// Makes the store say what the merged records say, inside one change of the tracker's gate
/// (docs/sync.md, "Through the change gate"). Categories and projects are few and reconciled
/// whole (same-name groups fold into their representative); sessions only where records arrived.
/// A session open on another device stays out of the store: this device's timer is its own.
struct SyncMaterializer {
    let store: Store
    let replica: SyncReplica
    let device: String
    /// What the store holds of each entity: the one form the publisher compares with.
    private let projection: SyncProjection
    private var categoryTargets: [String: String] { projection.categoryTargets }
    private var projectTargets: [String: String] { projection.projectTargets }

    init(store: Store, replica: SyncReplica, device: String) {
        self.store = store; self.replica = replica; self.device = device
        // Categories are reconciled first, so every live one has its row when projects are written.
        projection = SyncProjection(replica: replica) { gid in
            (try? store.database.queryFirst("SELECT 1 FROM categories WHERE gid = ?", .text(gid)) { _ in true }) == true
        }
    }

    func apply(_ changed: [(SyncKind, String)]) throws {
        let folded = try SyncMaterializer.foldedProjects(in: store)
        let orphans = try SyncMaterializer.orphanSessions(in: store)
        try reconcile(.category)
        try reconcile(.project)
        var seen = Set<String>()
        var waiting = Set<String>()
        func place(_ gid: String) throws { if try !session(gid) { waiting.insert(gid) } }
        for (kind, id) in changed where kind == .session && seen.insert(id).inserted { try place(id) }
        // Sessions whose project had no row yet (its record was in a later batch, or has not
        // arrived from its device) are placed again, so that the store does not depend on how
        // the records were cut into batches.
        for id in orphans.sorted() where seen.insert(id).inserted { try place(id) }
        if waiting != orphans { try SyncMaterializer.saveOrphans(waiting, in: store) }
        // A project folded into another's row that has left that group since (renamed away by a
        // device that never saw the other) left its sessions in that row: they are placed again,
        // so that the store does not depend on whether this device ever saw the fold.
        for (alias, target) in folded where projection.project(of: alias) != projection.project(of: target) {
            guard let row = try rowID(.project, projection.project(of: target)) else { continue }
            let sessions = try store.database.query("SELECT gid FROM sessions WHERE project_id = ? AND gid IS NOT NULL", .integer(row)) { $0.string(0) }
            for gid in sessions where seen.insert(gid).inserted { _ = try session(gid) }
        }
        let now = projectTargets.filter { $0.key != $0.value }
        if now != folded { try SyncMaterializer.saveFolded(now, in: store) }
    }

    /// Meta key: every project whose row was folded into another's, as the store was last
    /// written (derived data, a few entries; kept across a roll-forward, see SyncStore).
    static let foldedKey = "sync_folded_projects"

    static func foldedProjects(in store: Store) throws -> [String: String] {
        guard let text = try store.meta(foldedKey), case .object(let members)? = try? JSON.parse(text) else { return [:] }
        var folded: [String: String] = [:]
        for (alias, target) in members { if let target = target.stringValue { folded[alias] = target } }
        return folded
    }

    /// Meta key: live sessions not in the store because their project has no row yet (derived
    /// data, normally empty; kept across a roll-forward like the folded projects).
    static let orphansKey = "sync_orphan_sessions"

    static func orphanSessions(in store: Store) throws -> Set<String> {
        guard let text = try store.meta(orphansKey), let list = (try? JSON.parse(text))?.arrayValue else { return [] }
        return Set(list.compactMap(\.stringValue))
    }

    private static func saveOrphans(_ orphans: Set<String>, in store: Store) throws {
        try store.setMeta(orphansKey, JSON.array(orphans.sorted().map(JSON.string)).serialized)
    }

    private static func saveFolded(_ folded: [String: String], in store: Store) throws {
        try store.setMeta(foldedKey, JSON.sortedObject(folded.mapValues(JSON.string)).serialized)
    }

    private var table: (SyncKind) -> String { { $0 == .category ? "categories" : "projects" } }

    private func rowID(_ kind: SyncKind, _ gid: String) throws -> Int64? {
        let name = kind == .session ? "sessions" : table(kind)
        return try store.database.queryFirst("SELECT id FROM \(name) WHERE gid = ?", .text(gid)) { $0.int(0) }
    }

    /// Categories or projects: delete, fold aliases into their representative, then write names
    /// in two steps (a temporary key first) so that swapped names never collide.
    private func reconcile(_ kind: SyncKind) throws {
        let representatives = kind == .category ? categoryTargets : projectTargets
        let rows: [(id: Int64, gid: String)] = try store.database.query("SELECT id, coalesce(gid, '') FROM \(table(kind)) ORDER BY id") {
            ($0.int(0), $0.string(1))
        }
        for row in rows {
            guard let entity = replica.entity(kind, row.gid), entity.created != nil else { continue }  // not published yet
            if entity.deleted != nil, representatives[row.gid] == nil {
                try remove(kind, row.id)
            } else if let target = representatives[row.gid], target != row.gid {
                if let targetRow = try rowID(kind, target) {
                    try fold(kind, row.id, into: targetRow)
                } else {
                    try store.database.run("UPDATE \(table(kind)) SET gid = ? WHERE id = ?", .text(target), .integer(row.id))
                }
            }
        }
        var writes: [(Int64?, SyncEntity)] = []
        for entity in replica.live(kind) where representatives[entity.id] == entity.id {
            writes.append((try rowID(kind, entity.id), entity))
        }
        for (row, entity) in writes {
            if let row { try store.database.run("UPDATE \(table(kind)) SET name_key = ? WHERE id = ?", .text("~" + entity.id), .integer(row)) }
        }
        for (row, entity) in writes { try write(kind, row, entity) }
    }

    private func write(_ kind: SyncKind, _ row: Int64?, _ entity: SyncEntity) throws {
        let fields = projection.fields(entity)
        let name = fields["name"]?.stringValue ?? ""
        if kind == .category {
            if let row {
                try store.database.run("UPDATE categories SET name = ?, name_key = ? WHERE id = ?",
                                       .text(name), .text(TextInput.nameKey(name)), .integer(row))
            } else {
                try store.insertCategory(Category(id: try nextID("categories"), name: name, globalID: entity.id))
            }
            return
        }
        let category = fields["category"]?.stringValue ?? ""
        let project = Project(id: row ?? 0, name: name, color: fields["color"]?.stringValue ?? SyncProjection.defaultColor,
                              categoryID: category.isEmpty ? nil : try rowID(.category, category),
                              archived: fields["archived"]?.boolValue ?? false, globalID: entity.id)
        if row != nil { try store.updateProject(project) } else { _ = try store.insertProject(project) }
    }

    private func nextID(_ table: String) throws -> Int64 {
        (try store.database.queryFirst("SELECT coalesce(max(id), 0) + 1 FROM \(table)") { $0.int(0) }) ?? 1
    }

    private func remove(_ kind: SyncKind, _ row: Int64) throws {
        if kind == .category {
            try store.deleteCategory(id: row)
        } else if try store.database.queryFirst("SELECT 1 FROM sessions WHERE project_id = ? LIMIT 1", .integer(row), row: { _ in true }) == true {
            // A project deleted elsewhere that still has sessions here stays, archived.
            try store.database.run("UPDATE projects SET archived = 1 WHERE id = ?", .integer(row))
        } else {
            try store.database.run("DELETE FROM projects WHERE id = ?", .integer(row))
        }
    }

    private func fold(_ kind: SyncKind, _ row: Int64, into target: Int64) throws {
        if kind == .category {
            try store.database.run("UPDATE projects SET category_id = ? WHERE category_id = ?", .integer(target), .integer(row))
            try store.deleteCategory(id: row)
            return
        }
        let ids = try store.database.query("SELECT id FROM sessions WHERE project_id = ?", .integer(row)) { $0.int(0) }
        for session in try ids.compactMap({ try store.session(id: $0) }) {
            var moved = session
            moved.projectID = target
            try store.updateSession(moved, previous: session, segmentsChanged: false)
        }
        try store.database.run("DELETE FROM projects WHERE id = ?", .integer(row))
    }

    /// Writes one session as merged; false when it is live but its project has no row yet.
    private func session(_ gid: String) throws -> Bool {
        guard let entity = replica.entity(.session, gid), entity.created != nil else { return true }
        let existing = try rowID(.session, gid).flatMap { try store.session(id: $0) }
        let elsewhere = entity["end"]?.isNull == true && entity["origin"]?.stringValue != device
        let fields = projection.fields(entity)
        let projectRow = try rowID(.project, fields["project"]?.stringValue ?? "")
        guard entity.isLive, !elsewhere, let projectRow else {
            if let existing { try store.deleteSession(existing) }
            return !entity.isLive || elsewhere
        }
        let segments = SyncProjection.segments(of: entity)
        var session = WorkSession(id: existing?.id ?? 0, projectID: projectRow, start: fields["start"]?.intValue ?? 0,
                                  end: fields["end"]?.intValue, unrecordedSeconds: fields["unrecorded"]?.intValue ?? 0,
                                  note: fields["note"]?.stringValue ?? "", segments: segments, importKey: existing?.importKey ?? "")
        session.globalID = gid
        session.focus = SyncProjection.focus(of: entity)
        if let existing {
            if existing != session { try store.updateSession(session, previous: existing, segmentsChanged: existing.segments != segments) }
        } else {
            _ = try store.insertSession(session)
        }
        return true
    }
}
