import CGtk
import DBusCore
import GtkKit
import TimeClient

/// The window: a header bar with the view switcher, Undo and Redo naming what they would do and
/// the main menu; a banner for the agent's absence and for a restored or read-only store; the
/// Now, Projects, Day and Week views. Every view follows the agent: no polling.
final class MainWindow {
    let window: Widget
    private let context: WindowContext
    private let signals = SignalBag()
    private let banner = Make.label("", wrap: true)
    private let bannerBox: Widget
    private let undo = Make.button("Undo")
    private let redo = Make.button("Redo")
    private let menu = MainWindow.menuButton()
    private let now: NowView
    private let projects: ProjectsView
    private let day: DayView
    private let week: WeekView
    private var history = HistoryModel(canUndo: "", history: [])
    private var preferences: PreferencesWindow?
    private var historyWindow: HistoryWindow?
    private var stack: Widget?
    /// The Week view reads its report and chart when it is shown, not at every start: the chart
    /// is the agent's librsvg picture, which costs the agent memory and the start time.
    private var weekStale = true
    /// Pending while the first showing waits for the agent's answers (`presentWhenLoaded`).
    private var firstShowing: MainLoopTimer?

    init(application: Application, context: WindowContext) {
        self.context = context
        window = Widget(adw_application_window_new(application.gtkApplication))
        let gtkWindow: UnsafeMutablePointer<GtkWindow> = window.typed()
        gtk_window_set_title(gtkWindow, "Time")
        gtk_window_set_default_size(gtkWindow, 760, 620)
        gtk_window_set_icon_name(gtkWindow, WindowApp.applicationID)
        context.window = gtkWindow
        now = NowView(context: context)
        projects = ProjectsView(context: context)
        day = DayView(context: context)
        week = WeekView(context: context)

        let stack = Widget(adw_view_stack_new())
        for (view, name, title, icon) in [(now.root, "now", "Now", "media-playback-start-symbolic"),
                                          (projects.root, "projects", "Projects", "view-list-symbolic"),
                                          (day.root, "day", "Day", "x-office-calendar-symbolic"),
                                          (week.root, "week", "Week", "view-grid-symbolic")] {
            let page = adw_view_stack_add_titled(stack.opaque, view.raw, name, title)
            adw_view_stack_page_set_icon_name(page, icon)
        }
        self.stack = stack
        // Only the page on screen is measured (a homogeneous stack lays out every page, the Day
        // view's rows and the project list too, before the first frame: about 10-15 ms of the start).
        adw_view_stack_set_hhomogeneous(stack.opaque, 0)
        adw_view_stack_set_vhomogeneous(stack.opaque, 0)
        let switcher = Widget(adw_view_switcher_title_new())
        adw_view_switcher_title_set_stack(switcher.opaque, stack.opaque)
        adw_view_switcher_title_set_title(switcher.opaque, "Time")
        let header = Widget(adw_header_bar_new())
        adw_header_bar_set_title_widget(header.opaque, switcher.raw)
        adw_header_bar_pack_start(header.opaque, undo.raw)
        adw_header_bar_pack_start(header.opaque, redo.raw)
        adw_header_bar_pack_end(header.opaque, menu.raw)
        let bottomSwitcher = Widget(adw_view_switcher_bar_new())
        adw_view_switcher_bar_set_stack(bottomSwitcher.opaque, stack.opaque)
        signals.notify(switcher.object, "title-visible") {
            adw_view_switcher_bar_set_reveal(bottomSwitcher.opaque, adw_view_switcher_title_get_title_visible(switcher.opaque))
        }

        bannerBox = Make.box(false, spacing: 12, [banner.expand(horizontally: true)]).style("card").margins(6)
        bannerBox.isVisible = false
        let toasts = Toasts(content: stack)
        context.toasts = toasts
        let content = Make.box(true, spacing: 0, [header, bannerBox, toasts.overlay.expand(vertically: true), bottomSwitcher])
        adw_application_window_set_content(window.typed(), content.raw)

        signals.notify(stack.object, "visible-child-name") { [weak self] in self?.reloadWeekIfShown() }
        signals.clicked(undo) { [weak self] in self?.perform("Undo") }
        signals.clicked(redo) { [weak self] in self?.perform("Redo") }
        application.addAction("undo", shortcuts: ["<Control>z"]) { [weak self] in self?.perform("Undo") }
        application.addAction("redo", shortcuts: ["<Control><Shift>z", "<Control>y"]) { [weak self] in self?.perform("Redo") }
        application.addAction("shortcuts", shortcuts: ["<Control>question"]) { [weak self] in self?.showShortcuts() }
        application.addAction("preferences", shortcuts: ["<Control>comma"]) { [weak self] in self?.showPreferences() }
        application.addAction("history", shortcuts: ["<Control>h"]) { [weak self] in self?.showHistory() }
        application.addAction("about") { [weak self] in self?.showAbout() }
        application.addAction("quit", shortcuts: ["<Control>q"]) { [weak self] in
            guard let self else { return }
            gtk_window_destroy(self.window.typed())
        }
        signals.notify(window.object, "is-active") { [weak self] in self?.now.followTicking() }
        signals.on(window.object, "map") { [weak self] in self?.now.followTicking() }
        signals.on(window.object, "unmap") { [weak self] in self?.now.followTicking() }
        context.link.onChange = { [weak self] keys in self?.agentChanged(keys) }
    }

