import PathTrace
import CSQLite
import Glibc

/// The live status of the timer, computed at call time.
public struct TimerStatus: Equatable, Sendable {
    public var state: TimerState
    public var session: WorkSession?
    public var project: Project?
    public var categoryName: String
    public var lastProjectName: String
    /// Active seconds before the running segment began (all of them when paused).
    public var settledSeconds: Int64 { session?.settledSeconds ?? 0 }
    /// When the running segment began; 0 unless running.
    public var runningSince: Int64 { session.flatMap { $0.isRunning ? $0.segments.last?.start : nil } ?? 0 }
}

/// Which fields of a project to change (`UpdateProject`).
public struct ProjectChanges: Sendable {
    public var name: String?
    public var color: String?
    public var category: String?
    public var archived: Bool?
    /// A decimal rate (`"85.50"`), `""` to remove it.
    public var rate: String?
    /// Seconds per week; 0 for none.
    public var weeklyTarget: Int64?
    public init(name: String? = nil, color: String? = nil, category: String? = nil, archived: Bool? = nil,
                rate: String? = nil, weeklyTarget: Int64? = nil) {
        self.name = name; self.color = color; self.category = category; self.archived = archived
        self.rate = rate; self.weeklyTarget = weeklyTarget
    }
}

/// Which fields of a session to change (`EditSession`); the open session takes start, project and note.
public struct SessionChanges: Sendable {
    public var projectID: ProjectID?
    public var start: Int64?
    public var duration: String?
    public var note: String?
    /// For the open session's new start: shorten the completed sessions it would overlap (Tracker+Corrections).
    public var adjust: Bool
    public init(projectID: ProjectID? = nil, start: Int64? = nil, duration: String? = nil, note: String? = nil, adjust: Bool = false) {
        self.projectID = projectID; self.start = start; self.duration = duration; self.note = note; self.adjust = adjust
    }
}

/// The time tracker: projects, categories, sessions and the one desktop-wide timer.
/// Every change goes through `change(_:)`, which applies it in a transaction, hands the result
/// to the `ChangeRecorder` and commits only when that succeeded.
public final class Tracker {
    public let store: Store
    public let clock: Clock
    public var recorder: ChangeRecorder?
    /// The undo history, kept in the store; every change through the gate becomes a step.
    let history: UndoHistory
    /// Open sessions of other devices (sync), which reports count up to now; none without sync.
    public var sessionsElsewhere: (() -> [WorkSession])?
    /// Set when the data could not be opened safely: every change is refused with this reason.
    public internal(set) var readOnlyReason: String?

    var projectsByID: [ProjectID: Project] = [:]
    var categoriesByID: [Int64: Category] = [:]
    var openSession: WorkSession?
    private var reminderMinutesValue: UInt32 = Tracker.defaultReminderMinutes
    /// The seconds of a minute of the focus timer's phases: 60 (end-to-end tests shorten it).
    public var focusMinuteSeconds: Int64 = 60

    public static let defaultReminderMinutes: UInt32 = 60
    public static let maximumReminderMinutes: UInt32 = 7 * 24 * 60
    /// Times outside 1970-01-01 ... 9999-12-31 are refused.
    public static let latestTime: Int64 = 253_402_300_799

    public init(store: Store, clock: Clock = SystemClock(), readOnlyReason: String? = nil) throws {
        self.store = store
        self.clock = clock
        self.readOnlyReason = readOnlyReason
        history = UndoHistory(store: store)
        try reload()
    }

    /// Re-reads the cached parts (after a rollback the cache may be ahead of the store).
    func reload() throws {
        projectsByID = Dictionary(uniqueKeysWithValues: try store.projects().map { ($0.id, $0) })
        categoriesByID = Dictionary(uniqueKeysWithValues: try store.categories().map { ($0.id, $0) })
        openSession = try store.openSession()
        reminderMinutesValue = try store.meta("reminder_minutes").flatMap { UInt32($0) } ?? Tracker.defaultReminderMinutes
    }

    // MARK: The change gate

