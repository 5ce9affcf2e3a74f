/// A report over any range (the contract's `Report`): every session cut at the local midnights
/// of its columns (days, weeks or months), grouped by project, category or tag, each session's
/// time within each column rounded as asked (exact totals kept beside), amounts in integer cents
/// from the projects' hourly rates, and the range's share of the weekly targets. The weekly
/// report is this report over a week by day and project.
public struct RangeReport: Equatable, Sendable {
    public struct Group: Equatable, Sendable {
        /// The project's id, the category's name or the tag's key ("" for uncategorized or untagged).
        public var key: String
        public var name: String
        public var color: String
        public var category: String
        /// Rounded seconds per column.
        public var columns: [Int64]
        public var totalExact: Int64 = 0
        /// The hourly rate as the contract writes it ("" when none, or mixed rates in one group).
        public var rate: String = ""
        /// nil when no time in the group has a rate.
        public var amountCents: Int64?
        public var target: Int64 = 0
        /// Sessions counted in the group.
        public var sessions = 0
        /// Focus phases completed in the range (their end within it) by the group's sessions.
        public var focus = 0
        public var total: Int64 { columns.reduce(0, +) }

        /// Rounded seconds × rate per column, summed exactly (for amounts per column).
        var columnCentSeconds: [Int64]
        var centSeconds: Int64 = 0
        var hasRatedTime = false
        var rates: Set<Int64?> = []
    }

    public let range: ReportRange
    public let timeZone: String
    public let options: ReportOptions
    public let columnKind: ReportOptions.Columns
    public let columns: [ReportColumn]
    public let currency: String
    public private(set) var groups: [Group] = []
    /// Every session counted once per column (tag rows overlap; these do not).
    public private(set) var columnTotals: [Int64]
    public private(set) var totalExact: Int64 = 0
    public private(set) var amountCents: Int64?
    public let target: Int64
    /// Sessions spread proportionally because their segments were never recorded.
    public private(set) var estimatedSessions = 0
    /// Sessions in the range whose span overlaps another's there (contract: `overlapping`).
    public private(set) var overlappingSessions = 0
    /// Focus phases completed in the range (Report json's `focus`): a phase counts where it ends.
    public private(set) var focus = 0
    /// The same per column (where each phase ended).
    public private(set) var focusColumns: [Int]
    public var total: Int64 { columnTotals.reduce(0, +) }

    let grid: TimeGrid

    /// What the report is built from besides the sessions.
    public struct Context {
        public var projects: [ProjectID: Project]
        public var categoryNames: [Int64: String]
        public var plans: PlanSettings
        public var now: Int64
        /// Adds rows for projects (and their categories) with a weekly target but no time.
        public var listTargets = true

        public init(projects: [ProjectID: Project], categoryNames: [Int64: String], plans: PlanSettings, now: Int64) {
            self.projects = projects; self.categoryNames = categoryNames; self.plans = plans; self.now = now
        }
    }

    /// Cuts `sessions` (those overlapping the range; others are ignored) into the range's columns.
    public init(range: ReportRange, options: ReportOptions, sessions: [WorkSession], context: Context) throws {
        let kind = options.columns ?? range.defaultColumns
        let columns = try range.columns(kind)
        self.init(range: range, options: options, columnKind: kind, columns: columns,
                      grid: ReportRange.grid(columns), sessions: sessions, context: context)
    }

    init(range: ReportRange, options: ReportOptions, columnKind: ReportOptions.Columns, columns: [ReportColumn],
         grid: TimeGrid, sessions: [WorkSession], context: Context) {
        self.range = range
        self.options = options
        self.columnKind = columnKind
        self.columns = columns
        self.grid = grid
        timeZone = LocalTime.zoneName()
        currency = context.plans.currency
        target = PlanSettings.share(of: context.plans.weeklyTarget, days: range.days)
        columnTotals = [Int64](repeating: 0, count: columns.count)
        focusColumns = [Int](repeating: 0, count: columns.count)

        var groupIndex: [String: Int] = [:]
        var projectCentSeconds: [ProjectID: Int64] = [:]
        var counted: [WorkSession] = []
        for session in sessions where RangeReport.keeps(session, options) {
            let cut = SessionCut(session, grid: grid, now: context.now)
            guard cut.touches else { continue }
            counted.append(session)
            if cut.estimated { estimatedSessions += 1 }
            let project = context.projects[session.projectID]
            let rate = project?.rateCents
            let members = keys(of: session, project: project, context: context)
            let indices = members.map { member in
                if let index = groupIndex[member.key] { return index }
                groups.append(Group(key: member.key, name: member.name, color: member.color, category: member.category,
                                    columns: columnTotals.map { _ in 0 }, columnCentSeconds: columnTotals.map { _ in 0 }))
                groupIndex[member.key] = groups.count - 1
                return groups.count - 1
            }
            var phases = 0
            for span in session.focus {
                guard let column = grid.column(of: span.end) else { continue }
                focusColumns[column] += 1
                phases += 1
            }
            focus += phases
            for index in indices {
                groups[index].sessions += 1
                groups[index].focus += phases
                groups[index].rates.insert(rate)
                if rate != nil { groups[index].hasRatedTime = true }
            }
            for cell in cut.cells {
                let rounded = options.rounding?.apply(cell.seconds) ?? cell.seconds
                columnTotals[cell.column] += rounded
                totalExact += cell.seconds
                if let rate { projectCentSeconds[session.projectID, default: 0] += rounded * rate }
                for index in indices {
                    groups[index].columns[cell.column] += rounded
                    groups[index].totalExact += cell.seconds
                    if let rate {
                        groups[index].columnCentSeconds[cell.column] += rounded * rate
                        groups[index].centSeconds += rounded * rate
                    }
                }
            }
        }
        overlappingSessions = Overlaps.count(counted, now: context.now)
        if context.listTargets { addTargetRows(&groupIndex, context: context) }
        finishGroups(context: context)
        if options.grouping == .tag {
            let rated = projectCentSeconds.values.map(Money.cents(ofCentSeconds:))
            amountCents = rated.isEmpty ? nil : rated.reduce(0, +)
        } else {
            let amounts = groups.compactMap(\.amountCents)
            amountCents = amounts.isEmpty ? nil : amounts.reduce(0, +)
        }
    }

