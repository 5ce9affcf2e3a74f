import PathTrace
import CGLib
import DBusKit
import Glibc
import Notifier
import TimeCore

/// The service: the contract on one side, TimeCore on the other, notifications after every reply.
/// Everything runs on the one GLib main loop thread.
public final class AgentService {
    let tracker: Tracker
    let storage: StorageStatus
    var published: TimerProperties
    var connection: BusConnection?
    var notifier: Notifier?
    /// Away detection's state (AgentService+Away).
    var away = AwayAgentState()
    let minuteLength: Int64
    var reminderSource: UInt32 = 0
    var reminderActiveSeconds: Int64 = 0
    var shownTimer: TimerNotification?
    var reminderShown = false
    /// The tray icon, when shown (`--no-tray` leaves it nil); refreshed after every change.
    var tray: AgentTray?
    /// The history step of the Stop whose notification offers Undo (AgentService+Undo).
    var stopNoticeStep: Int64?
    /// The session of a Stop whose Undo notification is still to be shown, after the answer.
    var stopNoticeDue: SessionID?
    let sync = AgentSync()
    /// Time's window, opened by the tray's Open Time and the timer notification (`openWindow`).
    let window = WindowLauncher()
    /// The timer for the next weekly target (AgentService+Targets) and the not-tracking reminder (+Untracked).
    var targets = TargetWatch()
    var untracked = UntrackedWatch()
    /// The focus timer's one timer for the end of the running phase (AgentService+Focus).
    var focus = FocusWatch()
    /// Where the data is (`DataFolder`), set by main once the data home is open.
    var dataFolder = ""

    public init(tracker: Tracker, storage: StorageStatus, notifications: Bool, minuteLength: Int64 = 60) {
        self.tracker = tracker
        self.storage = storage
        self.minuteLength = minuteLength
        tracker.focusMinuteSeconds = minuteLength
        published = TimerProperties()
        if notifications {
            notifier = Notifier(appName: "Time", desktopEntry: Contract.desktopEntry, appIcon: AppIcons.application,
                                mainContext: nil) { [weak self] action in
                self?.perform(action)
            }
        }
        published = currentProperties(try? tracker.status())
        // The agent answers first and tidies up after (refreshAfterChange): the kept copy of a
        // state waits until then, its slot being the durable record (SnapshotKeeper).
        (tracker.recorder as? SnapshotKeeper)?.writeAfterAnswer = true
    }

    /// Exports the object; call before requesting the bus name.
    public func export(on connection: BusConnection) throws {
        self.connection = connection
        try connection.export(object: ExportedObject(path: Contract.objectPath, interfaces: [interface]))
        window.attach(to: connection)
        resumeSync()
        refreshAfterChange()
    }

    public func shutdown() {
        if reminderSource != 0 { g_source_remove(reminderSource); reminderSource = 0 }
        for source in [targets.source, untracked.source, focus.source, focus.midnightSource] where source != 0 { g_source_remove(source) }
        (targets.source, untracked.source, focus.source, focus.midnightSource) = (0, 0, 0, 0)
        stopAwayDetection()
        stopSync()
        window.detach()
        // The data first: a notification server that hangs must not hold up saving it.
        tracker.tidyUp()
        do {
            try tracker.store.checkpoint()
        } catch {
            // Nothing is lost (the WAL is part of the store); the next start folds it in.
            Log.warning("could not fold the write-ahead log into the store at shutdown: \(error)")
        }
        if let notifier, !notifier.shutdown(waitingAtMost: 2) {
            Log.warning("the notification server did not answer; left it behind")
        }
        notifier = nil
    }

    // MARK: State after a change

    private func currentProperties(_ status: TimerStatus?) -> TimerProperties {
        guard let status else { return TimerProperties() }
        // A change that could be neither confirmed on the disk nor taken back locks editing.
        var storage = self.storage
        if let reason = tracker.readOnlyReason, storage.state != .readOnly { storage = StorageStatus(state: .readOnly, message: reason) }
        var properties = TimerProperties(status: status, storage: storage, reminderMinutes: tracker.reminderMinutes)
        properties.setAway(from: tracker)
        properties.setPlans(from: tracker)
        properties.setFocus(from: tracker)
        properties.canUndo = (try? tracker.canUndo()) ?? ""
        properties.dataRevision = tracker.committedChanges
        return properties
    }