    /// Applies `body` as one durable change. Nothing is acknowledged (returned) before the
    /// recorder has made the new state durable; on any failure the store is left unchanged.
    /// The change becomes the newest step of the undo history unless `recordingStep` is false
    /// (undo and redo, which mark steps and add none).
    @discardableResult
    func change<T>(recordingStep: Bool = true, _ body: () throws -> T) throws -> T {
        if let readOnlyReason { throw TrackerError.readOnly(readOnlyReason) }
        // A caller that does not tidy up after its changes still has the WAL folded in.
        store.checkpointIfDue(at: 4 * Store.checkpointFrames)
        do {
            try store.begin()
            PathTrace.mark("gate: BEGIN IMMEDIATE")
        } catch {
            throw TrackerError.storageFailure("The change could not be started (\(error)); nothing was changed.")
        }
        var recorded = false
        var committedEarly: UndoHistory.FinishedStep?
        do {
            if recordingStep { try history.beginStep() }
            PathTrace.mark("undo: recording started")
            let result = try body()
            PathTrace.mark("change: rows written")
            let writeStep = {
                if recordingStep { try self.history.finishStep(at: self.now) { try self.sentence(for: $0) } }
                PathTrace.mark("undo: step written")
            }
            if let recorder {
                try recorder.recordState(of: store, changedDays: store.changedDays, meanwhile: writeStep) {
                    // Committed before the flush only when the change can be taken back exactly.
                    guard recordingStep, let step = self.history.finished else { return false }
                    try self.store.commit()
                    committedEarly = step
                    return true
                }
            } else {
                try writeStep()
            }
            recorded = true
            if committedEarly == nil {
                try store.commit()
                PathTrace.mark("SQLite: COMMIT")
            }
            recorder?.changeCommitted()
            committedChanges &+= 1
            return result
        } catch {
            // Committed, then its slot's flush (or read-back) failed: taken back, or editing locked.
            if let committedEarly { try takeBack(committedEarly, after: error) }
            history.abandonStep()
            store.rollback()
            if recorded { recorder?.changeAbandoned() }
            try? reload()
            if let error = error as? TrackerError { throw error }
            throw TrackerError.storageFailure(
                "The change could not be saved safely (\(error)); nothing was changed. Check free disk space and the permissions of the data folder.")
        }
    }

    var now: Int64 { clock.now() }

    /// How many changes this tracker committed since it was made: the agent's `DataRevision`,
    /// so that a window re-reads after a change from anywhere (a client, the tray, a merge).
    public internal(set) var committedChanges: UInt64 = 0

    /// Housekeeping left from the last change; a front end calls it after answering the caller.
    public func tidyUp() {
        recorder?.tidyUp()
        // A trim that fails (a full disk) loses nothing: the steps stay until the next one.
        if readOnlyReason == nil { try? history.trimIfDue() }
        store.checkpointIfDue()
    }

    // MARK: Timer

    public func status() throws -> TimerStatus {
        let project = openSession.flatMap { projectsByID[$0.projectID] }
        return TimerStatus(
            state: openSession?.state ?? .idle,
            session: openSession,
            project: project,
            categoryName: project?.categoryID.flatMap { categoriesByID[$0]?.name } ?? "",
            lastProjectName: try lastProject()?.name ?? "")
    }

    public var currentSession: WorkSession? { openSession }

    func lastProject() throws -> Project? {
        try store.lastUsedProjectID().flatMap { projectsByID[$0] }
    }

    /// Starts (or resumes, or switches to) a project by name or `#id`.
    @discardableResult
    public func startProject(_ reference: String) throws -> SessionID {
        let project = try resolveProject(reference)
        if let open = openSession, open.projectID == project.id {
            if !open.isRunning { try resume() }
            return open.id
        }
        return try change {
            let time = now
            let stopped = try openSession.map { try complete($0, at: time) }
            let session = WorkSession(id: 0, projectID: project.id, start: time, end: nil, unrecordedSeconds: 0,
                                      note: "", segments: [Segment(start: time, end: nil)])
            let id = try store.insertSession(session)
            openSession = try store.openSession(id: id)
            try focusSessionResumed(at: time)  // tracking again: a focus phase paused with the last session goes on
            // Said here, as the changeset would say it, without reading the stopped session back.
            describeStart(of: project.id, at: time, stopping: stopped)
            return id
        }
    }

