import CGLib
import DBusKit
import Glibc
import TimeCore
import Tray

/// Feeds the tray icon from the tracker: icon, tooltip, label and menu after every change, and
/// the one tick we allow (the label's minute) only while a session runs and a host shows it.
/// Every menu entry calls the same function as the D-Bus method or notification action it mirrors.
final class AgentTray {
    /// Menu sections other features fill in (each gives its entries for the current state, or
    /// none), shown after "Show this week" in this order. Their ids are 5000–99,999 (Undo from
    /// 5000, away spans from 6000); an id already taken is left out. After their state changes they call `refreshAfterChange()`.
    struct Sections {
        /// `Undo: …` (and `Redo: …`) when there is something to undo.
        var undo: (() -> [TrayMenuItem])?
        /// Each pending away span with its three choices (e.g. a submenu per span).
        var away: (() -> [TrayMenuItem])?
        /// The focus timer's submenu (AgentTray+Focus).
        var focus: (() -> [TrayMenuItem])?
    }
    var sections = Sections()

    unowned let service: AgentService
    private let item: TrayItem
    private let minuteLength: Int64
    private var tickSource: UInt32 = 0
    private var status: TimerStatus?
    /// The item shows an older state than `status` (changes while no host was registered).
    private var stale = true

    init(service: AgentService, minuteLength: Int64 = 60, readDeadlineSeconds: UInt32? = nil) {
        self.service = service
        self.minuteLength = minuteLength
        item = TrayItem(id: "time-tracker", appearance: TrayAppearance(title: "Time", iconName: AppIcons.idle), menu: [],
                        iconThemePath: AppIcons.themePathOfThisAgent())
        item.onActivate = { [unowned self] activation in
            switch activation {
            case .primary: self.service.desktopCommand("toggle") { _ = try self.service.tracker.toggle() }
            case .secondary: self.service.showWeeklyReportLogged(week: "")
            }
        }
        item.onHostChange = { [unowned self] present in
            Log.debug(present ? "a tray host is on the bus; the item is registered" : "no tray host on the bus")
            self.refresh(try? self.service.tracker.status())
        }
        item.beforeRead = { [unowned self] in if self.stale { self.draw() } }
        if let readDeadlineSeconds { item.readDeadlineSeconds = readDeadlineSeconds }
        item.onUnreadRegistration = { attempt in
            Log.debug("no tray host read the item after it registered, or the watcher dropped it; registering again (attempt \(attempt))")
        }
        // An application installed or started since the menu was drawn: Open Time follows.
        item.onMenuAboutToShow = { [unowned self] in
            self.service.window.recheck()
            if self.stale { self.draw() }
        }
        service.window.onAvailabilityChange = { [unowned self] in self.refresh(try? self.service.tracker.status()) }
        fillSections()
    }

    func attach(to connection: BusConnection) throws {
        try item.attach(to: connection)
        if !item.iconThemePath.isEmpty { Log.debug("tray icons from \(item.iconThemePath)") }
    }

    func detach() {
        cancelTick()
        item.detach()
    }

    /// After every change (and on each tick): the whole picture, of which only what differs is sent.
    func refresh(_ status: TimerStatus?) {
        self.status = status
        // With no host nobody sees the item: it is drawn when one appears (onHostChange) or when
        // something reads it (beforeRead), so a change costs nothing here on a desktop without a tray.
        guard item.hostPresent else { stale = true; cancelTick(); return }
        draw()
    }

    private func draw() {
        stale = false
        let now = service.tracker.clock.now()
        let totals = try? service.tracker.todayAndWeekSeconds()
        var look = TrayLook(status: status, now: now, today: totals?.today ?? 0, week: service.weekProgress(week: totals?.week ?? 0))
        look.showFocus(service.tracker.focusState, now: now, minute: minuteLength)
        item.update(appearance: look.appearance)
        item.update(menu: menu(look))
        scheduleTick()
    }

    // MARK: The minute tick

    private func cancelTick() {
        if tickSource != 0 { g_source_remove(tickSource); tickSource = 0 }
    }

