import CGtk
import DBusCore
import GtkKit
import TimeClient

/// The open session: project, elapsed time, Pause/Resume/Stop, the note, today's and the week's
/// totals; when idle, Continue and a project picker; the away spans waiting for an answer.
final class NowView {
    let root = Make.box(true, spacing: 12)
    private let context: WindowContext
    private let signals = SignalBag()
    private let project = Make.label("", style: "title-2")
    private let category = Make.label("", style: "dim-label")
    /// The seconds tick on screen only: hidden from screen readers, which get `elapsedSpoken`'s
    /// whole minutes (a label changed each second is an accessibility event each second).
    private let elapsed = Make.tickingText("0:00:00", style: "title-1")
    private lazy var elapsedSpoken = Make.spokenAsLabel([elapsed]).accessibleName("Elapsed 0 min")
    /// "Started at 09:12", pressed to say when the work really began (CorrectionDialog).
    private let startedAt = Make.button("Started at", style: "flat").accessibleName("Started at")
    private let pausedSince = Make.button("Paused since…", style: "flat").accessibleName("Paused since")
    private let stopAt = Make.button("Stop at…", style: "flat").accessibleName("Stop at")
    private let startAt = Make.button("Start at…", style: "flat").accessibleName("Start at")
    private let pause = Make.button("Pause", style: "pill")
    private let resume = Make.button("Resume", style: "pill")
    private let stop = Make.button("Stop", style: "pill")
    private let continueButton = Make.button("Continue", style: "pill")
    private let focusLabel = Make.label("", style: "heading")
    private let focusBar = Make.levelBar(name: "Time left of the phase")
    private let startFocus = Make.button("Start focus")
    private let skipPhase = Make.button("Skip")
    private let extendPhase = Make.button("+5 min").accessibleName("Five more minutes")
    private let stopFocus = Make.button("Stop focus")
    private let picker = Make.dropDown(name: "Project to start")
    private let start = Make.button("Start", style: "pill")
    private let note = Make.entry(name: "Note", hint: "Note for this session (Enter saves)")
    private let totals = Make.label("", style: "dim-label")
    private let awayBox = Make.box(true, spacing: 6)
    private var awayRows: [Widget] = []
    private var awaySignals = SignalBag()
    private var pickerProjects: [Project] = []
    private var model: NowModel?
    private var status: [String: DBusValue] = [:]
    private var statusTime: Int64 = 0
    private var tick: MainLoopTimer?

    init(context: WindowContext) {
        self.context = context
        root.margins(24).align(GTK_ALIGN_CENTER, GTK_ALIGN_START).width(420)
        let timerButtons = Make.box(false, spacing: 12, [pause, resume, stop]).align(GTK_ALIGN_CENTER)
        stop.style("destructive-action")
        continueButton.style("suggested-action")
        start.style("suggested-action")
        let startRow = Make.box(false, spacing: 6, [picker.expand(horizontally: true), start])
        let corrections = Make.box(false, spacing: 6, [pausedSince, stopAt, startAt]).align(GTK_ALIGN_CENTER)
        startedAt.align(GTK_ALIGN_CENTER)
        let focusButtons = Make.box(false, spacing: 6, [startFocus, skipPhase, extendPhase, stopFocus]).align(GTK_ALIGN_CENTER)
        let focusBox = Make.box(true, spacing: 6, [focusLabel, focusBar, focusButtons])
        for widget in [awayBox, project, category, elapsedSpoken, startedAt, timerButtons, focusBox, continueButton, startRow, corrections,
                       note, totals] {
            root.append(widget)
        }
        signals.clicked(pause) { context.send(NowModel.pause) }
        signals.clicked(resume) { context.send(NowModel.resume) }
        signals.clicked(stop) { context.send(NowModel.stop) }
        signals.clicked(continueButton) { [weak self] in
            guard let last = self?.context.link.properties.lastProject, !last.isEmpty else { return }
            context.send(NowModel.start(projectName: last))
        }
        signals.clicked(start) { [weak self] in self?.startPicked() }
        signals.clicked(startedAt) { [weak self] in self?.correct(.startedAt) }
        signals.clicked(pausedSince) { [weak self] in self?.correct(.pausedSince) }
        signals.clicked(stopAt) { [weak self] in self?.correct(.stopAt) }
        signals.clicked(startAt) { [weak self] in self?.correct(.startAt) }
        signals.clicked(startFocus) { context.send(FocusShown.startFocus) }
        signals.clicked(skipPhase) { context.send(FocusShown.skip) }
        signals.clicked(extendPhase) { context.send(FocusShown.extend) }
        signals.clicked(stopFocus) { context.send(FocusShown.stopFocus) }
        signals.activated(note) { [weak self] in self?.saveNote() }
        context.onProjectsChanged.append { [weak self] in self?.fillPicker() }
    }

    /// Reads today's and this week's totals again (after any change).
    func reload() {
        context.link.call(AgentRequest("GetStatus")) { [weak self] result in
            guard let self, case .success(let reply) = result else { return }
            self.status = reply.first?.variantDictionary ?? [:]
            self.statusTime = self.context.now
            self.show()
        }
    }

    /// Shows the agent's state now; ticks once a second while a session runs and the window is seen.
    func show() {
        let link = context.link
        let model = NowModel(properties: link.properties, status: status, statusTime: statusTime,
                             now: context.now, connected: link.status == .connected)
        defer { self.model = model; followTicking() }
        // A tick changes these two labels only: nothing else is set again (each change of a
        // widget costs a redraw and, with a screen reader's bus, an event).
        elapsed.tickingText = model.elapsed
        if model.elapsedSpoken != self.model?.elapsedSpoken { elapsedSpoken.accessibleName(model.elapsedSpoken) }
        totals.text = model.totals
        focusLabel.text = model.focus.text
        focusBar.level = model.focus.left
        guard let shown = self.model, model.sameExceptTime(as: shown) else { return showAll(model) }
    }