    func present() {
        firstShowing = nil
        context.link.onSettled = nil
        gtk_window_present(window.typed())
    }

    /// Shows the window once the agent has answered what the views asked at the start, so that
    /// the first frame has today's data (not an empty window filled a moment later); at the
    /// latest after `firstShowLimit`, or at once when the agent cannot be reached (the window
    /// then says so and reconnects).
    func presentWhenLoaded() {
        context.link.onSettled = { [weak self] in
            guard let self, self.context.link.status == .connected else { return }
            self.present()
        }
        firstShowing = MainLoopTimer(milliseconds: MainWindow.firstShowLimit) { [weak self] in self?.present() }
    }

    /// How long a first start waits for the agent (one started by D-Bus activation takes longer).
    static let firstShowLimit: UInt32 = 300

    /// Something changed at the agent: the timer's properties move the Now view; any change of
    /// the data (`DataRevision`), or the agent coming back, makes every view read again.
    private func agentChanged(_ keys: Set<String>) {
        if context.link.status == .reconnecting, firstShowing != nil { present() }
        showBanner()
        preferences?.agentChanged(keys)
        historyWindow?.agentChanged(keys)
        if keys.isEmpty || keys.contains("DataRevision") || keys.contains("StorageState") || keys.count > 10 {
            reloadAll()
        } else {
            now.show()
            if keys.contains("CanUndo") { reloadHistory() }
            if keys.contains("State") || keys.contains("Project") { now.reload(); projects.show() }
        }
    }

    func reloadAll() {
        guard context.link.status == .connected else {
            now.show()
            projects.show()
            return undoRedo()
        }
        context.reloadProjects()
        now.reload()
        now.show()
        day.reload()
        weekStale = true
        reloadWeekIfShown()
        reloadHistory()
    }

    private func reloadWeekIfShown() {
        guard weekStale, context.link.status == .connected, let stack,
              let name = adw_view_stack_get_visible_child_name(stack.opaque), String(cString: name) == "week" else { return }
        weekStale = false
        week.reload()
    }

    private func reloadHistory() {
        context.link.call(HistoryModel.historyRequest) { [weak self] result in
            guard let self else { return }
            let steps = (try? result.get())?.first?.arrayValue?.compactMap(\.variantDictionary) ?? []
            self.history = HistoryModel(canUndo: self.context.link.properties.canUndo, history: steps)
            self.undoRedo()
        }
    }