    /// Running → paused. Already paused: nothing changes.
    public func pause() throws {
        guard let open = openSession else { throw TrackerError.idle }
        guard open.isRunning else { return }
        try change {
            // One time for the segment, the away span, the focus phase and the history's sentence.
            let time = max(now, open.segments.last!.start)
            try store.closeRunningSegment(of: open.id, at: time)
            try endAwaySpan(at: time)
            try focusSessionPaused(at: time)
            openSession = try store.openSession(id: open.id)
            // Said here, as the changeset would say it, without reading the session's project back.
            describeStepWhenWritten { "Paused \(self.name(open)) at \(self.clockText(time))" }
        }
    }

    /// Paused → running. Already running: nothing changes.
    public func resume() throws {
        guard let open = openSession else { throw TrackerError.idle }
        guard !open.isRunning else { return }
        try change {
            let time = max(now, open.segments.last?.end ?? open.start)
            try store.openSegment(of: open.id, at: time)
            try focusSessionResumed(at: time)
            openSession = try store.openSession(id: open.id)
            describeStepWhenWritten { "Resumed \(self.name(open)) at \(self.clockText(time))" }
        }
    }

    /// One key for everything: pauses, resumes, or starts the last project. Returns the new state.
    public func toggle() throws -> TimerState {
        if let open = openSession {
            if open.isRunning { try pause() } else { try resume() }
        } else {
            guard let project = try lastProject() else {
                throw TrackerError.noSuchProject("There is no project to start yet: create one with CreateProject (timectl projects add NAME) and start it once.")
            }
            try startProject("#\(project.id)")
        }
        return openSession?.state ?? .idle
    }

    /// Running or paused → idle; the session is completed.
    @discardableResult
    public func stop() throws -> SessionID {
        guard let open = openSession else { throw TrackerError.idle }
        try change {
            let stopped = try complete(open, at: now)
            try focusSessionStopped()
            describeStepWhenWritten { self.stoppedSentence(for: stopped) }
        }
        return open.id
    }

    /// Ends the open session at `time`; returns it as completed.
    @discardableResult
    func complete(_ open: WorkSession, at time: Int64) throws -> WorkSession {
        var done = open
        if let last = done.segments.indices.last, done.segments[last].end == nil {
            done.segments[last].end = max(time, done.segments[last].start)
            // Only the running segment ends: its row is updated, as a Pause does, rather than
            // every segment of the session deleted and written again under new ids.
            try store.closeRunningSegment(of: open.id, at: done.segments[last].end!)
        }
        done.end = max(time, done.segments.last?.end ?? done.start, done.start)
        try store.endOpenSession(done, previous: open)
        try endAwaySpan(at: done.end!)
        openSession = nil
        return done
    }

    // MARK: Projects and categories

    public func projects() -> [Project] { projectsByID.values.sorted { $0.id < $1.id } }
    public func categories() -> [Category] { categoriesByID.values.sorted { ($0.name.lowercased(), $0.name) < ($1.name.lowercased(), $1.name) } }
    public func project(id: ProjectID) -> Project? { projectsByID[id] }
    public func categoryName(of project: Project) -> String { project.categoryID.flatMap { categoriesByID[$0]?.name } ?? "" }

    /// A project by name (trimmed, case-insensitive, Unicode-aware) or by `#id`.
    public func resolveProject(_ reference: String) throws -> Project {
        let trimmed = reference.trimmingWhitespace()
        if trimmed.hasPrefix("#"), let id = Int64(trimmed.dropFirst()), let project = projectsByID[id] { return project }
        let key = TextInput.nameKey(trimmed)
        if let project = projectsByID.values.first(where: { TextInput.nameKey($0.name) == key }) { return project }
        let shown = trimmed.count > 60 ? String(trimmed.prefix(60)) + "…" : trimmed
        throw TrackerError.noSuchProject("There is no project named \"\(shown)\"; list them with ListProjects (timectl projects) or create it with CreateProject.")
    }

    public func project(withID id: ProjectID) throws -> Project {
        guard let project = projectsByID[id] else {
            throw TrackerError.noSuchProject("There is no project with id \(id); list them with ListProjects (timectl projects).")
        }
        return project
    }

