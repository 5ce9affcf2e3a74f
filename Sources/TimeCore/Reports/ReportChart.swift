import TextEscape

/// A report as an SVG chart: one column per day, week or month, stacked by group in the group's
/// color, hours on the axis, each column's total above it (where there is room), and a legend
/// with each group's total. Pure text, so it is tested as text; the agent rasterises it for
/// notifications. It carries its own card background (light, or dark where the viewer asks for
/// a dark scheme), so it reads on light and dark themes alike. The weekly chart is this chart
/// over the week's seven days.
struct ReportChart {
    struct Series {
        var name: String
        var color: String
        var values: [Int64]
        var total: Int64
    }

    var title: String
    var subtitle: String
    var labels: [String]
    var series: [Series]
    var columnTotals: [Int64]
    /// Drawn for a dark colour scheme (a renderer that reads no media query, such as librsvg,
    /// draws the light one otherwise).
    var dark = false

    private static let darkColors = ".card{fill:#242424;stroke:#404040}.text{fill:#f0f0f0}.muted{fill:#b0b0b0}.grid{stroke:#3a3a3a}"
    private static let lightStyle = ".card{fill:#ffffff;stroke:#d0d0d0}.text{fill:#202020}.muted{fill:#606060}.grid{stroke:#e0e0e0}.axis{stroke:#808080}\n"
        + "@media (prefers-color-scheme: dark){\(darkColors)}"
    private static let darkStyle = ".axis{stroke:#909090}" + darkColors

    var svg: String {
        let count = max(1, labels.count)
        let left = 56, top = 64, plotWidth = max(420, count * 22), plotHeight = 290
        let width = plotWidth + 300, height = 420
        let bottom = top + plotHeight
        let columnStep = plotWidth / count, columnWidth = columnStep * 3 / 5
        let stacked = (0..<labels.count).map { column in
            max(columnTotals[column], series.reduce(0) { $0 + $1.values[column] })
        }
        // The axis: whole hours, a step that keeps it to about 6 lines.
        let maxHours = max(1, Int(((stacked.max() ?? 0) + 3599) / 3600))
        let step = [1, 2, 4, 8, 12, 24, 48, 100, 200, 500, 1000, 2000, 5000].first { maxHours / $0 <= 5 } ?? 10000
        let axisHours = ((maxHours + step - 1) / step) * step
        let scale = Double(plotHeight) / Double(axisHours * 3600)
        let totalFont = columnStep >= 50 ? 12 : 10, labelFont = columnStep >= 40 ? 12 : 9

        var out = """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(width)" height="\(height)" viewBox="0 0 \(width) \(height)" font-family="DejaVu Sans, Cantarell, sans-serif">
        <style>
        \(dark ? Self.darkStyle : Self.lightStyle)
        </style>
        <rect class="card" x="0.5" y="0.5" width="\(width - 1)" height="\(height - 1)" rx="8"/>
        <text class="text" x="\(left - 40)" y="30" font-size="18" font-weight="bold">\(TextEscape.markup(title))</text>
        <text class="muted" x="\(left - 40)" y="50" font-size="12">\(TextEscape.markup(subtitle))</text>

        """
        for hours in stride(from: 0, through: axisHours, by: step) {
            let y = bottom - Int(Double(hours * 3600) * scale)
            out += "<line class=\"\(hours == 0 ? "axis" : "grid")\" x1=\"\(left)\" y1=\"\(y)\" x2=\"\(left + plotWidth)\" y2=\"\(y)\"/>\n"
            out += "<text class=\"muted\" x=\"\(left - 8)\" y=\"\(y + 4)\" font-size=\"11\" text-anchor=\"end\">\(hours) h</text>\n"
        }
        for column in labels.indices {
            let x = left + column * columnStep + (columnStep - columnWidth) / 2
            var y = Double(bottom)
            for line in series where line.values[column] > 0 {
                let h = Double(line.values[column]) * scale
                y -= h
                out += "<rect x=\"\(x)\" y=\"\(Self.number(y))\" width=\"\(columnWidth)\" height=\"\(Self.number(h))\" fill=\"\(Self.safeColor(line.color))\"><title>\(TextEscape.markup(line.name)): \(WeeklyReport.clockDuration(line.values[column]))</title></rect>\n"
            }
            let center = x + columnWidth / 2
            if columnTotals[column] > 0 && columnStep >= 30 {
                out += "<text class=\"text\" x=\"\(center)\" y=\"\(Int(y) - 6)\" font-size=\"\(totalFont)\" text-anchor=\"middle\">\(WeeklyReport.clockDuration(columnTotals[column]))</text>\n"
            }
            out += "<text class=\"muted\" x=\"\(center)\" y=\"\(bottom + 18)\" font-size=\"\(labelFont)\" text-anchor=\"middle\">\(TextEscape.markup(labels[column]))</text>\n"
        }
        let legendX = left + plotWidth + 28
        if series.isEmpty {
            out += "<text class=\"muted\" x=\"\(legendX)\" y=\"\(top + 14)\" font-size=\"13\">No time tracked.</text>\n"
        }
        let shown = series.prefix(14)
        for (index, line) in shown.enumerated() {
            let y = top + index * 20
            let name = line.name.count > 18 ? String(line.name.prefix(17)) + "…" : line.name
            out += "<rect x=\"\(legendX)\" y=\"\(y + 2)\" width=\"12\" height=\"12\" rx=\"2\" fill=\"\(Self.safeColor(line.color))\"/>\n"
            out += "<text class=\"text\" x=\"\(legendX + 18)\" y=\"\(y + 13)\" font-size=\"13\">\(TextEscape.markup(name))</text>\n"
            out += "<text class=\"muted\" x=\"\(width - 16)\" y=\"\(y + 13)\" font-size=\"13\" text-anchor=\"end\">\(WeeklyReport.clockDuration(line.total))</text>\n"
        }
        if series.count > shown.count {
            out += "<text class=\"muted\" x=\"\(legendX)\" y=\"\(top + shown.count * 20 + 13)\" font-size=\"12\">… and \(series.count - shown.count) more</text>\n"
        }
        out += "</svg>\n"
        return out
    }

