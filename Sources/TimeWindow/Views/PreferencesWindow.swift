import CGtk
import DBusCore
import GtkKit
import TimeClient

/// Preferences (Ctrl+comma): every setting the agent has, each row reading the agent's property
/// and following its `PropertiesChanged`, each change one call (a `Set`, `EnableSync`, …). The
/// window keeps nothing of its own but what belongs to the desktop: the login start and the
/// keyboard shortcut. General (reminders, away, login start), targets and money, the focus timer
/// (shown when the agent has one), then Sync and Data on a page of their own.
final class PreferencesWindow {
    let window: Widget
    private let context: WindowContext
    private let signals = SignalBag()
    /// True while the rows are being set from the agent: their change signals send nothing then.
    private var updating = false
    private var model: PreferencesModel
    private var loginStart = LoginStart.read()
    private let reminder = Prefs.spin(0, 1440).accessibleName("Minutes between reminders")
    private let untracked = Prefs.spin(0, 1440).accessibleName("Minutes before the not-tracking reminder")
    private let away = Prefs.spin(0, 1440).accessibleName("Idle minutes that count as away")
    private let login = Prefs.toggleSwitch()
    /// A switch that activates its row is named by the row's title (libadwaita's labelled-by):
    /// an accessible label of its own as well would be said twice.
    private let loginRow = Prefs.row(title: "Start at login")
    private let targetHours = Prefs.spin(0, 168).accessibleName("Weekly target in hours")
    private let targetMinutes = Prefs.spin(0, 59).accessibleName("Weekly target, minutes past the hour")
    private let currency = Prefs.entryRow(title: "Currency", apply: false)
    private let setCurrency = Make.button("Set currency").style("flat")
    private let currencyError = Make.label("", wrap: true)
    private let focusGroup = Prefs.group(title: "Focus",
                                         description: "The focus timer: a focus phase tracks your project; at its end a break is offered, and after a few focus phases a long break.")
    private let focusMinutes = Prefs.spin(1, 240).accessibleName("Minutes of a focus phase")
    private let breakMinutes = Prefs.spin(1, 120).accessibleName("Minutes of a break")
    private let longBreakMinutes = Prefs.spin(1, 240).accessibleName("Minutes of a long break")
    private let longBreakEvery = Prefs.spin(0, 20).accessibleName("Focus phases before a long break")
    private let autoStart = Prefs.toggleSwitch()
    private let pauseInBreaks = Prefs.toggleSwitch()
    private let shortcut = ShortcutPreferences()
    private let sync: SyncPreferences
    private let data: DataPreferences
    /// Runs when the window closes (the main window lets go of it).
    var onClose: (() -> Void)?

    init(context: WindowContext) {
        self.context = context
        model = PreferencesModel(context.link.properties)
        window = Prefs.window(title: "Preferences", parent: context.window)
        sync = SyncPreferences(context: context)
        data = DataPreferences(context: context)

        let general = Prefs.page(title: "General", icon: "preferences-system-symbolic")
        let reminders = Prefs.group(title: "General")
        numberRow(reminders, "Reminders while tracking", "A notification after this many minutes of active time, and again after as many more. 0 = off.",
                  reminder) { .some(("ReminderMinutes", .uint32(UInt32($0)))) }
        numberRow(reminders, "Reminder when not tracking", "A notification after this many minutes at the desk with no session open. 0 = off.",
                  untracked) { .some(("UntrackedReminderMinutes", .uint32(UInt32($0)))) }
        numberRow(reminders, "Away after", "Minutes without input that count as away (suspend and a locked screen always do). 0 = off.",
                  away) { .some(("AwayMinutes", .uint32(UInt32($0)))) }
        loginRow.addSuffix(login, activates: true)
        reminders.addRow(loginRow)
        signals.notify(login.object, "active") { [weak self] in self?.loginStartChanged() }
        reminders.addRow(shortcut.row)
        general.addGroup(reminders)

        let money = Prefs.group(title: "Targets and money")
        let target = Prefs.row(title: "Weekly target", subtitle: "Hours and minutes you aim to track each week over all projects. 0 = none.")
        target.addSuffix(targetHours)
        target.addSuffix(Make.label("h", style: "dim-label"))
        target.addSuffix(targetMinutes)
        target.addSuffix(Make.label("min", style: "dim-label"))
        money.addRow(target)
        for spin in [targetHours, targetMinutes] {
            signals.on(spin, "value-changed") { [weak self] in
                guard let self, !self.updating else { return }
                self.set("WeeklyTarget", PreferencesModel.weeklyTarget(hours: Int64(self.targetHours.spinValue),
                                                                       minutes: Int64(self.targetMinutes.spinValue)))
            }
        }
        money.addRow(currency)
        currencyError.style("error")
        currencyError.margins(6)
        currencyError.isVisible = false
        money.addRow(currencyError)
        // Enter or the button: a button as well, so that it is reachable without a keyboard (and
        // by assistive technologies, which GTK 4.8 cannot give an entry row's focus).
        gtk_widget_set_valign(setCurrency.raw, GTK_ALIGN_CENTER)
        currency.addEntrySuffix(setCurrency)
        signals.on(currency, "entry-activated") { [weak self] in self?.applyCurrency() }
        signals.clicked(setCurrency) { [weak self] in self?.applyCurrency() }
        general.addGroup(money)

        numberRow(focusGroup, "Focus phase", "Minutes of each focus phase.", focusMinutes) { .some(("FocusMinutes", .uint32(UInt32($0)))) }
        numberRow(focusGroup, "Break", "Minutes of a short break.", breakMinutes) { .some(("BreakMinutes", .uint32(UInt32($0)))) }
        numberRow(focusGroup, "Long break", "Minutes of a long break.", longBreakMinutes) { .some(("LongBreakMinutes", .uint32(UInt32($0)))) }
        numberRow(focusGroup, "Long break every", "Focus phases before a long break. 0 = no long breaks.",
                  longBreakEvery) { .some(("LongBreakEvery", .uint32(UInt32($0)))) }
        switchRow(focusGroup, "Start the next phase by itself", "Otherwise the next phase waits until you start it.",
                  autoStart, property: "FocusAutoStart")
        switchRow(focusGroup, "Pause during breaks", "The tracked session pauses for a break and resumes with the next focus phase.",
                  pauseInBreaks, property: "PauseInBreaks")
        general.addGroup(focusGroup)
        window.addPage(general)

        let syncPage = Prefs.page(title: "Sync and data", icon: "emblem-synchronizing-symbolic")
        syncPage.addGroup(sync.group)
        syncPage.addGroup(sync.devicesGroup)
        syncPage.addGroup(data.group)
        window.addPage(syncPage)

        // A file changed by hand while Preferences was away shows when it comes back.
        signals.notify(window.object, "is-active") { [weak self] in self?.rereadLoginStart() }
        signals.onBool(window.object, "close-request") { [weak self] in self?.onClose?(); return false }
        show()
    }

