import DBusKit
import TimeCore

/// The contract's properties as plain values, so a transition can be compared with the one
/// before and announced in a single `PropertiesChanged`.
struct TimerProperties: Equatable {
    var state = "idle"
    var project = ""
    var projectColor = ""
    var category = ""
    var sessionID: UInt64 = 0
    var sessionStart: Int64 = 0
    var runningSince: Int64 = 0
    var activeSeconds: UInt64 = 0
    var note = ""
    var lastProject = ""
    var storageState = "ok"
    var storageMessage = ""
    var reminderMinutes: UInt32 = 60
    var awayMinutes: UInt32 = AwayState.defaultMinutes
    var awaySince: Int64 = 0
    var pendingAway: DBusValue = .array(elementSignature: "(txxss)", [])
    var canUndo = ""
    var currency = ""
    var weeklyTarget: UInt64 = 0
    var untrackedReminderMinutes: UInt32 = 0
    var dataRevision: UInt64 = 0
    var focusState = "off"
    var focusEnds: Int64 = 0
    var focusCount: UInt32 = 0
    var focusMinutes: UInt32 = 25
    var breakMinutes: UInt32 = 5
    var longBreakMinutes: UInt32 = 15
    var longBreakEvery: UInt32 = 4
    var focusAutoStart = false
    var pauseInBreaks = true

    init() {}

    init(status: TimerStatus, storage: StorageStatus, reminderMinutes: UInt32) {
        state = status.state.rawValue
        project = status.project?.name ?? ""
        projectColor = status.project?.color ?? ""
        category = status.categoryName
        sessionID = UInt64(max(0, status.session?.id ?? 0))
        sessionStart = status.session?.start ?? 0
        runningSince = status.runningSince
        activeSeconds = UInt64(max(0, status.settledSeconds))
        note = status.session?.note ?? ""
        lastProject = status.lastProjectName
        storageState = storage.state.rawValue
        storageMessage = storage.message
        self.reminderMinutes = reminderMinutes
    }

    /// Every changeable property by its contract name (Version is constant and not listed).
    var values: [String: DBusValue] {
        [
            "State": .string(state), "Project": .string(project), "ProjectColor": .string(projectColor),
            "Category": .string(category), "SessionId": .uint64(sessionID), "SessionStart": .int64(sessionStart),
            "RunningSince": .int64(runningSince), "ActiveSeconds": .uint64(activeSeconds), "Note": .string(note),
            "LastProject": .string(lastProject), "StorageState": .string(storageState),
            "StorageMessage": .string(storageMessage), "ReminderMinutes": .uint32(reminderMinutes),
            "AwayMinutes": .uint32(awayMinutes), "AwaySince": .int64(awaySince), "PendingAway": pendingAway,
            "CanUndo": .string(canUndo), "Currency": .string(currency), "WeeklyTarget": .uint64(weeklyTarget),
            "UntrackedReminderMinutes": .uint32(untrackedReminderMinutes),
            "DataRevision": .uint64(dataRevision),
            "FocusState": .string(focusState), "FocusEnds": .int64(focusEnds), "FocusCount": .uint32(focusCount),
            "FocusMinutes": .uint32(focusMinutes), "BreakMinutes": .uint32(breakMinutes), "LongBreakMinutes": .uint32(longBreakMinutes),
            "LongBreakEvery": .uint32(longBreakEvery), "FocusAutoStart": .bool(focusAutoStart), "PauseInBreaks": .bool(pauseInBreaks),
        ]
    }

    /// The properties whose values differ from `old`.
    func changes(since old: TimerProperties) -> [String: DBusValue] {
        let before = old.values
        return values.filter { before[$0.key] != $0.value }
    }
}
