import DBusCore
import TimeClient

/// The Day view's rows for one local day, from `ListSessions` over that day.
public struct DayModel: Equatable {
    public struct Row: Equatable {
        public var id: UInt64
        public var projectID: UInt64
        public var project: String
        /// "09:00–10:30", with the date where the session began or ends on another day.
        public var span: String
        public var active: String
        public var note: String
        public var device: String
        /// An open session (or one on another device) cannot be edited or deleted from here.
        public var editable: Bool
        /// The open session: continuing it would change nothing.
        public var isOpen: Bool
        /// The accessible description of the row (read after its title): active time, note, device.
        public var summary: String
        /// "Overlaps Email 09:30–10:30": the sessions its time overlaps (kept, but counted twice); nil when none.
        public var overlapNote: String?
        /// This device's open session: its start can be corrected ("Started at").
        public var startEditable: Bool
    }

    public var dayStart: Int64
    public var title: String
    public var rows: [Row]
    public var total: String

    public init(dayStart: Int64, sessions: [SessionRecord], now: Int64) {
        self.dayStart = dayStart
        title = Shown.dayTitle(dayStart, today: now)
        let nextDay = LocalTime.startOfDay(dayStart, offset: 1)
        rows = sessions.sorted { ($0.start, $0.id) < ($1.start, $1.id) }.map { session in
            let end = session.isOpen ? now : session.end
            func when(_ time: Int64) -> String {
                time >= dayStart && time < nextDay ? LocalTime.clockString(time) : LocalTime.dateTimeString(time)
            }
            let span = "\(when(session.start))–\(session.isOpen ? "now" : when(end))"
            let active = session.isOpen && session.state == "running" ? session.active + max(0, now - (session.segments.last?.start ?? now)) : session.active
            let device = session.device
            return Row(id: session.id, projectID: session.projectID, project: session.project, span: span,
                       active: Shown.hoursMinutes(active), note: session.note, device: device,
                       editable: !session.isOpen && device.isEmpty && session.id != 0, isOpen: session.isOpen,
                       summary: [Shown.hoursMinutes(active), session.note, device.isEmpty ? "" : "on \(device)"]
                           .filter { !$0.isEmpty }.joined(separator: ", "),
                       overlapNote: Self.overlapNote(session, among: sessions, dayStart: dayStart, now: now),
                       startEditable: session.isOpen && device.isEmpty && session.id != 0)
        }
        // Only the part of each session that fell inside the day counts toward its total.
        var seconds: Int64 = 0
        for session in sessions {
            if session.segments.isEmpty {
                seconds += session.active
            } else {
                for segment in session.segments {
                    let to = segment.end == 0 ? now : segment.end
                    seconds += max(0, min(to, nextDay) - max(segment.start, dayStart))
                }
            }
        }
        total = "Total " + Shown.hoursMinutes(seconds)
    }

    /// "Overlaps Email 09:30–10:30, Writing 10:00–now"; a session outside the day's list by its id.
    static func overlapNote(_ session: SessionRecord, among sessions: [SessionRecord], dayStart: Int64, now: Int64) -> String? {
        guard !session.overlaps.isEmpty else { return nil }
        let nextDay = LocalTime.startOfDay(dayStart, offset: 1)
        func when(_ time: Int64) -> String {
            time >= dayStart && time < nextDay ? LocalTime.clockString(time) : LocalTime.dateTimeString(time)
        }
        let named = session.overlaps.map { id -> String in
            guard let other = sessions.first(where: { $0.id == id }) else { return "session \(id)" }
            return "\(other.project) \(when(other.start))–\(other.isOpen ? "now" : when(other.end))"
        }
        return "Overlaps " + named.joined(separator: ", ")
    }

    /// `ListSessions` for the day: sessions overlapping [day start, next day start), all projects.
    public static func request(dayStart: Int64) -> AgentRequest {
        AgentRequest("ListSessions", [.uint64(0), .int64(dayStart), .int64(LocalTime.startOfDay(dayStart, offset: 1))])
    }

    public static func delete(_ id: UInt64) -> AgentRequest { AgentRequest("DeleteSession", [.uint64(id)]) }

    /// Whether `CanUndo` names the deletion of a session of `project` (the agent's sentence:
    /// "Deleted 2:00 of Writing on 2026-11-29"), so that a toast's Undo undoes nothing else.
    public static func isDeletion(_ canUndo: String, of project: String) -> Bool {
        canUndo.hasPrefix("Deleted ") && canUndo.contains(" of \(project) on ")
    }
}