    func present() {
        gtk_window_present(window.typed())
        // The desktop's tools run once the window is on screen, not while it is built.
        shortcutRead = MainLoopTimer(milliseconds: 50) { [weak self] in self?.shortcut.refresh() }
    }

    private var shortcutRead: MainLoopTimer?

    /// The agent changed (or came back): every row shows what it has now.
    func agentChanged(_ keys: Set<String>) {
        model = PreferencesModel(context.link.properties)
        show()
    }

    private func show() {
        updating = true
        defer { updating = false }
        reminder.spinValue = Double(model.reminderMinutes)
        untracked.spinValue = Double(model.untrackedMinutes)
        away.spinValue = Double(model.awayMinutes)
        targetHours.spinValue = Double(model.targetHours)
        targetMinutes.spinValue = Double(model.targetMinutes)
        if shownCurrency != model.currency {
            currency.editableText = model.currency
            shownCurrency = model.currency
        }
        focusGroup.isVisible = model.focus != nil
        if let focus = model.focus {
            focusMinutes.spinValue = Double(focus.focusMinutes)
            breakMinutes.spinValue = Double(focus.breakMinutes)
            longBreakMinutes.spinValue = Double(focus.longBreakMinutes)
            longBreakEvery.spinValue = Double(focus.longBreakEvery)
            autoStart.switchOn = focus.autoStart
            pauseInBreaks.switchOn = focus.pauseInBreaks
        }
        login.switchOn = loginStart.isOn
        loginRow.subtitle = loginStart.summary
        let editable = context.canChange
        for widget in [reminder, untracked, away, targetHours, targetMinutes, currency, setCurrency, focusMinutes, breakMinutes,
                       longBreakMinutes, longBreakEvery, autoStart, pauseInBreaks] {
            widget.isSensitive = editable
        }
        sync.show(model)
        data.show(model)
    }

    private var shownCurrency: String?

    /// A row with a spin button; a change sends what `setting` makes of the value.
    private func numberRow(_ group: Widget, _ title: String, _ subtitle: String, _ spin: Widget,
                           setting: @escaping (Double) -> (String, DBusValue)?) {
        let row = Prefs.row(title: title, subtitle: subtitle)
        row.addSuffix(spin)
        group.addRow(row)
        signals.on(spin, "value-changed") { [weak self] in
            guard let self, !self.updating, let (name, value) = setting(spin.spinValue) else { return }
            self.set(name, value)
        }
    }

    private func switchRow(_ group: Widget, _ title: String, _ subtitle: String, _ toggle: Widget, property: String) {
        let row = Prefs.row(title: title, subtitle: subtitle)
        row.addSuffix(toggle, activates: true)
        group.addRow(row)
        signals.notify(toggle.object, "active") { [weak self] in
            guard let self, !self.updating else { return }
            self.set(property, .bool(toggle.switchOn))
        }
    }

    /// One `Set`; a refusal is said in the agent's words and the row goes back to the agent's value.
    private func set(_ name: String, _ value: DBusValue) {
        context.link.set(name, value) { [weak self] result in
            guard let self, case .failure(let error) = result else { return }
            self.window.preferencesToast(error.message)
            self.show()
        }
    }

    private func applyCurrency() {
        let typed = currency.editableText
        context.link.set("Currency", PreferencesModel.currency(typed)) { [weak self] result in
            guard let self else { return }
            switch result {
            case .success:
                self.currencyError.isVisible = false
                self.shownCurrency = nil
                self.show()
            case .failure(let error):
                self.currencyError.text = error.message
                self.currencyError.isVisible = true
            }
        }
    }

    private func loginStartChanged() {
        guard !updating else { return }
        if let problem = loginStart.apply(on: login.switchOn) { window.preferencesToast(problem) }
        rereadLoginStart()
    }

    private func rereadLoginStart() {
        let now = LoginStart.read()
        guard now != loginStart || login.switchOn != now.isOn else { return }
        loginStart = now
        show()
    }
}
