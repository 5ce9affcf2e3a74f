/// The `timesheet` form of a report (for an invoice): one row per session and local day,
/// `date,project,category,tags,note,start,end,hours,rate,amount`, RFC 4180 CSV in UTF-8 with CRLF.
/// Each row is rounded as asked (a session's time within a day, as the report rounds it by day)
/// and its hours written as a decimal (`1.25`); its amount is the rounded time × the project's
/// rate, in cents half up.
public struct Timesheet: Equatable, Sendable {
    public struct Row: Equatable, Sendable {
        public var date: CivilDate
        public var project: String
        public var category: String
        public var tags: [String]
        public var note: String
        /// The first and last active moment of the session on that day.
        public var start: Int64
        public var end: Int64
        public var seconds: Int64
        public var rateCents: Int64?
        public var amountCents: Int64? { rateCents.map { Money.cents(ofCentSeconds: seconds * $0) } }
    }

    public private(set) var rows: [Row] = []

    public static let header = ["date", "project", "category", "tags", "note", "start", "end", "hours", "rate", "amount"]

    public init(range: ReportRange, options: ReportOptions, sessions: [WorkSession], context: RangeReport.Context) throws {
        let days = try range.columns(.day)
        let grid = ReportRange.grid(days)
        // The same sessions as the report (its filters), cut by the same code.
        for session in sessions where RangeReport.keeps(session, options) {
            let cut = SessionCut(session, grid: grid, now: context.now)
            guard cut.touches else { continue }
            let project = context.projects[session.projectID]
            func row(_ column: Int, _ seconds: Int64, _ start: Int64, _ end: Int64) -> Row {
                Row(date: days[column].first, project: project?.name ?? "project #\(session.projectID)",
                    category: project?.categoryID.flatMap { context.categoryNames[$0] } ?? "",
                    tags: Tags.words(in: session.note).map(\.name), note: session.note, start: start, end: end,
                    seconds: options.rounding?.apply(seconds) ?? seconds, rateCents: project?.rateCents)
            }
            if cut.cells.isEmpty, let column = grid.column(of: session.start) {
                rows.append(row(column, 0, session.start, session.start))
            }
            for cell in cut.cells { rows.append(row(cell.column, cell.seconds, cell.first, cell.last)) }
        }
        rows.sort { ($0.date, $0.start, $0.project) < ($1.date, $1.start, $1.project) }
    }

    public var csv: String {
        var out = CSV.row(Timesheet.header)
        for row in rows {
            out += CSV.row([
                row.date.description, row.project, row.category, row.tags.joined(separator: " "), row.note,
                LocalTime.clock(row.start), LocalTime.clock(row.end), RangeReport.decimalHours(row.seconds),
                row.rateCents.map(Money.rateText) ?? "", row.amountCents.map(Money.amountText) ?? "",
            ])
        }
        return out
    }
}

extension RangeReport {
    /// Whether a report with these options counts the session (its project and tag filters).
    static func keeps(_ session: WorkSession, _ options: ReportOptions) -> Bool {
        if options.project != 0 && session.projectID != options.project { return false }
        if !options.tag.isEmpty && !Tags.words(in: session.note).contains(where: { $0.key == options.tag }) { return false }
        return true
    }
}
