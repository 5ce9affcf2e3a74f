public typealias ProjectID = Int64
public typealias SessionID = Int64

public struct Category: Equatable, Sendable {
    public var id: Int64
    public var name: String
    /// The same thing on every device (docs/sync.md): a new one unless given.
    public var globalID: String = SyncRecord.newID()
}

public struct Project: Equatable, Sendable {
    public var id: ProjectID
    public var name: String
    /// `#rrggbb`, lower case.
    public var color: String
    public var categoryID: Int64?
    public var archived: Bool
    /// The same project on every device (docs/sync.md): a new one unless given.
    public var globalID: String = SyncRecord.newID()
    /// The hourly rate in cents (store v11, snapshot v10); nil when the project has none.
    public var rateCents: Int64? = nil
    /// Seconds per week the person aims to spend on it (store v11, snapshot v10); 0 when none.
    public var weeklyTarget: Int64 = 0
}

/// One stretch of active time. `end` is nil while it runs.
public struct Segment: Equatable, Sendable {
    public var start: Int64
    public var end: Int64?
    public init(start: Int64, end: Int64?) { self.start = start; self.end = end }

    func seconds(at now: Int64) -> Int64 { max(0, (end ?? now) - start) }
}

/// A work session. Its active time is its segments plus `unrecordedSeconds`: time that a store
/// from before segments existed (v2, v3) kept only as a total, which reports spread over the span.
public struct WorkSession: Equatable, Sendable {
    public var id: SessionID
    public var projectID: ProjectID
    public var start: Int64
    /// nil while the session is open (running or paused).
    public var end: Int64?
    public var unrecordedSeconds: Int64
    public var note: String
    public var segments: [Segment]
    /// Where an imported session came from (`timewarrior:<start>`, ...): a re-import skips it. "" otherwise.
    public var importKey: String
    /// The same session on every device (docs/sync.md); given when stored.
    public var globalID: String = ""
    /// The focus phases completed while this session was open (store v13, snapshot v11).
    public var focus: [FocusSpan] = []

    public init(id: SessionID, projectID: ProjectID, start: Int64, end: Int64?, unrecordedSeconds: Int64, note: String, segments: [Segment],
                importKey: String = "") {
        self.id = id; self.projectID = projectID; self.start = start; self.end = end
        self.unrecordedSeconds = unrecordedSeconds; self.note = note; self.segments = segments; self.importKey = importKey
    }

    public var isOpen: Bool { end == nil }
    public var isRunning: Bool { isOpen && segments.last.map { $0.end == nil } == true }
    public var hasUnrecordedTime: Bool { unrecordedSeconds > 0 }

    public func activeSeconds(at now: Int64) -> Int64 {
        segments.reduce(unrecordedSeconds) { $0 + $1.seconds(at: now) }
    }

    /// Active seconds before the running segment began (all of them when paused or completed).
    public var settledSeconds: Int64 {
        segments.reduce(unrecordedSeconds) { total, segment in
            total + (segment.end.map { max(0, $0 - segment.start) } ?? 0)
        }
    }

    public var state: TimerState { isOpen ? (isRunning ? .running : .paused) : .completed }
}

public enum TimerState: String, Sendable {
    case idle, running, paused, completed
}

// Records are equal when they say the same thing; the global id of sync is compared where it
// matters (DataState.differences, the sync tests), so that a record read back from the store
// still equals the one a caller built without it.
extension Category {
    public static func == (a: Category, b: Category) -> Bool { a.id == b.id && a.name == b.name }
}

extension Project {
    public static func == (a: Project, b: Project) -> Bool {
        a.id == b.id && a.name == b.name && a.color == b.color && a.categoryID == b.categoryID && a.archived == b.archived
            && a.rateCents == b.rateCents && a.weeklyTarget == b.weeklyTarget
    }
}

extension WorkSession {
    public static func == (a: WorkSession, b: WorkSession) -> Bool {
        a.id == b.id && a.projectID == b.projectID && a.start == b.start && a.end == b.end
            && a.unrecordedSeconds == b.unrecordedSeconds && a.note == b.note && a.segments == b.segments && a.importKey == b.importKey
            && a.focus == b.focus
    }
}
