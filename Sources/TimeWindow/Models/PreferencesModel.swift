import DBusCore
import TimeClient

/// What Preferences shows, read from the agent's properties (pure: tested without a display).
/// Every setting is the agent's: the window keeps none of them.
public struct PreferencesModel: Equatable {
    public var reminderMinutes: UInt32
    public var untrackedMinutes: UInt32
    public var awayMinutes: UInt32
    /// The weekly target as whole hours and the minutes beyond them.
    public var targetHours: Int64
    public var targetMinutes: Int64
    public var currency: String
    /// nil when the agent has no focus timer (an agent older than the focus timer).
    public var focus: Focus?
    public var syncFolder: String
    public var syncState: String
    public var syncMessage: String
    public var devices: [Device]
    public var storageState: String
    public var storageMessage: String

    public struct Focus: Equatable {
        public var focusMinutes: UInt32
        public var breakMinutes: UInt32
        public var longBreakMinutes: UInt32
        public var longBreakEvery: UInt32
        public var autoStart: Bool
        public var pauseInBreaks: Bool
    }

    public struct Device: Equatable {
        public var id: String
        public var name: String
        public var newest: Int64
    }

    /// The focus timer's read-write properties (the contract's "Focus and breaks").
    public static let focusProperties = ["FocusMinutes", "BreakMinutes", "LongBreakMinutes", "LongBreakEvery",
                                         "FocusAutoStart", "PauseInBreaks"]

    public init(_ properties: AgentProperties) {
        let v = properties.values
        reminderMinutes = v["ReminderMinutes"]?.uint32Value ?? 0
        untrackedMinutes = v["UntrackedReminderMinutes"]?.uint32Value ?? 0
        awayMinutes = v["AwayMinutes"]?.uint32Value ?? 0
        let target = max(0, properties.weeklyTarget)
        targetHours = target / 3600
        targetMinutes = (target % 3600) / 60
        currency = properties.currency
        if Self.focusProperties.allSatisfy({ v[$0] != nil }) {
            focus = Focus(focusMinutes: v["FocusMinutes"]?.uint32Value ?? 0, breakMinutes: v["BreakMinutes"]?.uint32Value ?? 0,
                          longBreakMinutes: v["LongBreakMinutes"]?.uint32Value ?? 0,
                          longBreakEvery: v["LongBreakEvery"]?.uint32Value ?? 0,
                          autoStart: v["FocusAutoStart"]?.boolValue ?? false, pauseInBreaks: v["PauseInBreaks"]?.boolValue ?? true)
        }
        syncFolder = properties.syncFolder
        syncState = v["SyncState"]?.stringValue ?? "off"
        syncMessage = v["SyncMessage"]?.stringValue ?? ""
        devices = (v["Devices"]?.arrayValue ?? []).compactMap { item in
            guard case .structure(let f) = item, f.count == 3 else { return nil }
            return Device(id: f[0].stringValue ?? "", name: f[1].stringValue ?? "", newest: f[2].integer ?? 0)
        }.sorted { $0.newest > $1.newest }
        storageState = properties.storageState
        storageMessage = properties.storageMessage
    }

    public var syncOn: Bool { !syncFolder.isEmpty }

    /// The sync row's line: on or off, and the agent's own words when something is wrong.
    public var syncStatus: String {
        switch (syncOn, syncState) {
        case (false, _): return "Off"
        case (true, "error"): return "Not working: " + (syncMessage.isEmpty ? "the agent gave no reason." : syncMessage)
        default: return syncMessage.isEmpty ? "On: every change goes to the folder and the other devices' changes are merged."
            : "On. " + syncMessage
        }
    }

    /// One device's line: its newest change, local time.
    public static func deviceLine(_ device: Device) -> String {
        device.newest > 0 ? "Newest change \(LocalTime.dateString(device.newest)) \(LocalTime.clockString(device.newest))"
            : "No change yet"
    }

    public var storageStatus: String {
        switch storageState {
        case "ok": return "In good order: every change is kept in a verified snapshot before it is confirmed."
        case "restored": return storageMessage.isEmpty ? "The store was damaged and was restored from a snapshot." : storageMessage
        case "read-only": return storageMessage.isEmpty ? "Editing is locked: the store could not be opened." : storageMessage
        default: return storageMessage.isEmpty ? storageState : storageMessage
        }
    }

    /// `WeeklyTarget` for hours and minutes as a person sets them.
    public static func weeklyTarget(hours: Int64, minutes: Int64) -> DBusValue {
        .uint64(UInt64(max(0, hours * 3600 + minutes * 60)))
    }

    /// A currency as typed: trimmed and upper-cased (the agent checks it is an ISO 4217 code).
    public static func currency(_ typed: String) -> DBusValue {
        .string(String(typed.filter { !$0.isWhitespace }).uppercased())
    }

    /// The minutes rows' line: what 0 means there.
    public static func minutesHint(_ minutes: UInt32, off: String, on: (UInt32) -> String) -> String {
        minutes == 0 ? off : on(minutes)
    }

    public static func enableSync(folder: String, device: String) -> AgentRequest {
        AgentRequest("EnableSync", [.string(folder), .string(device)])
    }

    public static let disableSync = AgentRequest("DisableSync")
    /// "Export everything": the complete json (`Import` reads it back to the same data).
    public static let exportEverything = AgentRequest("Export", [.string("json"), .int64(0), .int64(0), .uint64(0)])
}
