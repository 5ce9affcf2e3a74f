/// Why the person was away from a running session.
public enum AwayReason: String, Sendable, CaseIterable {
    case suspend, lock, idle, manual

    /// `MarkAway`'s reason: "" is `manual`; `idle` and `lock` are kept; anything else is `manual`.
    public init(markAwayReason raw: String) {
        switch raw.trimmingWhitespace().lowercased() {
        case "idle": self = .idle
        case "lock": self = .lock
        case "suspend": self = .suspend
        default: self = .manual
        }
    }

    /// The words of the return notification's body: "(screen locked)".
    public var phrase: String {
        switch self {
        case .suspend: "computer asleep"
        case .lock: "screen locked"
        case .idle: "no input"
        case .manual: "marked away"
        }
    }
}

/// What to do with an away span (`ResolveAway`).
public enum AwayChoice: String, Sendable, CaseIterable {
    /// The time stays counted.
    case keep
    /// The span is cut out of the session's segments; time after it stays counted.
    case discard
    /// The session ends at the span's start.
    case stop
}

/// A stretch of a session's running time while the person was away, kept until they answer.
/// `end` is nil while it lasts.
public struct AwaySpan: Equatable, Sendable {
    public var id: Int64
    public var sessionID: SessionID
    public var start: Int64
    public var end: Int64?
    public var reason: AwayReason

    public init(id: Int64, sessionID: SessionID, start: Int64, end: Int64?, reason: AwayReason) {
        self.id = id; self.sessionID = sessionID; self.start = start; self.end = end; self.reason = reason
    }

    /// A span counts from this many seconds on; a shorter one is forgotten when it ends.
    public static let minimumSeconds: Int64 = 60

    public func seconds(at now: Int64) -> Int64 { max(0, (end ?? now) - start) }
    public func counts(at now: Int64) -> Bool { seconds(at: now) >= AwaySpan.minimumSeconds }

    /// Store schema v5: the spans not yet answered (an answered one is removed), each tied to
    /// its session (deleting the session removes them).
    static let schemaSQL = """
        CREATE TABLE away_spans(
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
            start INTEGER NOT NULL,
            end INTEGER,
            reason TEXT NOT NULL);
        CREATE INDEX away_spans_by_session ON away_spans(session_id);
        """
}

/// The away part of the data state: settings and unanswered spans (what a snapshot keeps).
public struct AwayState: Equatable, Sendable {
    public var minutes: UInt32
    /// The highest span id ever given, so that an answered span's id is never reused.
    public var lastID: Int64
    /// Ordered by id.
    public var spans: [AwaySpan]

    public init(minutes: UInt32 = AwayState.defaultMinutes, lastID: Int64 = 0, spans: [AwaySpan] = []) {
        self.minutes = minutes; self.lastID = lastID; self.spans = spans.sorted { $0.id < $1.id }
    }

    public static let defaultMinutes: UInt32 = 10
    public static let maximumMinutes: UInt32 = 24 * 60
}