    /// After a reply: one `PropertiesChanged` with everything that changed, then the reminder
    /// timer and the notification. Cheap when nothing changed.
    func refreshAfterChange() {
        // A tray menu item or a notification action changes data too: publish it (a no-op when
        // the D-Bus method already did, before its reply).
        syncAfterLocalChange()
        PathTrace.mark("after: sync publish")
        tracker.tidyUp()
        PathTrace.mark("after: tidy up (old snapshots, next files)")
        // One status for everything that follows a change (each computation queries the store).
        let status = try? tracker.status()
        let now = currentProperties(status)
        let changed = now.changes(since: published)
        published = now
        PathTrace.mark("after: properties computed")
        if !changed.isEmpty, let connection {
            do {
                try connection.emitPropertiesChanged(path: Contract.objectPath, interface: Contract.interface, changed: changed)
            } catch {
                Log.warning("could not announce a property change: \(error)")
            }
        }
        PathTrace.mark("after: PropertiesChanged")
        scheduleReminder()
        PathTrace.mark("after: reminder timer")
        showStopNotice()
        updateTimerNotification(status)
        PathTrace.mark("after: timer notification")
        updateAway()
        updateTargets(status)
        updateUntracked(status)
        updateFocusTimer()
        PathTrace.mark("after: away, targets, untracked, focus")
        tray?.refresh(status)
        PathTrace.mark("after: tray")
    }

    // MARK: The interface table

    /// A method whose effect may change the timer: properties and notification follow the reply.
    func changing(_ name: String, _ inArgs: [Argument], _ outArgs: [Argument], _ doc: String,
                          _ body: @escaping (Arguments) throws -> [DBusValue]) -> Method {
        Method(name: name, inArgs: inArgs, outArgs: outArgs, doc: doc) { [unowned self] call in
            // Read-only storage refuses every change first, whatever else is wrong with the request:
            // "no project named X" would send a person hunting for data that is only locked.
            if let reason = self.tracker.readOnlyReason { throw TrackerError.readOnly(reason).busError }
            call.afterReply = { [weak self] in self?.refreshAfterChange() }
            PathTrace.mark("dispatch: to the method")
            let result = try contractCall { try body(Arguments(values: call.arguments)) }
            PathTrace.mark("change: after the gate")
            self.syncAfterLocalChange()
            PathTrace.mark("sync: publish")
            return result
        }
    }

    func reading(_ name: String, _ inArgs: [Argument], _ outArgs: [Argument], _ doc: String,
                         _ body: @escaping (Arguments) throws -> [DBusValue]) -> Method {
        Method(name: name, inArgs: inArgs, outArgs: outArgs, doc: doc) { call in
            try contractCall { try body(Arguments(values: call.arguments)) }
        }
    }

    /// A property served from the published values, so Get always agrees with the last PropertiesChanged.
    func property(_ name: String, _ signature: String, _ doc: String) -> Property {
        precondition(TimerProperties().values[name]?.signature == signature, "\(name) is not a published property of type \(signature)")
        return Property(name: name, signature: signature, doc: doc) { [unowned self] in self.published.values[name]! }
    }

    private func session(_ arguments: Arguments, _ index: Int) throws -> Int64 {
        guard let id = arguments.id(index) else {
            throw TrackerError.noSuchSession("There is no session with id \(arguments.values[index].uint64Value ?? 0); list them with ListSessions (timectl sessions).")
        }
        return id
    }

    private func project(_ arguments: Arguments, _ index: Int) throws -> Int64 {
        guard let id = arguments.id(index) else {
            throw TrackerError.noSuchProject("There is no project with id \(arguments.values[index].uint64Value ?? 0); list them with ListProjects (timectl projects).")
        }
        return id
    }