    private func showAll(_ model: NowModel) {
        project.setMarkup(model.state == "idle" ? "Not tracking" : coloredName(model.projectName, color: model.projectColor))
        // A screen reader says the name, not the color dot.
        project.accessibleName(model.state == "idle" ? "Not tracking" : model.projectName)
        category.text = model.category
        category.isVisible = !model.category.isEmpty
        elapsedSpoken.isVisible = model.state != "idle"
        pause.isVisible = model.showsPause
        resume.isVisible = model.showsResume
        stop.isVisible = model.showsStop
        startedAt.isVisible = model.startedAt != nil
        startedAt.buttonLabel = model.startedAt ?? "Started at"
        // GTK names a button by its label again when the label changes: its name stays "Started
        // at", the time is read after it.
        startedAt.accessibleName("Started at").accessibleDescription(model.startedTime)
        pausedSince.isVisible = model.showsCorrections
        stopAt.isVisible = model.showsCorrections
        continueButton.isVisible = model.continueLabel != nil
        continueButton.buttonLabel = model.continueLabel ?? "Continue"
        picker.isVisible = model.showsStartPicker
        start.isVisible = model.showsStartPicker
        note.isVisible = model.state != "idle"
        if !gtkHasFocus(note) { note.editableText = model.note }
        for control in [pause, resume, stop, continueButton, picker, start, note, startedAt, pausedSince, stopAt, startAt] {
            control.isSensitive = model.canChange
        }
        showAway(model.away, enabled: model.canChange)
        showFocus(model.focus, enabled: model.canChange)
    }

    private func showAway(_ lines: [NowModel.AwayLine], enabled: Bool) {
        for row in awayRows { awayBox.remove(row) }
        awayRows = []
        awaySignals = SignalBag()
        for line in lines {
            let text = Make.label(line.text, wrap: true)
            let keep = Make.button("Keep"), discard = Make.button("Discard"), stopThere = Make.button(line.stopLabel)
            let row = Make.box(true, spacing: 6, [text, Make.box(false, spacing: 6, [keep, discard, stopThere])]).style("card").margins(6)
            for (button, choice) in [(keep, "keep"), (discard, "discard"), (stopThere, "stop")] {
                button.isSensitive = enabled
                awaySignals.clicked(button) { [weak self] in self?.context.send(NowModel.resolveAway(line.id, choice)) }
            }
            awayBox.append(row)
            awayRows.append(row)
        }
    }

    private func showFocus(_ focus: FocusShown, enabled: Bool) {
        focusLabel.isVisible = !focus.text.isEmpty
        focusBar.isVisible = focus.showsBar
        startFocus.isVisible = focus.showsStartFocus
        skipPhase.isVisible = focus.skipLabel != nil
        skipPhase.buttonLabel = focus.skipLabel ?? "Skip"
        extendPhase.isVisible = focus.showsExtend
        stopFocus.isVisible = focus.showsStopFocus
        for control in [startFocus, skipPhase, extendPhase, stopFocus] { control.isSensitive = enabled }
    }

    private func fillPicker() {
        pickerProjects = context.pickableProjects()
        picker.setChoices(pickerProjects.map(\.name))
    }

    private func startPicked() {
        let index = picker.selectedIndex
        guard index >= 0, index < pickerProjects.count else {
            context.toasts?.show("Choose a project to start, or make one in Projects.")
            return
        }
        context.send(NowModel.start(projectID: pickerProjects[index].id))
    }

    /// Opens the dialog that says when something really happened; Start at preselects the
    /// project picked (idle) for the start.
    private func correct(_ kind: CorrectionForm.Kind) {
        let index = picker.selectedIndex
        let picked = kind == .startAt && index >= 0 && index < pickerProjects.count ? pickerProjects[index].id : 0
        CorrectionDialog(context: context, model: CorrectionForm(kind: kind, properties: context.link.properties),
                         projectID: picked).present()
    }

    private func saveNote() {
        guard let request = model?.noteRequest(note.editableText) else { return }
        context.send(request, failed: nil) { [weak self] _ in self?.context.toasts?.show("Note saved") }
    }

    // MARK: The tick

    /// One timer a second while a session runs and the window is on screen; none otherwise
    /// (idle, paused, minimised or hidden: no wake-ups).
    func followTicking() {
        let wanted = model?.ticks == true && isOnScreen
        if wanted, tick == nil {
            tick = MainLoopTimer(milliseconds: 1000, repeating: true) { [weak self] in
                guard let self else { return }
                if self.isOnScreen { self.show() } else { self.tick = nil }
            }
        } else if !wanted {
            tick = nil
        }
    }

    private var isOnScreen: Bool {
        guard let window = context.window else { return false }
        let widget: UnsafeMutablePointer<GtkWidget> = cast(UnsafeMutableRawPointer(window))
        return gtk_widget_get_mapped(widget) != 0 && time_gtk_window_is_minimized(widget) == 0
    }
}

/// Whether the person is typing in `widget` (then what they typed is not overwritten).
func gtkHasFocus(_ widget: Widget) -> Bool {
    gtk_widget_has_focus(widget.raw) != 0 || gtk_widget_get_focus_child(widget.raw) != nil
}
