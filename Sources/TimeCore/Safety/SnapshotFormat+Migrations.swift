/// Older payloads brought forward one version step at a time, and a v4+ payload decoded into
/// the records a restore writes (the format itself: SnapshotFormat.swift).
extension SnapshotFormat {
    // MARK: Migrations of payloads, one per version step

    /// v2 → v3: every session gets an empty note.
    static func migrateV2toV3(_ payload: JSON) throws -> JSON {
        try mapSessions(payload) { session in session + [("note", .string(""))] }
    }

    /// v3 → v4: the total of active time becomes unrecorded time; a running session's current
    /// stretch becomes its one open segment.
    static func migrateV3toV4(_ payload: JSON) throws -> JSON {
        try mapSessions(payload) { session in
            let object = JSON.object(session)
            guard let active = object["activeSeconds"]?.intValue else { throw Failure.malformed("session without activeSeconds") }
            let runningSince = object["runningSince"]?.intValue
            let isOpen = object["end"]?.isNull ?? true
            var result = session.filter { $0.0 != "activeSeconds" && $0.0 != "runningSince" }
            result.append(("unrecordedSeconds", .int(active)))
            let segments: [JSON] = (isOpen && runningSince != nil) ? [.array([.int(runningSince!), .null])] : []
            result.append(("segments", .array(segments)))
            return result
        }
    }

    private static func mapSessions(_ payload: JSON, _ transform: ([(String, JSON)]) throws -> [(String, JSON)]) throws -> JSON {
        guard case .object(var members) = payload, let index = members.firstIndex(where: { $0.0 == "sessions" }),
              case .array(let sessions) = members[index].1 else { throw Failure.malformed("no sessions list") }
        members[index].1 = .array(try sessions.map { session in
            guard case .object(let fields) = session else { throw Failure.malformed("a session is not an object") }
            return .object(try transform(fields))
        })
        return .object(members)
    }

    /// Brings a payload of any readable version to the current one.
    static func migrate(_ payload: JSON, from version: Int64) throws -> JSON {
        var current = payload
        if version <= 2 { current = try migrateV2toV3(current) }
        if version <= 3 { current = try migrateV3toV4(current) }
        if version <= 4 { current = try migrateV4toV5(current) }
        if version <= 8 { current = migrateV8toV9(current) }
        // v5 → v6: a session without `importKey` was not imported; nothing to add.
        // v6 → v7: the payload is unchanged (the undo history is not part of a snapshot).
        // v7 → v8: records without `gid` get a new one when they are restored.
        // v9 → v10: a project without `rateCents` or `weeklyTarget` has none; settings without
        // `currency`, `weeklyTarget` or `untrackedReminderMinutes` have none (decodePlan).
        // v10 → v11: a session without `focus` has no focus phases; a payload without `focus`
        // has the default focus settings and no cycle (decodeFocusData).
        return current
    }

    // MARK: Decoding v4

    static func decodeSession(_ json: JSON) throws -> WorkSession {
        guard let id = json["id"]?.intValue, let project = json["projectId"]?.intValue, let start = json["start"]?.intValue,
              let endValue = json["end"], let unrecorded = json["unrecordedSeconds"]?.intValue,
              let note = json["note"]?.stringValue, let segments = json["segments"]?.arrayValue
        else { throw Failure.malformed("a session lacks a field") }
        var session = WorkSession(id: id, projectID: project, start: start, end: endValue.isNull ? nil : try integer(endValue),
                           unrecordedSeconds: unrecorded, note: note, segments: try segments.map { pair in
            guard let values = pair.arrayValue, values.count == 2, let from = values[0].intValue else {
                throw Failure.malformed("a segment is not [start, end]")
            }
            return Segment(start: from, end: values[1].isNull ? nil : try integer(values[1]))
        }, importKey: json["importKey"]?.stringValue ?? "")
        session.globalID = json["gid"]?.stringValue ?? ""
        session.focus = try decodeFocusSpans(json["focus"])
        return session
    }

    private static func integer(_ json: JSON) throws -> Int64 {
        guard let value = json.intValue else { throw Failure.malformed("expected a number") }
        return value
    }

    /// The full state of a v4 payload; chunk files are read through `chunk(sha256)`.
    static func state(from payload: JSON, chunk: (String) throws -> [UInt8]) throws -> DataState {
        guard let categoryList = payload["categories"]?.arrayValue, let projectList = payload["projects"]?.arrayValue,
              let minutes = payload["settings"]?["reminderMinutes"]?.intValue
        else { throw Failure.malformed("missing categories, projects or settings") }
        let categories = try categoryList.map { json -> Category in
            guard let id = json["id"]?.intValue, let name = json["name"]?.stringValue else { throw Failure.malformed("bad category") }
            return Category(id: id, name: name, globalID: json["gid"]?.stringValue ?? "")
        }
        let projects = try projectList.map { json -> Project in
            guard let id = json["id"]?.intValue, let name = json["name"]?.stringValue, let color = json["color"]?.stringValue,
                  let archived = json["archived"]?.boolValue, let category = json["categoryId"]
            else { throw Failure.malformed("bad project") }
            var project = Project(id: id, name: name, color: color, categoryID: category.isNull ? nil : try integer(category),
                                  archived: archived, globalID: json["gid"]?.stringValue ?? "")
            try decodePlan(json, into: &project)
            return project
        }
        var sessions: [WorkSession] = []
        if let inline = payload["sessions"]?.arrayValue { sessions += try inline.map(decodeSession) }
        if let open = payload["openSession"], !open.isNull { sessions.append(try decodeSession(open)) }
        sessions += try chunkSessions(payload["chunks"]?.arrayValue ?? [], chunk: chunk)
        guard minutes >= 0 && minutes <= Int64(Tracker.maximumReminderMinutes) else { throw Failure.malformed("bad settings") }
        return DataState(categories: categories, projects: projects, sessions: sessions, reminderMinutes: UInt32(minutes),
                         away: try decodeAway(payload["away"]),
                         dataID: payload["settings"]?["dataId"]?.stringValue ?? "",
                         plans: try decodePlanSettings(payload["settings"]), focus: try decodeFocusData(payload["focus"]))
    }
}
