/// The options of the contract's `Report`: format, grouping, columns, filters, rounding and
/// decimal hours. Built from what a caller gave; every bad value is refused with the forms it takes.
public struct ReportOptions: Equatable, Sendable {
    public enum Format: String, Sendable, CaseIterable { case text, json, csv, timesheet, svg }
    public enum Grouping: String, Sendable, CaseIterable { case project, category, tag }
    public enum Columns: String, Sendable, CaseIterable { case day, week, month }

    public var format: Format = .text
    public var grouping: Grouping = .project
    /// nil: the range's default (`ReportRange.defaultColumns`).
    public var columns: Columns?
    /// 0: every project.
    public var project: ProjectID = 0
    /// The tag's key (`Tags.key`); "" keeps every session.
    public var tag: String = ""
    public var rounding: Rounding?
    public var decimal = false

    public init() {}

    /// Reads the values as given (nil: the key was not given).
    public init(format: String?, group: String?, columns: String?, project: Int64?, tag: String?,
                round: String?, roundMode: String?, decimal: Bool?) throws {
        if let format { self.format = try Self.choice(format, of: "format") }
        if let group { grouping = try Self.choice(group, of: "group") }
        if let columns { self.columns = try Self.choice(columns, of: "columns") }
        if let project {
            guard project >= 0 else { throw TrackerError.invalidArgument("The project \(project) is not a project id; give 0 for all projects.") }
            self.project = project
        }
        if let tag {
            let text = tag.trimmingWhitespace()
            let word = text.hasPrefix("#") ? String(text.dropFirst()) : text
            guard !word.unicodeScalars.contains(where: { $0.properties.isWhitespace }) else {
                throw TrackerError.invalidArgument("\"\(word.prefix(40))\" is not a tag: a tag is one word (a #word in a note), such as client-a.")
            }
            self.tag = Tags.key(word)
        }
        let mode = try roundMode.map { try Rounding.Mode.choice($0) } ?? .nearest
        if let round, !round.trimmingWhitespace().isEmpty { rounding = try Rounding(round, mode: mode) }
        if let decimal { self.decimal = decimal }
    }

    static func choice<T: RawRepresentable & CaseIterable>(_ raw: String, of key: String) throws -> T where T.RawValue == String {
        let text = raw.trimmingWhitespace().lowercased()
        if let value = T(rawValue: text) { return value }
        let names = T.allCases.map { "\"\($0.rawValue)\"" }
        throw TrackerError.invalidArgument("\"\(raw.prefix(40))\" is not a \(key) of a report; use \(names.dropLast().joined(separator: ", ")) or \(names.last!).")
    }
}

/// Rounding of each session's time within each column (as Toggl and Kimai round entries).
public struct Rounding: Equatable, Sendable {
    public enum Mode: String, Sendable, CaseIterable {
        case up, nearest, down
        static func choice(_ raw: String) throws -> Mode {
            if raw.trimmingWhitespace().isEmpty { return .nearest }
            return try ReportOptions.choice(raw, of: "round_mode")
        }
    }

    public let seconds: Int64
    public let mode: Mode

    public static let maximumSeconds: Int64 = 24 * 3600

    /// `round` as typed: a duration such as `6m`, `15m`, `30m` or `1h`.
    public init(_ raw: String, mode: Mode) throws {
        let seconds: Int64
        do {
            seconds = try DurationParser.seconds(from: raw)
        } catch let error as TrackerError {
            throw TrackerError.invalidArgument("round takes a duration such as 6m, 15m, 30m or 1h: \(error.message)")
        }
        guard seconds <= Rounding.maximumSeconds else {
            throw TrackerError.invalidArgument("round takes a duration of at most a day (24h), such as 6m, 15m, 30m or 1h; got \(raw.trimmingWhitespace().prefix(40)).")
        }
        self.init(seconds: seconds, mode: mode)
    }

    public init(seconds: Int64, mode: Mode) {
        self.seconds = seconds
        self.mode = mode
    }

    /// `15m`, `1h`, `1h30m`, `45s`: the duration in its shortest unit form.
    public var name: String {
        let hours = seconds / 3600, minutes = seconds % 3600 / 60, rest = seconds % 60
        return (hours > 0 ? "\(hours)h" : "") + (minutes > 0 ? "\(minutes)m" : "") + (rest > 0 ? "\(rest)s" : "")
    }

    /// `seconds` rounded to a multiple of the step; `nearest` takes a half step up. 0 stays 0.
    public func apply(_ value: Int64) -> Int64 {
        switch mode {
        case .up: return (value + seconds - 1) / seconds * seconds
        case .down: return value / seconds * seconds
        case .nearest: return (2 * value + seconds) / (2 * seconds) * seconds
        }
    }
}

/// Tags: `#word`s in a note (the importers write tags that way, a space inside one as `_`).
/// Compared without regard to case; a trailing `.`, `,`, `;`, `:`, `!` or `?` is punctuation, not part of the tag.
public enum Tags {
    /// Each tag once, in the order of the note: (key, as written).
    public static func words(in note: String) -> [(key: String, name: String)] {
        guard note.utf8.contains(UInt8(ascii: "#")) else { return [] }
        var found: [(key: String, name: String)] = []
        var seen = Set<String>()
        var previousIsSpace = true
        var word: String.UnicodeScalarView?
        func finish() {
            guard var scalars = word else { return }
            word = nil
            while let last = scalars.last, ".,;:!?".unicodeScalars.contains(last) { scalars.removeLast() }
            guard !scalars.isEmpty else { return }
            let name = String(scalars)
            let key = Tags.key(name)
            if seen.insert(key).inserted { found.append((key, name)) }
        }
        for scalar in note.unicodeScalars {
            let isSpace = scalar.properties.isWhitespace
            if isSpace {
                finish()
            } else if word != nil {
                word!.append(scalar)
            } else if scalar == "#" && previousIsSpace {
                word = String.UnicodeScalarView()
            }
            previousIsSpace = isSpace
        }
        finish()
        return found
    }

    public static func key(_ tag: String) -> String { tag.lowercased() }
}