    /// A stored color is `#rrggbb`; anything else is drawn grey rather than written into the markup.
    static func safeColor(_ color: String) -> String {
        let bytes = Array(color.utf8)
        let hex = bytes.count == 7 && bytes[0] == UInt8(ascii: "#") && bytes.dropFirst().allSatisfy {
            ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70)
        }
        return hex ? color : "#888888"
    }

    private static func number(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(abs(tenths % 10))"
    }
}

extension RangeReport {
    /// The chart over the range's columns, each group in its project's color (categories and
    /// tags in the palette's, uncategorized and untagged grey).
    public var svg: String { svg(dark: false) }

    /// The chart drawn for a dark colour scheme (`dark`) or a light one that follows the viewer's.
    public func svg(dark: Bool) -> String {
        let series = groups.enumerated().map { index, group in
            let color = options.grouping == .project ? group.color
                : group.key.isEmpty ? "#888888" : TextInput.palette[index % TextInput.palette.count]
            return ReportChart.Series(name: displayName(group), color: color, values: group.columns, total: group.total)
        }
        return ReportChart(title: "Report \(range.name): \(WeeklyReport.clockDuration(total))",
                           subtitle: "\(range.first) to \(range.last) (\(timeZone)), by \(options.grouping.rawValue)",
                           labels: chartLabels, series: series, columnTotals: columnTotals, dark: dark).svg
    }

    private static let weekdays = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Weekday names for a week or less of days, else the day of the month; `W48` for weeks;
    /// month names within one year, else `2026-11`.
    private var chartLabels: [String] {
        columns.map { column in
            switch columnKind {
            case .day: columns.count <= 7 ? Self.weekdays[column.first.isoWeekday - 1] : String(column.first.day)
            case .week: String(column.label.suffix(3))
            case .month: range.first.year == range.last.year ? Self.months[column.first.month - 1] : column.label
            }
        }
    }
}
