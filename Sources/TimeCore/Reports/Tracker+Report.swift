/// The contract's `Report(range, options)`: the sessions overlapping the range (read through the
/// store's index on start, so the cost follows the range, not the history), cut and grouped by
/// the report engine.
extension Tracker {
    public func report(range spec: String, options: ReportOptions) throws -> String {
        let (range, sessions, context) = try reportInputs(range: spec, options: options)
        if options.format == .timesheet {
            return try Timesheet(range: range, options: options, sessions: sessions, context: context).csv
        }
        return try RangeReport(range: range, options: options, sessions: sessions, context: context).rendered()
    }

    public func rangeReport(range spec: String, options: ReportOptions) throws -> RangeReport {
        let (range, sessions, context) = try reportInputs(range: spec, options: options)
        return try RangeReport(range: range, options: options, sessions: sessions, context: context)
    }

    public func timesheet(range spec: String, options: ReportOptions) throws -> Timesheet {
        let (range, sessions, context) = try reportInputs(range: spec, options: options)
        return try Timesheet(range: range, options: options, sessions: sessions, context: context)
    }

    private func reportInputs(range spec: String, options: ReportOptions) throws -> (ReportRange, [WorkSession], RangeReport.Context) {
        LocalTime.refresh()
        let now = clock.now()
        let range = try ReportRange.parse(spec, today: LocalTime.date(of: now))
        if options.project != 0 && project(id: options.project) == nil {
            throw TrackerError.invalidArgument("There is no project with id \(options.project) to report on; list them with ListProjects (timectl projects), or give 0 for all.")
        }
        let start = LocalTime.startOfDay(range.first), end = LocalTime.startOfDay(range.last.adding(days: 1))
        let elsewhere = (sessionsElsewhere?() ?? []).filter { $0.start < end }
        let sessions = try store.sessions(overlapping: start, end, project: options.project) + elsewhere
        let context = RangeReport.Context(projects: Dictionary(uniqueKeysWithValues: projects().map { ($0.id, $0) }),
                                          categoryNames: Dictionary(uniqueKeysWithValues: categories().map { ($0.id, $0.name) }),
                                          plans: planSettings, now: now)
        return (range, sessions, context)
    }
}
