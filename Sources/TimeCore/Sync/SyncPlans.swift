/// What a person plans and bills by travels too (docs/sync.md, "A record"; issue 30): a project's
/// `rate` and `weekly_target` are fields of its record, and the shared settings (`currency`,
/// `weekly_target`) are fields of the writing device's `device` record, the one in effect being
/// the newest any device wrote. Settings on `device` records rather than a kind of their own, so
/// that a device still running the version before this one (which stops at a kind it does not
/// know, but ignores fields it does not know) goes on merging everything else.
enum SyncPlans {
    /// The shared settings: each a `meta` key of the store and a field of `device` records, by the same name.
    static let settings = [PlanSettings.Key.currency, PlanSettings.Key.weeklyTarget]
    /// The kind of a note in `sync_dirty` saying a shared setting was written (its field names which).
    static let noteKind = "setting"
    /// Tests only: publish as the version before this one did (no rates, targets or settings), to
    /// make a history synced before the upgrade (SyncPlansTests).
    nonisolated(unsafe) static var publishAsBefore = false

    /// Store schema v14: the notes also name a project's `rate` and `weekly_target`, and the shared
    /// settings written in `meta`. The projects' triggers of v10 are made again with the two columns.
    static var notesSchema: String {
        var sql = ""
        for event in ["insert", "update", "delete"] { sql += "DROP TRIGGER IF EXISTS sync_notes_projects_\(event);\n" }
        let projects = SyncStore.fieldsByColumn.filter { $0.table == "projects" }.map {
            ($0.table, $0.kind, $0.columns + [("rate_cents", "rate"), ("weekly_target", "weekly_target")])
        }
        sql += SyncStore.noteTriggers(projects, segments: false)
        let on = "(SELECT value FROM meta WHERE key = 'sync_folder') <> ''"
        let keys = settings.map { "'\($0)'" }.joined(separator: ", ")
        let note = "INSERT OR IGNORE INTO sync_dirty(kind, gid, field) VALUES('\(noteKind)', ''"
        sql += """
            CREATE TRIGGER sync_notes_settings_insert AFTER INSERT ON meta WHEN NEW.key IN (\(keys)) AND \(on)
                BEGIN \(note), NEW.key); END;
            CREATE TRIGGER sync_notes_settings_update AFTER UPDATE ON meta
                WHEN NEW.key IN (\(keys)) AND OLD.value IS NOT NEW.value AND \(on)
                BEGIN \(note), NEW.key); END;
            CREATE TRIGGER sync_notes_settings_delete AFTER DELETE ON meta WHEN OLD.key IN (\(keys)) AND \(on)
                BEGIN \(note), OLD.key); END;

            """
        return sql
    }

    // MARK: The store's form of what the records say

    /// A recorded rate as the store holds it: cents within the accepted range, else none.
    static func rate(_ value: JSON?) -> Int64? {
        guard let cents = value?.intValue, cents >= 0, cents <= Money.maximumRateCents else { return nil }
        return cents
    }

    /// A recorded weekly target as the store holds it: seconds within a week, else none (0).
    static func target(_ value: JSON?) -> Int64 {
        guard let seconds = value?.intValue, seconds >= 0, seconds <= PlanSettings.maximumWeeklyTarget else { return 0 }
        return seconds
    }

    /// A shared setting's recorded value in the store's form ("" or a code; seconds); nil when no
    /// device ever wrote it.
    static func setting(_ field: String, in replica: SyncReplica) -> String? {
        var newest: (value: JSON, stamp: SyncStamp)?
        for device in replica.every(.device) {
            if let kept = device.fields[field], newest.map({ $0.stamp < kept.stamp }) ?? true { newest = kept }
        }
        guard let value = newest?.value else { return nil }
        if field == PlanSettings.Key.currency {
            let code = value.stringValue ?? ""
            return (try? PlanSettings.currencyCode(code)) == code ? code : ""
        }
        return String(target(value))
    }

