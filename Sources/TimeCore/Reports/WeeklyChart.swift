/// The week as an SVG chart: the report chart (ReportChart) over the week's seven days,
/// stacked by project.
extension WeeklyReport {
    public var svg: String {
        ReportChart(title: "Week \(week.isoName): \(Self.clockDuration(total))",
                    subtitle: "\(week.monday) to \(week.sunday) (\(timeZone))",
                    labels: ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"],
                    series: projects.map { ReportChart.Series(name: $0.name, color: $0.color, values: $0.days, total: $0.total) },
                    columnTotals: days).svg
    }
}
