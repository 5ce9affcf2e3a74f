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
    public var total: Int64 { days.reduce(0, +) }

    /// Cuts every session at the week's local midnights; the open session counts up to `now`.
    public init(week: Week, sessions: [WorkSession], projects: [ProjectID: Project], categoryNames: [Int64: String], now: Int64) {
        self.week = week
        timeZone = LocalTime.zoneName()
        var byProject: [ProjectID: [Int64]] = [:]
        var estimated = 0
        for session in sessions {
            var days = [Int64](repeating: 0, count: 7)
            var touchesWeek = false
            for segment in session.segments {
                let end = segment.end ?? max(now, segment.start)
                touchesWeek = week.add(from: segment.start, to: end, into: &days) || touchesWeek
            }
            if session.unrecordedSeconds > 0 {
                let spanEnd = session.end ?? max(now, session.start)
                if week.spread(session.unrecordedSeconds, over: session.start, spanEnd, into: &days) {
                    estimated += 1
                    touchesWeek = true
                }
            }
            if session.segments.isEmpty && session.unrecordedSeconds == 0 {
                touchesWeek = session.start >= week.start && session.start < week.end
            }
            guard touchesWeek else { continue }
            var total = byProject[session.projectID] ?? [Int64](repeating: 0, count: 7)
            for day in 0..<7 { total[day] += days[day] }
            byProject[session.projectID] = total
        }
        self.projects = byProject.compactMap { id, days in
            guard let project = projects[id] else { return nil }
            return Line(projectID: id, name: project.name, color: project.color,
                        category: project.categoryID.flatMap { categoryNames[$0] } ?? "", days: days)
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
        estimatedSessions = estimated
    }
}

extension Week {
    /// Adds the part of [from, to) inside this week to each day; true when the interval touches the week.
    func add(from: Int64, to: Int64, into days: inout [Int64]) -> Bool {
        guard to > start || (to == from && from >= start), from < end else { return false }
        for day in 0..<7 {
            let low = max(from, dayStarts[day]), high = min(to, dayStarts[day + 1])
            if high > low { days[day] += high - low }
        }
        return true
    }

    /// Spreads `seconds` over [from, to) in proportion to wall-clock time, exactly: each day gets
    /// the difference of the floor-rounded running totals at its edges, so nothing is lost to rounding.
    func spread(_ seconds: Int64, over from: Int64, _ to: Int64, into days: inout [Int64]) -> Bool {
        let span = to - from
        if span <= 0 {
            guard from >= start && from < end else { return false }
            let day = (0..<7).last { dayStarts[$0] <= from }!
            days[day] += seconds
            return true
        }
        guard to > start && from < end else { return false }
        func share(until instant: Int64) -> Int64 {
            let elapsed = min(max(instant, from), to) - from
            return Int64((Double(seconds) * Double(elapsed) / Double(span)).rounded(.down))
        }
        for day in 0..<7 {
            days[day] += share(until: dayStarts[day + 1]) - share(until: dayStarts[day])
        }
        return true
    }
}