    private func category(named raw: String) throws -> Category? {
        let name = raw.trimmingWhitespace()
        if name.isEmpty { return nil }
        let key = TextInput.nameKey(name)
        guard let category = categoriesByID.values.first(where: { TextInput.nameKey($0.name) == key }) else {
            throw TrackerError.noSuchCategory("There is no category named \"\(name.prefix(60))\"; add it first with AddCategory (timectl categories add NAME).")
        }
        return category
    }

    private func checkProjectNameFree(_ name: String, except id: ProjectID? = nil) throws {
        let key = TextInput.nameKey(name)
        if let other = projectsByID.values.first(where: { TextInput.nameKey($0.name) == key && $0.id != id }) {
            throw TrackerError.alreadyExists("A project named \"\(other.name)\" already exists (names are compared ignoring case).")
        }
    }

    @discardableResult
    public func createProject(name raw: String, color rawColor: String, category: String) throws -> ProjectID {
        let name = try TextInput.normalizedName(raw, kind: "project")
        try checkProjectNameFree(name)
        let categoryID = try self.category(named: category)?.id
        let color = rawColor.trimmingWhitespace().isEmpty ? paletteColor() : try TextInput.color(rawColor)
        return try change {
            var project = Project(id: 0, name: name, color: color, categoryID: categoryID, archived: false)
            project.id = try store.insertProject(project)
            projectsByID[project.id] = project
            return project.id
        }
    }

    /// The first palette color no active project uses, else the palette in turn.
    private func paletteColor() -> String {
        let used = Set(projectsByID.values.filter { !$0.archived }.map(\.color))
        return TextInput.palette.first { !used.contains($0) } ?? TextInput.palette[projectsByID.count % TextInput.palette.count]
    }

    public func updateProject(id: ProjectID, changes: ProjectChanges) throws {
        var project = try project(withID: id)
        let original = project
        if let name = changes.name {
            project.name = try TextInput.normalizedName(name, kind: "project")
            try checkProjectNameFree(project.name, except: id)
        }
        if let color = changes.color { project.color = try TextInput.color(color) }
        if let category = changes.category { project.categoryID = try self.category(named: category)?.id }
        if let archived = changes.archived { project.archived = archived }
        if let rate = changes.rate { project.rateCents = try Money.rateCents(rate) }
        if let target = changes.weeklyTarget { project.weeklyTarget = try PlanSettings.checkedTarget(target, of: project.name) }
        guard project != original else { return }
        var plan = original
        (plan.rateCents, plan.weeklyTarget) = (project.rateCents, project.weeklyTarget)
        try change {
            if project != plan { try store.updateProject(project) }
            if plan != original { try store.updateProjectPlan(project) }
            projectsByID[id] = project
        }
    }

    public func addCategory(_ raw: String) throws {
        let name = try TextInput.normalizedName(raw, kind: "category")
        let key = TextInput.nameKey(name)
        if let other = categoriesByID.values.first(where: { TextInput.nameKey($0.name) == key }) {
            throw TrackerError.alreadyExists("A category named \"\(other.name)\" already exists (names are compared ignoring case).")
        }
        try change {
            let id = try store.insertCategory(name: name)
            categoriesByID[id] = try store.category(id: id) ?? Category(id: id, name: name)
        }
    }

    /// Deletes a category; its projects become uncategorized and no session is touched.
    public func deleteCategory(_ raw: String) throws {
        guard let category = try self.category(named: raw) else {
            throw TrackerError.noSuchCategory("Give the name of the category to delete; list them with ListCategories (timectl categories).")
        }
        try change {
            try store.deleteCategory(id: category.id)
            categoriesByID[category.id] = nil
            for (id, project) in projectsByID where project.categoryID == category.id {
                projectsByID[id]?.categoryID = nil
            }
        }
    }

    // MARK: Settings

    public var reminderMinutes: UInt32 { reminderMinutesValue }

    public func setReminderMinutes(_ minutes: UInt32) throws {
        guard minutes <= Tracker.maximumReminderMinutes else {
            throw TrackerError.invalidArgument("ReminderMinutes must be between 0 (off) and \(Tracker.maximumReminderMinutes) (a week); got \(minutes).")
        }
        guard minutes != reminderMinutesValue else { return }
        try change {
            try store.setMeta("reminder_minutes", String(minutes))
            reminderMinutesValue = minutes
        }
    }
}
