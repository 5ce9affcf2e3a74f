/// One record read from another tool's data, before it is mapped onto projects and sessions.
public struct ExchangeRecord: Equatable, Sendable {
    /// What makes a re-import add nothing (`timewarrior:<start>`, `watson:<frame id>`, ...).
    public var key: String
    /// The project's name; "" when the tool did not name one (Timewarrior: chosen from `tags`).
    public var project: String
    public var category: String
    public var start: Int64
    /// nil: the tool's running interval, which is never imported.
    public var end: Int64?
    public var note: String
    /// Tags, written as `#tag` words after the note.
    public var tags: [String]
    /// Exact active segments when the source has them (our own JSON); else one from start to end.
    public var segments: [Segment]?
    /// Active seconds when the source gives only a total that differs from the span (our CSV).
    public var activeSeconds: Int64?

    public init(key: String, project: String, category: String = "", start: Int64, end: Int64?, note: String = "",
                tags: [String] = [], segments: [Segment]? = nil, activeSeconds: Int64? = nil) {
        self.key = key; self.project = project; self.category = category; self.start = start; self.end = end
        self.note = note; self.tags = tags; self.segments = segments; self.activeSeconds = activeSeconds
    }

    /// The note with the tags appended as `#tag` words (spaces inside a tag become `_`).
    public var noteWithTags: String {
        let words = tags.map { "#" + String($0.map { $0 == " " ? "_" : $0 }) }
        return ([note].filter { !$0.isEmpty } + words).joined(separator: " ")
    }
}

/// Projects and colors a source brings along (our own JSON export); others name projects only.
public struct ExchangeProject: Equatable, Sendable {
    public var name: String
    public var color: String
    public var category: String
    public var archived: Bool
    /// The hourly rate and weekly target (v10 data; none in older exports).
    public var rateCents: Int64? = nil
    public var weeklyTarget: Int64 = 0
}

/// Everything read from one source.
public struct ExchangeData: Equatable, Sendable {
    public var records: [ExchangeRecord] = []
    public var projects: [ExchangeProject] = []
    public var categories: [String] = []
    public var warnings: [String] = []
    /// Timewarrior: the project is chosen among the tags when the import maps the records.
    public var projectFromTags = false
    public init() {}
}

/// A file that cannot be read as the format says: which file, which line, what was expected.
public struct ExchangeError: Error, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var expected: String

    public init(file: String, line: Int, expected: String) {
        self.file = file; self.line = line; self.expected = expected
    }

    public var description: String {
        let name = Files.shownInMessage(file)
        return line > 0 ? "\(name), line \(line): \(expected)" : "\(name): \(expected)"
    }
}
