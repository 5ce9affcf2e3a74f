/// The whole recoverable data state: what a snapshot holds and what a restore must reproduce.
public struct DataState: Equatable, Sendable {
    public var categories: [Category]
    public var projects: [Project]
    /// Every session, the open one included, ordered by id.
    public var sessions: [WorkSession]
    public var reminderMinutes: UInt32
    /// The away setting and the unanswered away spans.
    public var away: AwayState
    /// The random id kept with this data (v6; "" before): it keeps iCalendar UIDs stable.
    public var dataID: String
    /// The currency, the overall weekly target and the not-tracking reminder (snapshot v10).
    public var plans: PlanSettings
    /// The focus settings and cycle (snapshot v11).
    public var focus: FocusData

    public init(categories: [Category], projects: [Project], sessions: [WorkSession], reminderMinutes: UInt32,
                away: AwayState = AwayState(), dataID: String = "", plans: PlanSettings = PlanSettings(),
                focus: FocusData = FocusData()) {
        self.away = away
        self.focus = focus
        self.plans = plans
        self.dataID = dataID
        self.categories = categories.sorted { $0.id < $1.id }
        self.projects = projects.sorted { $0.id < $1.id }
        self.sessions = sessions.sorted { $0.id < $1.id }
        self.reminderMinutes = reminderMinutes
        self.dataID = dataID
    }

    /// Reads everything from a store.
    public init(store: Store) throws {
        self.init(categories: try store.categories(), projects: try store.projects(), sessions: try store.allSessions(),
                  reminderMinutes: try store.meta("reminder_minutes").flatMap { UInt32($0) } ?? Tracker.defaultReminderMinutes,
                  away: try store.awayState(), dataID: try store.meta("data_id") ?? "", plans: try store.planSettings(),
                  focus: try store.focusData())
    }

    /// Relationships that must hold: every project's category and every session's project exist,
    /// at most one session is open, names are unique as the contract compares them.
    public func relationshipProblems() -> [String] {
        var problems: [String] = []
        let categoryIDs = Set(categories.map(\.id)), projectIDs = Set(projects.map(\.id))
        for project in projects {
            if let category = project.categoryID, !categoryIDs.contains(category) {
                problems.append("project \(project.id) refers to missing category \(category)")
            }
        }
        for session in sessions where !projectIDs.contains(session.projectID) {
            problems.append("session \(session.id) refers to missing project \(session.projectID)")
        }
        if sessions.filter(\.isOpen).count > 1 { problems.append("more than one open session") }
        let sessionIDs = Set(sessions.map(\.id))
        for span in away.spans where !sessionIDs.contains(span.sessionID) {
            problems.append("away span \(span.id) refers to missing session \(span.sessionID)")
        }
        if Set(projects.map { TextInput.nameKey($0.name) }).count != projects.count { problems.append("duplicate project names") }
        if Set(categories.map { TextInput.nameKey($0.name) }).count != categories.count { problems.append("duplicate category names") }
        return problems
    }

    /// Record-by-record differences from another state, for a person to read.
    public func differences(from other: DataState) -> [String] {
        var found: [String] = []
        func compare<T: Equatable>(_ kind: String, _ mine: [T], _ theirs: [T], id: (T) -> Int64) {
            if mine.count != theirs.count { found.append("\(kind): \(mine.count) here, \(theirs.count) expected") }
            let theirsByID = Dictionary(theirs.map { (id($0), $0) }, uniquingKeysWith: { a, _ in a })
            for record in mine where theirsByID[id(record)] != record {
                found.append("\(kind) \(id(record)) differs")
                if found.count > 20 { return }
            }
        }
        compare("category", categories, other.categories, id: \.id)
        compare("project", projects, other.projects, id: \.id)
        compare("session", sessions, other.sessions, id: \.id)
        compare("global id of category", categories.map { [$0.id: $0.globalID] }, other.categories.map { [$0.id: $0.globalID] }, id: { $0.keys.first! })
        compare("global id of project", projects.map { [$0.id: $0.globalID] }, other.projects.map { [$0.id: $0.globalID] }, id: { $0.keys.first! })
        compare("global id of session", sessions.map { [$0.id: $0.globalID] }, other.sessions.map { [$0.id: $0.globalID] }, id: { $0.keys.first! })
        if reminderMinutes != other.reminderMinutes { found.append("reminder minutes differ") }
        if away != other.away { found.append("away settings or spans differ") }
        if dataID != other.dataID { found.append("data id differs") }
        if plans != other.plans { found.append("currency, weekly target or not-tracking reminder differ") }
        if focus != other.focus { found.append("focus settings or cycle differ") }
        return found
    }
}
