import DBusCore
import TimeClient

/// The History window's list: the agent's `History`, newest first, each step with its sentence,
/// when it was made (local time) and whether it is undone.
public struct HistoryListModel: Equatable {
    public struct Step: Equatable {
        public var id: UInt64
        public var description: String
        public var time: Int64
        public var undone: Bool
    }

    public var steps: [Step]

    public init(_ history: [[String: DBusValue]]) {
        steps = history.map { entry in
            Step(id: entry["id"]?.uint64Value ?? 0, description: entry["description"]?.stringValue ?? "",
                 time: entry["time"]?.integer ?? 0, undone: entry["undone"]?.boolValue ?? false)
        }
    }

    /// A step's second line: `Undone · today 14:05`, `yesterday 09:00`, `2026-11-28 17:30`.
    public static func line(_ step: Step, now: Int64) -> String {
        (step.undone ? "Undone · " : "") + when(step.time, now: now)
    }

    static func when(_ time: Int64, now: Int64) -> String {
        let clock = LocalTime.clockString(time)
        if LocalTime.startOfDay(time) == LocalTime.startOfDay(now) { return "today " + clock }
        if LocalTime.startOfDay(time) == LocalTime.startOfDay(now, offset: -1) { return "yesterday " + clock }
        return LocalTime.dateString(time) + " " + clock
    }

    public var isEmpty: Bool { steps.isEmpty }
}
