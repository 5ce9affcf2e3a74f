/// The report in the contract's `json` and `csv` forms, and the dispatch over every format.
extension RangeReport {
    /// The format asked for (`timesheet` is built from the sessions themselves: `Timesheet`).
    public func rendered() -> String {
        switch options.format {
        case .text, .timesheet: text
        case .json: json.serialized
        case .csv: csv
        case .svg: svg
        }
    }

    private func amountText(_ cents: Int64?) -> String { cents.map(Money.amountText) ?? "" }

    /// Keys in the contract's order.
    public var json: JSON {
        .object([
            ("range", .string(range.name)),
            ("from", .string(range.first.description)),
            ("to", .string(range.last.description)),
            ("timezone", .string(timeZone)),
            ("group", .string(options.grouping.rawValue)),
            ("columns", .array(columns.map { column in
                .object([("label", .string(column.label)), ("from", .string(column.first.description)),
                         ("to", .string(column.last.description))])
            })),
            ("round", .string(options.rounding?.name ?? "")),
            ("round_mode", .string(options.rounding?.mode.rawValue ?? "")),
            ("currency", .string(currency)),
            ("total", .int(total)),
            ("total_exact", .int(totalExact)),
            ("amount", .string(amountText(amountCents))),
            ("target", .int(target)),
            ("overlapping", .int(Int64(overlappingSessions))),
            ("focus", .int(Int64(focus))),
            ("groups", .array(groups.map { group in
                .object([
                    ("key", .string(group.key)), ("name", .string(group.name)), ("color", .string(group.color)),
                    ("category", .string(group.category)), ("total", .int(group.total)), ("total_exact", .int(group.totalExact)),
                    ("columns", .array(group.columns.map(JSON.int))), ("rate", .string(group.rate)),
                    ("amount", .string(amountText(group.amountCents))), ("target", .int(group.target)),
                    ("focus", .int(Int64(group.focus))),
                ])
            })),
        ])
    }

    /// RFC 4180 (CRLF, quoted where needed), one row per group and column:
    /// `group,column_from,column_to,seconds,hours,amount`.
    public var csv: String {
        var out = CSV.row(["group", "column_from", "column_to", "seconds", "hours", "amount"])
        for group in groups {
            for (index, column) in columns.enumerated() {
                let seconds = group.columns[index]
                let hours = options.decimal ? RangeReport.decimalHours(seconds) : RangeReport.clockHours(seconds)
                out += CSV.row([group.name, column.first.description, column.last.description, String(seconds), hours,
                                amountText(amount(of: group, column: index))])
            }
        }
        return out
    }

    /// `1:15`, `0:00`: hours and minutes, for a spreadsheet cell.
    static func clockHours(_ seconds: Int64) -> String {
        let minutes = max(0, seconds) / 60
        return "\(minutes / 60):\(pad(Int(minutes % 60), 2))"
    }
}
