/// The days a report covers, named the way the contract's `Report` takes them: a day
/// `2026-11-25`, an ISO week `2026-W48`, a month `2026-11`, a year `2026`, days `A..B` (both
/// included), or `today`, `yesterday`, `this-week`, `last-week`, `this-month`, `last-month`,
/// `this-year` (`""` is `this-week`). Days are local calendar days.
public struct ReportRange: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case day, week, month, year, days }

    public let kind: Kind
    /// The range as the report names it: `2026-11-25`, `2026-W48`, `2026-11`, `2026`, `2026-11-01..2026-11-15`.
    public let name: String
    public let first: CivilDate
    public let last: CivilDate

    public var days: Int { last.dayNumber - first.dayNumber + 1 }

    public static let acceptedForms = "use a day (2026-11-25), an ISO week (2026-W48), a month (2026-11), a year (2026), "
        + "days A..B (2026-11-01..2026-11-15), or today, yesterday, this-week, last-week, this-month, last-month, this-year (\"\" is this-week)"

    /// Years outside this span are refused (as times outside 1970 … 9999 are).
    static let years = 1970...9999

    init(kind: Kind, first: CivilDate, last: CivilDate) {
        self.kind = kind
        self.first = first
        self.last = last
        switch kind {
        case .day: name = first.description
        case .week:
            let (year, week) = first.isoWeek
            name = "\(pad(year, 4))-W\(pad(week, 2))"
        case .month: name = String(first.description.prefix(7))
        case .year: name = pad(first.year, 4)
        case .days: name = "\(first)..\(last)"
        }
    }

    public static func day(_ date: CivilDate) -> ReportRange { ReportRange(kind: .day, first: date, last: date) }
    public static func week(_ monday: CivilDate) -> ReportRange { ReportRange(kind: .week, first: monday, last: monday.adding(days: 6)) }
    public static func month(year: Int, month: Int) -> ReportRange {
        let first = CivilDate(year: year, month: month, day: 1)
        let next = month == 12 ? CivilDate(year: year + 1, month: 1, day: 1) : CivilDate(year: year, month: month + 1, day: 1)
        return ReportRange(kind: .month, first: first, last: next.adding(days: -1))
    }
    public static func year(_ year: Int) -> ReportRange {
        ReportRange(kind: .year, first: CivilDate(year: year, month: 1, day: 1), last: CivilDate(year: year, month: 12, day: 31))
    }

    /// Reads a range; `today` is the local day of the call. Anything else is refused, naming the forms.
    public static func parse(_ raw: String, today: CivilDate) throws -> ReportRange {
        let text = raw.trimmingWhitespace()
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        func invalid(_ why: String = "is not a range") -> TrackerError {
            .invalidArgument("\"\(shown)\" \(why): \(acceptedForms).")
        }
        switch text.lowercased() {
        case "", "this-week": return week(Week.containing(today).monday)
        case "today": return day(today)
        case "yesterday": return day(today.adding(days: -1))
        case "last-week": return week(Week.containing(today).monday.adding(days: -7))
        case "this-month": return month(year: today.year, month: today.month)
        case "last-month": return today.month == 1 ? month(year: today.year - 1, month: 12) : month(year: today.year, month: today.month - 1)
        case "this-year": return year(today.year)
        default: break
        }
        let halves = text.split(separator: ".", omittingEmptySubsequences: false)
        if halves.count > 1 {
            guard halves.count == 3, halves[1].isEmpty, let from = date(String(halves[0])), let to = date(String(halves[2])) else {
                throw invalid("is not a range of days (A..B takes two dates such as 2026-11-01..2026-11-15)")
            }
            guard from <= to else { throw invalid("ends before it begins") }
            return ReportRange(kind: .days, first: from, last: to)
        }
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count, !range.isEmpty,
                  bytes[range].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        if bytes.count == 4, let year = number(0..<4) {
            guard years.contains(year) else { throw invalid("is outside the years \(years.lowerBound) to \(years.upperBound)") }
            return self.year(year)
        }
        if bytes.count == 7, bytes[4] == UInt8(ascii: "-"), let year = number(0..<4), let month = number(5..<7) {
            guard years.contains(year), (1...12).contains(month) else { throw invalid("is not a month in the calendar") }
            return self.month(year: year, month: month)
        }
        if bytes.count == 8 || bytes.count == 7, bytes[4] == UInt8(ascii: "-"),
           bytes[5] == UInt8(ascii: "W") || bytes[5] == UInt8(ascii: "w"), let year = number(0..<4), let week = number(6..<bytes.count) {
            guard years.contains(year), let monday = CivilDate.mondayOfISOWeek(year: year, week: week) else {
                throw invalid("is not a week: \(year) has no week \(week)")
            }
            return self.week(monday)
        }
        if bytes.count == 10 {
            guard let date = date(text) else { throw invalid("is not a date in the calendar") }
            return day(date)
        }
        throw invalid()
    }

    /// `2026-11-25`, a real day of the calendar in the accepted years; nil otherwise.
    static func date(_ raw: String) -> CivilDate? {
        let bytes = Array(raw.trimmingWhitespace().utf8)
        guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard bytes[range].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), years.contains(year) else { return nil }
        let date = CivilDate(year: year, month: month, day: day)
        return date.isValid ? date : nil
    }
}

/// One column of a report: a day, a week or a month, cut to the range.
public struct ReportColumn: Equatable, Sendable {
    public var label: String
    public var first: CivilDate
    public var last: CivilDate
}

extension ReportRange {
    /// The contract's default: days up to 31 days, weeks up to 26 weeks, else months.
    public var defaultColumns: ReportOptions.Columns {
        days <= 31 ? .day : days <= 26 * 7 ? .week : .month
    }

    /// More columns than this are refused (a report of decades by day): a coarser kind fits.
    static let maximumColumns = 1200

    /// The range cut into columns of `kind`, the first and last cut to the range.
    func columns(_ kind: ReportOptions.Columns) throws -> [ReportColumn] {
        var result: [ReportColumn] = []
        var day = first
        while day <= last {
            let end: CivilDate
            let label: String
            switch kind {
            case .day:
                end = day
                label = day.description
            case .week:
                end = min(last, day.adding(days: 7 - day.isoWeekday))
                let (year, week) = day.isoWeek
                label = "\(pad(year, 4))-W\(pad(week, 2))"
            case .month:
                end = min(last, ReportRange.month(year: day.year, month: day.month).last)
                label = String(day.description.prefix(7))
            }
            result.append(ReportColumn(label: label, first: day, last: min(end, last)))
            guard result.count <= ReportRange.maximumColumns else {
                throw TrackerError.invalidArgument("\(name) has more than \(ReportRange.maximumColumns) columns of a \(kind.rawValue): use columns week or month, or a shorter range.")
            }
            day = end.adding(days: 1)
        }
        return result
    }

    /// The grid of those columns: the first instant of each column's first day, and of the day after the range.
    static func grid(_ columns: [ReportColumn]) -> TimeGrid {
        TimeGrid(boundaries: columns.map { LocalTime.startOfDay($0.first) } + [LocalTime.startOfDay(columns.last!.last.adding(days: 1))])
    }
}