    /// The store's value of a shared setting, as `meta` holds it ("" or a code; seconds).
    static func stored(_ field: String, in store: Store) throws -> String {
        let settings = try store.planSettings()
        return field == PlanSettings.Key.currency ? settings.currency : String(settings.weeklyTarget)
    }

    /// A shared setting as a record's field: `currency` s, `weekly_target` int.
    static func recordValue(_ field: String, _ stored: String) -> JSON {
        field == PlanSettings.Key.currency ? .string(stored) : .int(Int64(stored) ?? 0)
    }

    // MARK: Merging

    /// Writes the shared settings the records hold where the store differs (a merge's writes);
    /// a setting no device ever wrote is left as it is.
    static func materializeSettings(_ store: Store, _ replica: SyncReplica) throws {
        for field in settings {
            guard let value = setting(field, in: replica), try stored(field, in: store) != value else { continue }
            try store.setMeta(field, value)
        }
    }

    /// A project's rate and target as merged, for its row: a field no record carries keeps the
    /// row's value (records written before this version carry neither).
    static func plan(of entity: SyncEntity, fields: [String: JSON], keeping existing: Project?) -> (rate: Int64?, target: Int64) {
        (entity["rate"] != nil ? rate(fields["rate"]) : existing?.rateCents,
         entity["weekly_target"] != nil ? target(fields["weekly_target"]) : existing?.weeklyTarget ?? 0)
    }
}

extension SyncEngine {
    /// Meta key: the folder and device for which the rates, targets and shared settings this
    /// store held before they travelled have been published (once, after the upgrade).
    static let plansPublishedKey = "sync_published_plans"

    /// A device that published its history before rates, targets and the shared settings
    /// travelled publishes them once, in one change (they are few, as categories and projects
    /// are): a value the merged state has (another device already published it) is taken here;
    /// one only this store has is published. Marked done in the same change, so a crash before
    /// repeats it and one after does not.
    func publishPlansOnce() throws {
        let store = tracker.store, replica = replica
        batches += 1
        try tracker.change(recordingStep: false) {
            let projects = try store.projects()
            // What the merged state has is written into the store (a merge's writes, not noted).
            try SyncStore.keepingNotes(in: store) {
                try SyncPlans.materializeSettings(store, replica)
                for project in projects {
                    guard let entity = replica.entity(.project, project.globalID), entity.isLive else { continue }
                    let (rate, target) = SyncPlans.plan(of: entity, fields: entity.fields.mapValues(\.value), keeping: project)
                    if rate != project.rateCents || target != project.weeklyTarget {
                        var plan = project
                        (plan.rateCents, plan.weeklyTarget) = (rate, target)
                        try store.updateProjectPlan(plan)
                    }
                }
            }
            // What only this store has is noted, and the gate's publisher stamps it.
            func note(_ kind: String, _ gid: String, _ field: String) throws {
                try store.database.run("INSERT OR IGNORE INTO sync_dirty(kind, gid, field) VALUES(?, ?, ?)", .text(kind), .text(gid), .text(field))
            }
            for project in projects {
                let entity = replica.entity(.project, project.globalID)
                if entity?["rate"] == nil && project.rateCents != nil { try note("project", project.globalID, "rate") }
                if entity?["weekly_target"] == nil && project.weeklyTarget != 0 { try note("project", project.globalID, "weekly_target") }
            }
            for field in SyncPlans.settings where SyncPlans.setting(field, in: replica) == nil {
                if try SyncPlans.stored(field, in: store) != SyncPlans.defaultValue(field) { try note(SyncPlans.noteKind, "", field) }
            }
            try store.setMeta(SyncEngine.plansPublishedKey, layout.root + " " + device)
        }
        if let logProblem { throw TrackerError.storageFailure(logProblem) }
        plansPending = false
        try tracker.reload()
    }
}

extension SyncPlans {
    /// A shared setting's value when none is set, as `meta` holds it.
    static func defaultValue(_ field: String) -> String { field == PlanSettings.Key.currency ? "" : "0" }
}