    private func undoRedo() {
        undo.isSensitive = context.canChange && !history.undo.isEmpty
        redo.isSensitive = context.canChange && !history.redo.isEmpty
        undo.accessibleName("Undo").tooltip(history.undo.isEmpty ? "Nothing to undo" : "Undo: \(history.undo)")
        redo.accessibleName("Redo").tooltip(history.redo.isEmpty ? "Nothing to redo" : "Redo: \(history.redo)")
    }

    private func showBanner() {
        let link = context.link
        var message: String?
        if link.status == .reconnecting {
            message = "Time's agent is not answering; reconnecting… Nothing you typed is lost."
        } else if link.status == .connected, let storage = NowModel(properties: link.properties, status: [:], statusTime: 0,
                                                                       now: context.now, connected: true).storageBanner {
            message = storage
        }
        banner.text = message ?? ""
        bannerBox.isVisible = message != nil
    }

    private func perform(_ member: String) {
        guard context.canChange else { return }
        context.send(AgentRequest(member), failed: nil) { [weak self] reply in
            let what = reply.first?.stringValue ?? ""
            self?.context.toasts?.show((member == "Undo" ? "Undone: " : "Redone: ") + what)
        }
    }

    private static func menuButton() -> Widget {
        let menu = g_menu_new()
        g_menu_append(menu, "_Preferences", "app.preferences")
        g_menu_append(menu, "_History", "app.history")
        g_menu_append(menu, "_Keyboard Shortcuts", "app.shortcuts")
        g_menu_append(menu, "_About Time", "app.about")
        g_menu_append(menu, "_Quit", "app.quit")
        let button = Widget(gtk_menu_button_new()).accessibleName("Main menu").tooltip("Main menu")
        gtk_menu_button_set_icon_name(button.opaque, "open-menu-symbolic")
        gtk_menu_button_set_menu_model(button.opaque, cast(UnsafeMutableRawPointer(menu!)))
        g_object_unref(UnsafeMutableRawPointer(menu))
        return button
    }

    /// One Preferences window; asked again, it comes to the front.
    private func showPreferences() {
        if let preferences { return preferences.present() }
        let made = PreferencesWindow(context: context)
        made.onClose = { [weak self] in self?.preferences = nil }
        preferences = made
        made.present()
    }

    private func showHistory() {
        if let historyWindow { return historyWindow.present() }
        let made = HistoryWindow(context: context)
        made.onClose = { [weak self] in self?.historyWindow = nil }
        historyWindow = made
        made.present()
    }

    private func showShortcuts() {
        let builder = gtk_builder_new_from_string(ShortcutsWindow.xml, -1)
        defer { g_object_unref(UnsafeMutableRawPointer(builder)) }
        guard let object = gtk_builder_get_object(builder, "shortcuts") else { return }
        let shortcuts: UnsafeMutablePointer<GtkWindow> = cast(UnsafeMutableRawPointer(object))
        gtk_window_set_transient_for(shortcuts, window.typed())
        gtk_window_present(shortcuts)
    }

    private func showAbout() {
        guard let about = adw_about_window_new() else { return }
        let a = OpaquePointer(UnsafeMutableRawPointer(about))
        adw_about_window_set_application_name(a, "Time")
        adw_about_window_set_application_icon(a, WindowApp.applicationID)
        adw_about_window_set_version(a, context.link.properties.version.isEmpty ? WindowApp.version : context.link.properties.version)
        adw_about_window_set_developer_name(a, "Time maintainers")
        adw_about_window_set_comments(a, "One timer for the whole desktop, and every hour of your work kept safe.")
        adw_about_window_set_license_type(a, GTK_LICENSE_MIT_X11)
        gtk_window_set_transient_for(cast(UnsafeMutableRawPointer(about)), window.typed())
        gtk_window_present(cast(UnsafeMutableRawPointer(about)))
    }
}
