import DBusCore
import TimeClient

/// What a person typed in the session dialog, turned into the agent's `EditSession` or
/// `AddSession`, or into a message saying what to type instead (and then no call is made).
public struct SessionForm {
    public var projectID: UInt64
    public var start: String
    public var end: String
    public var duration: String
    public var note: String

    public init(projectID: UInt64, start: String, end: String, duration: String, note: String) {
        (self.projectID, self.start, self.end, self.duration, self.note) = (projectID, start, end, duration, note)
    }

    public struct Invalid: Error, Equatable {
        public var message: String
    }

    /// A time as typed: a bare `9:15` or `17:30` is on `day`; `yesterday 17:00`, `2026-11-25 9:00`
    /// and the other forms of timectl are read as timectl reads them.
    static func time(_ text: String, field: String, day: Int64, now: Int64) throws -> Int64 {
        let typed = text.trimmed
        if let clock = DateInput.parseClock(typed) {
            let d = LocalTime.day(of: day)
            if let time = LocalTime.make(year: d.year, month: d.month, day: d.day, hour: clock.0, minute: clock.1, second: clock.2) {
                return time
            }
        }
        guard let value = DateInput.parse(typed, now: now) else {
            throw Invalid(message: "\(field): '\(typed)' is not a time. Type it as \(DateInput.accepted).")
        }
        return value.time
    }

    /// The `EditSession` changes for `session`; nil when nothing changed.
    public func edit(_ session: SessionRecord, now: Int64) throws -> AgentRequest? {
        var changes: [String: DBusValue] = [:]
        if projectID != 0, projectID != session.projectID { changes["project"] = .uint64(projectID) }
        let day = LocalTime.startOfDay(session.start)
        var newStart = session.start
        if !start.trimmed.isEmpty {
            newStart = try Self.time(start, field: "Start", day: day, now: now)
            if newStart != session.start { changes["start"] = .int64(newStart) }
        }
        // The end shown unchanged keeps the session's segments (its pauses) as they are.
        if let seconds = try typedDuration(from: newStart, day: day, now: now),
           changes["start"] != nil || newStart + seconds != session.end {
            changes["duration"] = .string(Shown.durationArgument(seconds))
        }
        if note != session.note { changes["note"] = .string(note) }
        guard !changes.isEmpty else { return nil }
        return AgentRequest("EditSession", [.uint64(session.id), .vardict(changes)])
    }

    /// `AddSession` for time entered by hand on `day`.
    public func add(day: Int64, now: Int64) throws -> AgentRequest {
        guard projectID != 0 else { throw Invalid(message: "Project: choose the project the time goes to.") }
        guard !start.trimmed.isEmpty else { throw Invalid(message: "Start: type when it began, e.g. 9:00.") }
        let from = try Self.time(start, field: "Start", day: day, now: now)
        guard let seconds = try typedDuration(from: from, day: LocalTime.startOfDay(from), now: now) else {
            throw Invalid(message: "Duration: type how long (\(DurationInput.accepted)) or when it ended.")
        }
        return AgentRequest("AddSession", [.uint64(projectID), .int64(from), .string(Shown.durationArgument(seconds)), .string(note)])
    }

    /// The duration from an end or a duration as typed (not both); nil when neither was typed.
    private func typedDuration(from start: Int64, day: Int64, now: Int64) throws -> Int64? {
        let endText = end.trimmed, durationText = duration.trimmed
        if !endText.isEmpty && !durationText.isEmpty {
            throw Invalid(message: "Type an end or a duration, not both.")
        }
        if !durationText.isEmpty {
            guard let seconds = DurationInput.seconds(durationText), seconds > 0 else {
                throw Invalid(message: "Duration: '\(durationText)' is not a duration. Type it as \(DurationInput.accepted).")
            }
            return seconds
        }
        guard !endText.isEmpty else { return nil }
        var stop = try Self.time(endText, field: "End", day: day, now: now)
        // 23:00–01:00: a bare end before the start is on the next day.
        if stop <= start, DateInput.parseClock(endText) != nil {
            let next = LocalTime.day(of: day, offset: 1)
            let clock = DateInput.parseClock(endText)!
            stop = LocalTime.make(year: next.year, month: next.month, day: next.day, hour: clock.0, minute: clock.1, second: clock.2) ?? stop
        }
        guard stop > start else {
            throw Invalid(message: "End: \(LocalTime.dateTimeString(stop)) is not after the start, \(LocalTime.dateTimeString(start)).")
        }
        return stop - start
    }
}