    var interface: Interface {
        Interface(name: Contract.interface, methods: [
            changing("StartProject", [Argument("project", "s")], [Argument("session", "t")],
                     "Starts tracking a project (by name, or #id). Same project: resumes it if paused. Another project: completes the open session first.") { args in
                [.uint64(UInt64(try self.tracker.startProject(args.string(0))))]
            },
            changing("Pause", [], [], "Pauses the running session; nothing happens when already paused.") { _ in
                try self.tracker.pause(); return []
            },
            changing("Resume", [], [], "Resumes the paused session; nothing happens when already running.") { _ in
                try self.tracker.resume(); return []
            },
            changing("Toggle", [], [Argument("state", "s")],
                     "Running → paused, paused → running, idle → starts the most recently used project. Returns the new state.") { _ in
                [.string(try self.tracker.toggle().rawValue)]
            },
            changing("Stop", [], [Argument("session", "t")], "Completes the open session.") { _ in
                [.uint64(UInt64(try self.stopTimer()))]
            },
            changing("AddNote", [Argument("text", "s")], [], "Appends a line to the open session's note.") { args in
                try self.tracker.addNote(args.string(0)); return []
            },
            changing("SetNote", [Argument("session", "t"), Argument("note", "s")], [],
                     "Replaces the note of any session; an empty note clears it.") { args in
                try self.tracker.setNote(session: try self.session(args, 0), note: args.string(1)); return []
            },
            reading("GetStatus", [], [Argument("status", "a{sv}")],
                    "The live status computed now: state, project, project_id, color, category, session, elapsed, today, week, week_target, note.") { _ in
                [try self.statusDictionary()]
            },
            reading("WeeklyReport", [Argument("week", "s"), Argument("format", "s")], [Argument("report", "s")],
                    "The report of a week (\"\", 2026-W48 or 2026-11-25) as text, json or svg.") { args in
                [.string(try self.tracker.weeklyReport(week: args.string(0), format: args.string(1)))]
            },
            Method(name: "ShowWeeklyReport", inArgs: [Argument("week", "s")],
                   doc: "Shows a week's totals as a desktop notification, with its chart where the server shows images.") { [unowned self] call in
                let report = try contractCall { try self.tracker.weeklyReport(week: Arguments(values: call.arguments).string(0)) }
                // The reply first: drawing the chart and notifying follow it.
                call.afterReply = { [weak self] in self?.show(report) }
                return []
            },
            reading("WeeklyReportPNG", [Argument("week", "s")], [Argument("png", "ay")],
                    "The chart of a week (as WeeklyReport's svg format) rasterised to PNG bytes.") { args in
                [.array(elementSignature: "y", try WeekPicture.png(try self.tracker.weeklyReport(week: args.string(0))).map { .byte($0) })]
            },
            reading("ListProjects", [], [Argument("projects", "aa{sv}")], "Every project: id, name, color, category, archived, rate, weekly_target.") { _ in
                [.array(elementSignature: "a{sv}", self.tracker.projects().map(self.projectDictionary))]
            },
            changing("CreateProject", [Argument("name", "s"), Argument("color", "s"), Argument("category", "s")], [Argument("id", "t")],
                     "Creates a project; an empty color picks one from the palette, an empty category means none.") { args in
                [.uint64(UInt64(try self.tracker.createProject(name: args.string(0), color: args.string(1), category: args.string(2))))]
            },
            changing("UpdateProject", [Argument("id", "t"), Argument("changes", "a{sv}")], [],
                     "Changes a project: keys name (s), color (s), category (s), archived (b), rate (s, a decimal; \"\" for none), weekly_target (t, seconds; 0 for none).") { args in
                let changes = try ChangeSet(args.dictionary(1), allowed: ["name": "s", "color": "s", "category": "s", "archived": "b",
                                                                          "rate": "s", "weekly_target": "t"],
                                            what: "UpdateProject")
                try self.tracker.updateProject(id: try self.project(args, 0), changes: ProjectChanges(
                    name: changes.string("name"), color: changes.string("color"),
                    category: changes.string("category"), archived: changes.bool("archived"),
                    rate: changes.string("rate"), weeklyTarget: try Self.weeklyTarget(changes.uint64("weekly_target"))))
                return []
            },
            reading("ListCategories", [], [Argument("categories", "as")], "Category names, sorted.") { _ in
                [.stringArray(self.tracker.categories().map(\.name))]
            },
            changing("AddCategory", [Argument("name", "s")], [], "Adds a category.") { args in
                try self.tracker.addCategory(args.string(0)); return []
            },
            changing("DeleteCategory", [Argument("name", "s")], [],
                     "Deletes a category; its projects become uncategorized and no session is touched.") { args in
                try self.tracker.deleteCategory(args.string(0)); return []
            },
            reading("ListSessions", [Argument("project", "t"), Argument("from", "x"), Argument("to", "x")], [Argument("sessions", "aa{sv}")],
                    "Sessions overlapping [from, to); project 0 means all.") { args in
                let sessions = try self.tracker.sessions(project: try self.project(args, 0), from: args.int64(1), to: args.int64(2))
                return [.array(elementSignature: "a{sv}", try self.sessionRecords(sessions) + self.openSessionsElsewhere(project: args.id(0) ?? 0))]
            },
            changing("AddSession", [Argument("project", "t"), Argument("start", "x"), Argument("duration", "s"), Argument("note", "s")],
                     [Argument("id", "t")], "Adds a completed past session with a typed duration such as 1h30m, 1:30 or 90m.") { args in
                [.uint64(UInt64(try self.tracker.addSession(project: try self.project(args, 0), start: args.int64(1),
                                                             duration: args.string(2), note: args.string(3))))]
            },
            changing("EditSession", [Argument("id", "t"), Argument("changes", "a{sv}")], [],
                     "Edits a session: keys project (t), start (x), duration (s; not of the open session: StopAt), note (s); adjust (b): the open session's earlier start shortens the sessions it would overlap.") { args in
                let changes = try ChangeSet(args.dictionary(1), allowed: ["project": "t", "start": "x", "duration": "s", "note": "s", "adjust": "b"],
                                            what: "EditSession")
                var projectID: Int64?
                if let raw = changes.uint64("project") {
                    guard raw <= UInt64(Int64.max) else {
                        throw TrackerError.noSuchProject("There is no project with id \(raw); list them with ListProjects (timectl projects).")
                    }
                    projectID = Int64(raw)
                }
                try self.tracker.editSession(id: try self.session(args, 0), changes: SessionChanges(
                    projectID: projectID, start: changes.int64("start"), duration: changes.string("duration"), note: changes.string("note"),
                    adjust: changes.bool("adjust") ?? false))
                return []
            },
            changing("DeleteSession", [Argument("id", "t")], [], "Deletes a completed session; stop an open one first.") { args in
                try self.tracker.deleteSession(id: try self.session(args, 0)); return []
            },
        ] + correctionMethods + awayMethods + exchangeMethods + undoMethods + syncMethods + reportMethods + focusMethods, properties: [
            property("State", "s", "idle, running or paused."),
            property("Project", "s", "The open session's project; empty when idle."),
            property("ProjectColor", "s", "#rrggbb of the open session's project; empty when idle."),
            property("Category", "s", "The open session's category; empty when idle or uncategorized."),
            property("SessionId", "t", "The open session; 0 when idle."),
            property("SessionStart", "x", "When the open session began (Unix seconds); 0 when idle."),
            property("RunningSince", "x", "When the current running stretch began; 0 unless running."),
            property("ActiveSeconds", "t", "Active seconds before RunningSince (when paused: all of them). A panel shows ActiveSeconds + (now - RunningSince)."),
            property("Note", "s", "The open session's note."),
            property("LastProject", "s", "What Toggle starts from idle."),
            property("StorageState", "s", "ok, restored, or read-only."),
            property("StorageMessage", "s", "What happened to the store and what to do; empty when ok."),
            property("CanUndo", "s", "What Undo would undo; empty when nothing is left to undo."),
            property("DataRevision", "t", "Changes with every acknowledged change of the data, made anywhere (a client, the tray, another device's merge); starts again at each agent start. Windows re-read when it changes."),
            Property(name: "Version", signature: "s", emitsChange: .const, doc: "The agent's version.") { .string(Contract.version) },
            Property(name: "ReminderMinutes", signature: "u", access: .readWrite,
                     doc: "Minutes of active time between reminders; 0 turns them off.", setterAnnounces: true) { [unowned self] in
                .uint32(self.tracker.reminderMinutes)
            } set: { [unowned self] value in
                try contractCall { try self.tracker.setReminderMinutes(value.uint32Value ?? 0) }
                // A change like any other: one PropertiesChanged with ReminderMinutes and CanUndo
                // (the new step), then the reminder and the tray.
                self.refreshAfterChange()
            },
        ] + awayProperties + syncProperties + planProperties + focusProperties + dataProperties)
    }
}
