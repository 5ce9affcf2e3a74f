import DBusCore

/// A project as `ListProjects` gives it.
public struct Project: Equatable {
    public var id: UInt64
    public var name: String
    public var color: String
    public var category: String
    public var archived: Bool
    /// The hourly rate as the agent writes it (`"85.50"`); `""` = none.
    public var rate: String
    /// Seconds per week; 0 = none.
    public var weeklyTarget: Int64
    public var raw: [String: DBusValue]

    public init(_ values: [String: DBusValue]) {
        raw = values
        id = values["id"]?.uint64Value ?? 0
        name = values["name"]?.stringValue ?? ""
        color = values["color"]?.stringValue ?? ""
        category = values["category"]?.stringValue ?? ""
        archived = values["archived"]?.boolValue ?? false
        rate = values["rate"]?.stringValue ?? ""
        weeklyTarget = values["weekly_target"]?.integer ?? 0
    }
}

/// A session as `ListSessions` gives it.
public struct SessionRecord: Equatable {
    public var id: UInt64
    public var projectID: UInt64
    public var project: String
    public var start: Int64
    /// 0 while open.
    public var end: Int64
    public var active: Int64
    public var state: String
    public var note: String
    /// The device it runs or ran on, with sync on; `""` for this device.
    public var device: String
    public var segments: [(start: Int64, end: Int64)]
    /// The sessions it overlaps (ids), as `ListSessions` says: time typed by hand is kept even so.
    public var overlaps: [UInt64]

    public init(_ values: [String: DBusValue]) {
        id = values["id"]?.uint64Value ?? 0
        projectID = values["project_id"]?.uint64Value ?? 0
        project = values["project"]?.stringValue ?? ""
        start = values["start"]?.integer ?? 0
        end = values["end"]?.integer ?? 0
        active = values["active"]?.integer ?? 0
        state = values["state"]?.stringValue ?? ""
        note = values["note"]?.stringValue ?? ""
        device = values["device"]?.stringValue ?? ""
        segments = (values["segments"]?.arrayValue ?? []).compactMap { segment in
            guard case .structure(let fields) = segment, fields.count == 2,
                  let start = fields[0].integer, let end = fields[1].integer else { return nil }
            return (start, end)
        }
        overlaps = (values["overlaps"]?.arrayValue ?? []).compactMap(\.uint64Value)
    }

    public var isOpen: Bool { end == 0 }

    public static func == (a: SessionRecord, b: SessionRecord) -> Bool {
        a.id == b.id && a.projectID == b.projectID && a.project == b.project && a.start == b.start && a.end == b.end
            && a.active == b.active && a.state == b.state && a.note == b.note && a.device == b.device
            && a.segments.map(\.start) == b.segments.map(\.start) && a.segments.map(\.end) == b.segments.map(\.end)
            && a.overlaps == b.overlaps
    }
}

/// One unresolved away span of `PendingAway`.
public struct AwaySpan: Equatable {
    public var id: UInt64
    public var start: Int64
    /// 0 while it lasts.
    public var end: Int64
    public var reason: String
    public var project: String

    public init(id: UInt64, start: Int64, end: Int64, reason: String, project: String) {
        (self.id, self.start, self.end, self.reason, self.project) = (id, start, end, reason, project)
    }

    /// The spans of a `PendingAway` value, `a(txxss)`.
    public static func list(_ value: DBusValue?) -> [AwaySpan] {
        (value?.arrayValue ?? []).compactMap { item in
            guard case .structure(let f) = item, f.count == 5 else { return nil }
            return AwaySpan(id: f[0].uint64Value ?? 0, start: f[1].integer ?? 0, end: f[2].integer ?? 0,
                            reason: f[3].stringValue ?? "", project: f[4].stringValue ?? "")
        }
    }
}

/// The agent's properties as one typed value (`GetAll`, then `PropertiesChanged` folded in).
public struct AgentProperties: Equatable {
    public var values: [String: DBusValue]

    public init(_ values: [String: DBusValue] = [:]) { self.values = values }

    public mutating func merge(_ changed: [String: DBusValue]) {
        for (key, value) in changed { values[key] = value }
    }

    public var state: String { values["State"]?.stringValue ?? "idle" }
    public var project: String { values["Project"]?.stringValue ?? "" }
    public var projectColor: String { values["ProjectColor"]?.stringValue ?? "" }
    public var category: String { values["Category"]?.stringValue ?? "" }
    public var sessionID: UInt64 { values["SessionId"]?.uint64Value ?? 0 }
    public var sessionStart: Int64 { values["SessionStart"]?.integer ?? 0 }
    public var runningSince: Int64 { values["RunningSince"]?.integer ?? 0 }
    public var activeSeconds: Int64 { values["ActiveSeconds"]?.integer ?? 0 }
    public var note: String { values["Note"]?.stringValue ?? "" }
    public var lastProject: String { values["LastProject"]?.stringValue ?? "" }
    public var storageState: String { values["StorageState"]?.stringValue ?? "ok" }
    public var storageMessage: String { values["StorageMessage"]?.stringValue ?? "" }
    public var canUndo: String { values["CanUndo"]?.stringValue ?? "" }
    public var version: String { values["Version"]?.stringValue ?? "" }
    public var pendingAway: [AwaySpan] { AwaySpan.list(values["PendingAway"]) }
    public var weeklyTarget: Int64 { values["WeeklyTarget"]?.integer ?? 0 }
    public var currency: String { values["Currency"]?.stringValue ?? "" }
    public var syncFolder: String { values["SyncFolder"]?.stringValue ?? "" }
    public var dataRevision: UInt64 { values["DataRevision"]?.uint64Value ?? 0 }

    public var isReadOnly: Bool { storageState == "read-only" }

    /// Active seconds of the open session at `now`, as a panel extrapolates them.
    public func elapsed(at now: Int64) -> Int64 {
        activeSeconds + (state == "running" && runningSince > 0 ? max(0, now - runningSince) : 0)
    }
}