    private struct Member { var key, name, color, category: String }

    /// The groups a session counts in: its project, its project's category, or each of its tags.
    private func keys(of session: WorkSession, project: Project?, context: Context) -> [Member] {
        let category = project?.categoryID.flatMap { context.categoryNames[$0] } ?? ""
        switch options.grouping {
        case .project:
            return [Member(key: String(session.projectID), name: project?.name ?? "project #\(session.projectID)",
                           color: project?.color ?? "", category: category)]
        case .category:
            return [Member(key: category, name: category, color: "", category: category)]
        case .tag:
            let tags = Tags.words(in: session.note)
            if tags.isEmpty { return [Member(key: "", name: "", color: "", category: "")] }
            return tags.map { Member(key: $0.key, name: $0.name, color: "", category: "") }
        }
    }

    /// Projects with a weekly target are listed even without time (not with a tag filter:
    /// a target is not about tagged time).
    private mutating func addTargetRows(_ groupIndex: inout [String: Int], context: Context) {
        guard options.grouping != .tag, options.tag.isEmpty else { return }
        let planned = context.projects.values.filter { !$0.archived && $0.weeklyTarget > 0 && (options.project == 0 || $0.id == options.project) }
        for project in planned.sorted(by: { $0.id < $1.id }) {
            let category = project.categoryID.flatMap { context.categoryNames[$0] } ?? ""
            let key = options.grouping == .project ? String(project.id) : category
            guard groupIndex[key] == nil else { continue }
            groups.append(Group(key: key, name: options.grouping == .project ? project.name : category,
                                color: options.grouping == .project ? project.color : "", category: category,
                                columns: columnTotals.map { _ in 0 }, columnCentSeconds: columnTotals.map { _ in 0 }))
            groupIndex[key] = groups.count - 1
        }
    }

    /// Rates, amounts, targets and the order: largest total first, uncategorized or untagged last.
    private mutating func finishGroups(context: Context) {
        let days = range.days
        for index in groups.indices {
            var group = groups[index]
            switch options.grouping {
            case .project:
                let project = Int64(group.key).flatMap { context.projects[$0] }
                group.rate = project?.rateCents.map(Money.rateText) ?? ""
                if project?.rateCents != nil { group.hasRatedTime = true }
                group.target = PlanSettings.share(of: project?.weeklyTarget ?? 0, days: days)
            case .category:
                let weekly = context.projects.values
                    .filter { !$0.archived && ($0.categoryID.flatMap { context.categoryNames[$0] } ?? "") == group.key }
                    .reduce(Int64(0)) { $0 + $1.weeklyTarget }
                group.target = PlanSettings.share(of: weekly, days: days)
                group.rate = group.rates.count == 1 ? group.rates.first!.map(Money.rateText) ?? "" : ""
            case .tag:
                group.rate = group.rates.count == 1 ? group.rates.first!.map(Money.rateText) ?? "" : ""
            }
            group.amountCents = group.hasRatedTime ? Money.cents(ofCentSeconds: group.centSeconds) : nil
            groups[index] = group
        }
        groups.sort { a, b in
            if a.key.isEmpty != b.key.isEmpty && options.grouping != .project { return b.key.isEmpty }
            if a.total != b.total { return a.total > b.total }
            return (a.name.lowercased(), a.name, a.key) < (b.name.lowercased(), b.name, b.key)
        }
    }

    /// The amount of one cell (group and column), half up; nil when the group has no rated time.
    func amount(of group: Group, column: Int) -> Int64? {
        group.hasRatedTime ? Money.cents(ofCentSeconds: group.columnCentSeconds[column]) : nil
    }
}