    /// Set for the moment the running time reaches its next full minute; none while idle or
    /// paused, or with no host to show it.
    private func scheduleTick() {
        cancelTick()
        guard item.hostPresent else { return }
        let now = service.tracker.clock.now()
        // A focus phase counting down drives the label (its minutes left); else the running time.
        var wait = TrayLook.focusTickWait(service.tracker.focusState, now: now, minute: minuteLength)
        if wait == nil, let session = status?.session, session.isRunning { wait = minuteLength - session.activeSeconds(at: now) % minuteLength }
        guard let wait else { return }
        tickSource = g_timeout_add_seconds_full(G_PRIORITY_DEFAULT, UInt32(clamping: max(1, wait)), trayTickFired,
                                                Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    fileprivate func tick() {
        tickSource = 0
        refresh(try? service.tracker.status())
    }

    // MARK: The menu

    private enum ID {
        static let title: Int32 = 1, pause: Int32 = 2, resume: Int32 = 3, stop: Int32 = 4, continueLast: Int32 = 5
        static let start: Int32 = 10, week: Int32 = 6, openWindow: Int32 = 11, reminders: Int32 = 20
        static let separatorTop: Int32 = 7, separatorBottom: Int32 = 8, separatorExtra: Int32 = 9
        static let firstReminder: Int32 = 21
        /// Project entries: this plus the project's id.
        static let firstProject: Int32 = 100_000
    }

    static let reminderChoices: [UInt32] = [0, 30, 60, 90, 120]

    /// The contract's order: the title line, Pause or Resume (idle: Continue the last project),
    /// Stop, Start, Show this week, Open Time, Undo and pending away spans, Reminders.
    private func menu(_ look: TrayLook) -> [TrayMenuItem] {
        let tracker = service.tracker
        var items = [TrayMenuItem(id: ID.title, label: look.title, enabled: false), .separator(id: ID.separatorTop)]
        switch status?.state {
        case .running?:
            items.append(TrayMenuItem(id: ID.pause, label: "Pause") { [unowned self] in self.service.perform(.pause) })
        case .paused?:
            items.append(TrayMenuItem(id: ID.resume, label: "Resume") { [unowned self] in self.service.perform(.resume) })
        default:
            if let last = status?.lastProjectName, !last.isEmpty {
                items.append(TrayMenuItem(id: ID.continueLast, label: "Continue \(last)") { [unowned self] in
                    self.service.desktopCommand("continue") { try self.service.continueLastProject() }
                })
            }
        }
        items.append(TrayMenuItem(id: ID.stop, label: "Stop", enabled: status?.session != nil) { [unowned self] in
            self.service.perform(.stop)
        })
        let openProject = status?.project?.id
        // Ids past Int32 cannot be menu entries (none exists in practice).
        let projects = recentProjects(open: status?.project).filter { $0.id <= Int64(Int32.max - ID.firstProject) }.prefix(20).map { project in
            TrayMenuItem(id: ID.firstProject + Int32(project.id), label: project.name,
                         toggle: .radio(project.id == openProject)) { [unowned self] in
                self.service.desktopCommand("start") { _ = try self.service.tracker.startProject("#\(project.id)") }
            }
        }
        if !projects.isEmpty { items.append(TrayMenuItem(id: ID.start, label: "Start", children: projects)) }
        items.append(TrayMenuItem(id: ID.week, label: "Show this week") { [unowned self] in
            self.service.showWeeklyReportLogged(week: "")
        })
        // Hidden, not removed, while no window is installed: it comes back with the same id.
        items.append(TrayMenuItem(id: ID.openWindow, label: "Open Time", visible: service.window.isAvailable) { [unowned self] in
            self.service.openWindow()
        })
        let extra = (sections.focus?() ?? []) + (sections.undo?() ?? []) + (sections.away?() ?? [])
        if !extra.isEmpty { items.append(.separator(id: ID.separatorExtra)); items += extra }
        items.append(.separator(id: ID.separatorBottom))
        let current = tracker.reminderMinutes
        let reminders = Self.reminderChoices.enumerated().map { index, minutes in
            TrayMenuItem(id: ID.firstReminder + Int32(index), label: minutes == 0 ? "Off" : "Every \(minutes) min",
                         toggle: .radio(minutes == current)) { [unowned self] in
                self.service.desktopCommand("reminders") { try self.service.tracker.setReminderMinutes(minutes) }
            }
        }
        items.append(TrayMenuItem(id: ID.reminders, label: "Reminders", children: reminders + untrackedReminderEntries()))
        return items
    }

    /// The Start submenu opened for the person (the not-tracking reminder's `Start…` without a window).
    func openStartMenu() { item.requestMenuOpening(at: ID.start) }

    /// The Start submenu's projects: the open one first, then those used in the last 30 days by
    /// their newest session, then the other active ones by name.
    private func recentProjects(open: Project?) -> [Project] {
        let tracker = service.tracker
        let now = tracker.clock.now()
        let sessions = (try? tracker.sessions(project: 0, from: now - 30 * 86_400, to: now + 1)) ?? []
        return TrayLook.recentFirst(open: open, sessions: sessions, projects: tracker.projects())
    }
}

private func trayTickFired(_ data: UnsafeMutableRawPointer?) -> gboolean {
    Unmanaged<AgentTray>.fromOpaque(data!).takeUnretainedValue().tick()
    return 0 // G_SOURCE_REMOVE: tick() sets the next one
}

/// What the icon and the menu show for one state: pure, so it is tested alone.
struct TrayLook {
    var title: String
    var appearance: TrayAppearance

    /// The menu's first line: "Writing · Work — 0:42 (today 3:10)", "… · paused", or
    /// "Not tracking (today 3:10)"; `week` is the week against its target (`week 31:20 of
    /// 40:00`), "" without one. Its one definition.
    static func titleLine(status: TimerStatus?, now: Int64, today: Int64, week: String = "") -> String {
        let todayText = "today \(hoursMinutes(today))" + (week.isEmpty ? "" : ", \(week)")
        guard let status, let session = status.session, let project = status.project else {
            return "Not tracking (\(todayText))"
        }
        let name = status.categoryName.isEmpty ? project.name : "\(project.name) · \(status.categoryName)"
        let elapsed = hoursMinutes(session.activeSeconds(at: now))
        return "\(name) — \(elapsed) (\(todayText))\(session.isRunning ? "" : " · paused")"
    }

    /// The Start submenu's order: `open` first, then the projects of `sessions` by their newest
    /// session (latest start first), then the other active projects by name. Archived projects
    /// only when open.
    static func recentFirst(open: Project?, sessions: [WorkSession], projects: [Project]) -> [Project] {
        var result: [Project] = open.map { [$0] } ?? []
        var seen = Set(result.map(\.id))
        let byID = Dictionary(projects.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for session in sessions.sorted(by: { ($0.start, $0.id) > ($1.start, $1.id) }) where !seen.contains(session.projectID) {
            seen.insert(session.projectID)
            if let project = byID[session.projectID], !project.archived { result.append(project) }
        }
        let others = projects.filter { !$0.archived && !seen.contains($0.id) }
            .sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
        return result + others
    }

    init(status: TimerStatus?, now: Int64, today: Int64, week: String = "") {
        title = Self.titleLine(status: status, now: now, today: today, week: week)
        guard let status, let session = status.session, let project = status.project else {
            appearance = TrayAppearance(
                title: "Time", iconName: AppIcons.idle,
                iconPixmaps: [16, 22, 32].map { TrayPixmap.badge(size: $0, color: "#888888", glyph: .none, filled: false) },
                tooltipTitle: "Time", tooltipMarkup: TrayAppearance.markupEscaped("Not tracking. Today: \(TrayLook.hoursMinutes(today))"),
                iconDescription: "Time: not tracking")
            return
        }
        let running = session.isRunning
        let elapsed = TrayLook.hoursMinutes(session.activeSeconds(at: now))
        let since = running ? status.runningSince : (session.segments.last?.end ?? session.start)
        let sinceText = (running ? "since " : "paused since ") + LocalTime.clock(since)
        var lines = ["<b>\(TrayAppearance.markupEscaped(project.name))</b>"]
        if !status.categoryName.isEmpty { lines.append(TrayAppearance.markupEscaped(status.categoryName)) }
        lines.append("\(elapsed), \(sinceText)")
        lines.append("Today: \(TrayLook.hoursMinutes(today))")
        appearance = TrayAppearance(
            title: "Time: \(project.name)", iconName: running ? AppIcons.running : AppIcons.paused,
            iconPixmaps: [16, 22, 32].map { TrayPixmap.badge(size: $0, color: project.color, glyph: running ? .play : .pause) },
            tooltipTitle: "\(project.name)\(running ? "" : " (paused)")", tooltipMarkup: lines.joined(separator: "\n"),
            // ▶ and ▮ come from one Unicode block that the fallback fonts cover (DejaVu has it;
            // it lacks ⏸, which GNOME then drew as an empty box).
            label: "\(running ? "▶" : "▮▮") \(elapsed)", labelGuide: "▮▮ 00:00",
            iconDescription: "Time: \(project.name), \(running ? "running" : "paused")")
    }

    /// "0:42", "3:10".
    static func hoursMinutes(_ seconds: Int64) -> String {
        let minutes = max(0, seconds) / 60
        let rest = minutes % 60
        return "\(minutes / 60):\(rest < 10 ? "0" : "")\(rest)"
    }
}
