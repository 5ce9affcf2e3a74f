/// The `text` form of a report: a table a person reads in a terminal, groups first (total, the
/// exact time when rounded, rate and amount when there are rates, the range's target when there
/// is one), then the total of each column.
extension RangeReport {
    /// `7:05` or, with `decimal`, `7.08` (hours); `-` for nothing.
    func duration(_ seconds: Int64) -> String {
        guard seconds > 0 else { return "-" }
        return options.decimal ? RangeReport.decimalHours(seconds) : WeeklyReport.clockDuration(seconds)
    }

    /// Hours to two places, half up: `1.25`.
    static func decimalHours(_ seconds: Int64) -> String {
        let hundredths = (seconds * 100 * 2 + 3600) / 7200
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }

    func displayName(_ group: Group) -> String {
        guard group.name.isEmpty else { return group.name }
        switch options.grouping {
        case .project: return group.key
        case .category: return "(uncategorized)"
        case .tag: return "(untagged)"
        }
    }

    private var columnWord: String {
        switch columnKind {
        case .day: "day"
        case .week: "week"
        case .month: "month"
        }
    }

    public var text: String {
        var out = "Report \(range.name): \(range.first) to \(range.last) (\(timeZone)), by \(options.grouping.rawValue)\n"
        if let rounding = options.rounding {
            let how = rounding.mode == .nearest ? "to the nearest" : rounding.mode.rawValue + " to"
            out += "Each session's time in each \(columnWord) rounded \(how) \(rounding.name); the exact time beside.\n"
        }
        if options.project != 0 || !options.tag.isEmpty {
            var only: [String] = []
            if options.project != 0 { only.append("project #\(options.project)") }
            if !options.tag.isEmpty { only.append("sessions tagged #\(options.tag)") }
            out += "Only \(only.joined(separator: " and ")).\n"
        }
        guard !groups.isEmpty else {
            return out + "\nNo time tracked from \(range.first) to \(range.last).\n" + targetLine
        }
        let showExact = options.rounding != nil
        let showMoney = groups.contains { $0.amountCents != nil }
        let showTarget = target > 0 || groups.contains { $0.target > 0 }
        let heading = options.grouping.rawValue.prefix(1).uppercased() + options.grouping.rawValue.dropFirst()
        let nameWidth = min(28, max(7, (groups.map { displayName($0).count } + columns.map(\.label.count)).max() ?? 7))
        func cell(_ text: String, _ width: Int, right: Bool = true) -> String {
            let shown = text.count > width ? String(text.prefix(width - 1)) + "…" : text
            let padding = String(repeating: " ", count: max(0, width - shown.count))
            return right ? padding + shown : shown + padding
        }
        func row(_ name: String, _ cells: [String]) -> String {
            cell(name, nameWidth, right: false) + cells.joined() + "\n"
        }
        let amountHeading = currency.isEmpty ? "Amount" : "Amount \(currency)"
        var header: [String] = [cell("Total", 9)]
        if showExact { header.append(cell("Exact", 9)) }
        if showMoney { header += [cell("Rate", 10), cell(amountHeading, max(12, amountHeading.count + 2))] }
        if showTarget { header.append(cell("Target", 9)) }
        // Completed focus phases, where any were (focus timer).
        let showFocus = focus > 0
        if showFocus { header.append(cell("Focus", 7)) }
        out += "\n" + row(heading, header)
        func cells(total: Int64, exact: Int64, rate: String, amount: Int64?, target: Int64, focus: Int) -> [String] {
            var result = [cell(duration(total), 9)]
            if showExact { result.append(cell(duration(exact), 9)) }
            if showMoney {
                result += [cell(rate.isEmpty ? "-" : rate, 10),
                           cell(amount.map(Money.amountText) ?? "-", max(12, amountHeading.count + 2))]
            }
            if showTarget { result.append(cell(target > 0 ? WeeklyReport.clockDuration(target) : "-", 9)) }
            if showFocus { result.append(cell(String(focus), 7)) }
            return result
        }
        for group in groups {
            out += row(displayName(group), cells(total: group.total, exact: group.totalExact, rate: group.rate,
                                                 amount: group.amountCents, target: group.target, focus: group.focus))
        }
        out += row("Total", cells(total: total, exact: totalExact, rate: "", amount: amountCents, target: target, focus: focus))
        if options.grouping == .tag {
            out += "\nTag rows overlap: a session with two tags counts in both; the total counts it once.\n"
        }
        out += "\n" + row(columnWord.prefix(1).uppercased() + columnWord.dropFirst(), [cell("Total", 9)])
        for (index, column) in columns.enumerated() {
            out += row(column.label, [cell(duration(columnTotals[index]), 9)])
        }
        if estimatedSessions > 0 {
            out += "\n\(plural(estimatedSessions, "session")) from an older store spread evenly over their span.\n"
        }
        if overlappingSessions > 0 {
            out += "\n\(plural(overlappingSessions, "session")) overlap another: their shared time counts in each (timectl sessions --overlaps lists them).\n"
        }
        return out + targetLine
    }

    /// `Target 171:26 over these 30 days; 15:15 tracked (9%).` (the weekly target × 30 ÷ 7)
    private var targetLine: String {
        guard target > 0 else { return "" }
        let percent = total * 100 / target
        let weekly = range.days == 7 ? "" : " over these \(range.days) days"
        let tracked = total > 0 ? WeeklyReport.clockDuration(total) : "0:00"
        return "\nTarget \(WeeklyReport.clockDuration(target))\(weekly); \(tracked) tracked (\(percent)%).\n"
    }
}
