/// The active time of one week per day, per project and per category.
public struct WeeklyReport: Equatable, Sendable {
    public struct Line: Equatable, Sendable {
        public var projectID: ProjectID
        public var name: String
        public var color: String
        public var category: String
        public var days: [Int64]
        public var total: Int64 { days.reduce(0, +) }
    }
    public struct CategoryLine: Equatable, Sendable {
        public var name: String
        public var days: [Int64]
        public var total: Int64 { days.reduce(0, +) }
    }

    public var week: Week
    public var timeZone: String
    public var days: [Int64]
    public var projects: [Line]
    public var categories: [CategoryLine]
    /// Sessions whose time was spread proportionally because their segments were never recorded.
    public var estimatedSessions: Int
    /// Focus phases completed per day (where each ended), Monday first.
    public var focusDays: [Int] = [Int](repeating: 0, count: 7)
    public var total: Int64 { days.reduce(0, +) }

    /// Cuts every session at the week's local midnights; the open session counts up to `now`.
    /// The report engine's report of the week by day and project (RangeReport), without rounding.
    public init(week: Week, sessions: [WorkSession], projects: [ProjectID: Project], categoryNames: [Int64: String], now: Int64) {
        self.week = week
        timeZone = LocalTime.zoneName()
        var context = RangeReport.Context(projects: projects, categoryNames: categoryNames, plans: PlanSettings(), now: now)
        context.listTargets = false
        let columns = (0..<7).map { day in
            ReportColumn(label: week.monday.adding(days: day).description, first: week.monday.adding(days: day), last: week.monday.adding(days: day))
        }
        let engine = RangeReport(range: .week(week.monday), options: ReportOptions(), columnKind: .day, columns: columns,
                                 grid: TimeGrid(boundaries: week.dayStarts), sessions: sessions, context: context)
        self.projects = engine.groups.compactMap { group in
            guard let id = ProjectID(group.key), let project = projects[id] else { return nil }
            return Line(projectID: id, name: project.name, color: project.color,
                        category: project.categoryID.flatMap { categoryNames[$0] } ?? "", days: group.columns)
        }.sorted { ($1.total, $0.name.lowercased(), $0.projectID) < ($0.total, $1.name.lowercased(), $1.projectID) }
        var byCategory: [String: [Int64]] = [:]
        for name in categoryNames.values { byCategory[name] = [Int64](repeating: 0, count: 7) }
        byCategory[""] = [Int64](repeating: 0, count: 7)
        for line in self.projects {
            for day in 0..<7 { byCategory[line.category]![day] += line.days[day] }
        }
        categories = byCategory.map { CategoryLine(name: $0.key, days: $0.value) }
            .sorted { a, b in
                if a.name.isEmpty != b.name.isEmpty { return b.name.isEmpty }
                return (a.name.lowercased(), a.name) < (b.name.lowercased(), b.name)
            }
        let lines = self.projects
        self.days = (0..<7).map { day in lines.reduce(0) { $0 + $1.days[day] } }
        estimatedSessions = engine.estimatedSessions
        focusDays = engine.focusColumns
    }
}
