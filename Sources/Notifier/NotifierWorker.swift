import CGLib
import CNotify
import Glibc

/// The notifier's worker: the libnotify thread with its own GMainContext, and the state it shows.
enum TimerDesire: Equatable { case unchanged, show(TimerNotification), close }
enum OneOff {
    case reminder(summary: String, body: String, untracked: String?), closeReminder
    case report(summary: String, body: String, imagePath: String?, category: String)
    case away(id: Int64, summary: String, body: String, stopLabel: String), closeAway
    case undoable(summary: String, body: String)
    case phaseEnd(summary: String, body: String, answers: [FocusAnswer])
}

// MARK: - C callbacks (named functions; user data is an unretained NotifierWorker)

private func workerThreadMain(_ data: gpointer?) -> gpointer? {
    let worker = Unmanaged<NotifierWorker>.fromOpaque(data!).takeRetainedValue()
    worker.runLoop()
    worker.markFinished()
    return nil
}

private func workerWake(_ data: gpointer?) -> gboolean {
    Unmanaged<NotifierWorker>.fromOpaque(data!).takeUnretainedValue().applyPending()
    return 0 // G_SOURCE_REMOVE
}

private func workerQuit(_ data: gpointer?) -> gboolean {
    Unmanaged<NotifierWorker>.fromOpaque(data!).takeUnretainedValue().quitLoop()
    return 0
}

private func serverAppeared(_ connection: OpaquePointer?, _ name: UnsafePointer<gchar>?,
                            _ owner: UnsafePointer<gchar>?, _ data: gpointer?) {
    guard let data else { return }
    Unmanaged<NotifierWorker>.fromOpaque(data).takeUnretainedValue().serverOwnerChanged(owner.map { String(cString: $0) })
}

private func serverVanished(_ connection: OpaquePointer?, _ name: UnsafePointer<gchar>?, _ data: gpointer?) {
    guard let data else { return }
    Unmanaged<NotifierWorker>.fromOpaque(data).takeUnretainedValue().serverOwnerChanged(nil)
}

private func dropLog(_ domain: UnsafePointer<gchar>?, _ level: GLogLevelFlags,
                     _ message: UnsafePointer<gchar>?, _ data: gpointer?) {}

private final class ActionDelivery {
    let onAction: (NotifierAction) -> Void
    let action: NotifierAction
    init(_ onAction: @escaping (NotifierAction) -> Void, _ action: NotifierAction) {
        self.onAction = onAction; self.action = action
    }
}

private func deliverAction(_ data: gpointer?) -> gboolean {
    let d = Unmanaged<ActionDelivery>.fromOpaque(data!).takeRetainedValue()
    d.onAction(d.action)
    return 0
}

// MARK: - The worker

final class NotifierWorker: @unchecked Sendable {
    let appName: String
    let desktopEntry: String
    let appIcon: String
    let onAction: (NotifierAction) -> Void
    let mainContext: OpaquePointer  // ref held

    // Shared between threads, guarded by `mutex`.
    private let mutex: UnsafeMutablePointer<GMutex>
    /// Set by the worker thread as its last act; `finishedCondition` is signalled then.
    private let finishedCondition: UnsafeMutablePointer<GCond>
    private var finished = false
    private var pendingTimer: TimerDesire = .unchanged
    private var pendingOneOffs: [OneOff] = []
    private var wakeScheduled = false
    private var stopped = false
    private var thread: UnsafeMutablePointer<GThread>?

    // Owned by the worker thread once started.
    private let context: OpaquePointer
    private var loop: OpaquePointer?
    private var timerNote: LibnotifyNotification?
    private var appliedTimer: TimerNotification?
    private var reminderNote: LibnotifyNotification?
    private var awayNote: LibnotifyNotification?
    /// The notification with an Undo action, kept until closed so its action can arrive.
    private var undoNote: LibnotifyNotification?
    /// The focus timer's phase-end notification, kept until answered or dismissed.
    private var phaseNote: LibnotifyNotification?
    private var problemLogged = false
    private var wantedTimer: TimerNotification?
    private var timerFailed = false
    private var serverWatch: guint = 0
    /// The notification server's unique name, once the watch has reported it (nil: none).
    private var serverOwner: String??

    init(appName: String, desktopEntry: String, appIcon: String, mainContext: OpaquePointer?,
         onAction: @escaping (NotifierAction) -> Void) {
        self.appName = appName
        self.desktopEntry = desktopEntry
        self.appIcon = appIcon
        self.onAction = onAction
        self.mainContext = g_main_context_ref(mainContext ?? g_main_context_default())
        mutex = .allocate(capacity: 1)
        g_mutex_init(mutex)
        finishedCondition = .allocate(capacity: 1)
        g_cond_init(finishedCondition)
        context = g_main_context_new()
    }

    deinit {
        g_main_context_unref(context)
        g_main_context_unref(mainContext)
        g_mutex_clear(mutex)
        mutex.deallocate()
        g_cond_clear(finishedCondition)
        finishedCondition.deallocate()
    }

    private func locked<T>(_ body: () -> T) -> T {
        g_mutex_lock(mutex); defer { g_mutex_unlock(mutex) }
        return body()
    }

    func start() {
        loop = g_main_loop_new(context, 0)
        let me = Unmanaged.passRetained(self).toOpaque() // released by the thread
        thread = g_thread_new("notifier", workerThreadMain, me)
    }

    // Called from any thread: never blocks beyond the mutex.
    func post(timer: TimerDesire) {
        post { $0.pendingTimer = timer }
    }

    func post(oneOff: OneOff) {
        post { $0.pendingOneOffs.append(oneOff) }
    }

    private func post(_ change: (NotifierWorker) -> Void) {
        let wake: Bool = locked {
            guard !stopped else { return false }
            change(self)
            if wakeScheduled { return false }
            wakeScheduled = true
            return true
        }
        if wake {
            g_main_context_invoke_full(context, 0, workerWake,
                                       Unmanaged.passUnretained(self).toOpaque(), nil)
        }
    }

    func markFinished() {
        locked {
            finished = true
            g_cond_signal(finishedCondition)
        }
    }

    func shutdown(waitingAtMost seconds: Double) -> Bool {
        let t: UnsafeMutablePointer<GThread>? = locked {
            if stopped { return nil }
            stopped = true
            let t = thread
            thread = nil
            return t
        }
        guard let t else { return true }
        g_main_context_invoke_full(context, 0, workerQuit,
                                   Unmanaged.passUnretained(self).toOpaque(), nil)
        let deadline = g_get_monotonic_time() + gint64(seconds * 1_000_000)
        let done: Bool = locked {
            while !finished {
                if g_cond_wait_until(finishedCondition, mutex, deadline) == 0 { break }
            }
            return finished
        }
        if done {
            g_thread_join(t)
        } else {
            // Stuck in a libnotify call: leave it; the thread holds its own reference to the worker.
            g_thread_unref(t)
        }
        return done
    }

    // MARK: worker thread

    func runLoop() {
        g_main_context_push_thread_default(context)
        // libnotify warns on every failed call; we log one line of our own instead.
        g_log_set_handler("libnotify", GLogLevelFlags(rawValue: G_LOG_LEVEL_WARNING.rawValue | G_LOG_LEVEL_MESSAGE.rawValue),
                          dropLog, nil)
        _ = notify_init(appName)
        let me = Unmanaged.passUnretained(self).toOpaque()
        serverWatch = g_bus_watch_name(G_BUS_TYPE_SESSION, "org.freedesktop.Notifications", G_BUS_NAME_WATCHER_FLAGS_NONE,
                                       serverAppeared, serverVanished, me, nil)
        g_main_loop_run(loop)
        g_bus_unwatch_name(serverWatch)
        // Leave nothing behind that points at a dead agent.
        let closing = [timerNote, reminderNote, awayNote, undoNote, phaseNote]
        (timerNote, reminderNote, awayNote, undoNote, phaseNote) = (nil, nil, nil, nil, nil)
        for note in closing { note?.close() }
        notify_uninit()
        // Drop sources that may still be queued.
        while g_main_context_iteration(context, 0) != 0 {}
        g_main_loop_unref(loop)
        loop = nil
        g_main_context_pop_thread_default(context)
    }

    func quitLoop() { g_main_loop_quit(loop) }

    func applyPending() {
        let (timer, posted): (TimerDesire, [OneOff]) = locked {
            let r = (pendingTimer, pendingOneOffs)
            pendingTimer = .unchanged
            pendingOneOffs = []
            wakeScheduled = false
            return r
        }
        if case .show(let t) = timer { wantedTimer = t }
        if case .close = timer { wantedTimer = nil }
        // Retry a timer that failed to show at the last event.
        let timerDue = timer != .unchanged || (timerFailed && wantedTimer != nil)
        if !timerDue && posted.isEmpty { return }
        if case .close = timer {
            appliedTimer = nil
            timerFailed = false
            let closing = timerNote
            timerNote = nil
            closing?.close()
        }
        var oneOffs = posted
        if oneOffs.contains(where: { if case .closeReminder = $0 { true } else { false } }) {
            let closing = reminderNote
            reminderNote = nil
            closing?.close()
            oneOffs.removeAll { if case .closeReminder = $0 { true } else { false } }
        }
        if oneOffs.contains(where: { if case .closeAway = $0 { true } else { false } }) {
            let closing = awayNote
            awayNote = nil
            closing?.close()
            oneOffs.removeAll { if case .closeAway = $0 { true } else { false } }
        }
        guard wantedTimer != nil && timerDue || !oneOffs.isEmpty else { return }
        let caps = notificationServerCapabilities()
        if caps.isEmpty {
            // No server, or one that does not answer: skip this event, retry at the next one.
            timerFailed = wantedTimer != nil
            logProblem("no notification server answered GetCapabilities")
            return
        }
        if timerDue, let t = wantedTimer { applyTimer(t, caps: caps) }
        for o in oneOffs {
            switch o {
            case .reminder(let s, let b, let untracked): applyReminder(summary: s, body: b, untracked: untracked, caps: caps)
            case .report(let s, let b, let image, let category): applyReport(summary: s, body: b, imagePath: image, category: category, caps: caps)
            case .away(let id, let s, let b, let stop): applyAway(id: id, summary: s, body: b, stopLabel: stop, caps: caps)
            case .undoable(let s, let b): applyUndoable(summary: s, body: b, caps: caps)
            case .phaseEnd(let s, let b, let answers):
                applyLasting(&phaseNote, summary: s, body: b, category: NotifierText.focusCategory,
                             actions: NotifierText.focusActions(answers, capabilities: caps), caps: caps)
            case .closeReminder, .closeAway: break
            }
        }
    }

    private func logProblem(_ message: String) {
        guard !problemLogged else { return }
        problemLogged = true
        let line = "time-agent: notifications unavailable (\(message)); will retry at the next change\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    private func applyTimer(_ t: TimerNotification, caps: Set<String>) {
        if timerNote != nil && appliedTimer == t { return }
        let markup = caps.contains("body-markup")
        let summary = NotifierText.timerSummary(t)
        let body = NotifierText.timerBody(t, markup: markup)
        let n = notification(reusing: timerNote, summary: summary, body: body)
        timerNote = n
        n.set(category: NotifierText.timerCategory, desktopEntry: desktopEntry, urgency: NOTIFY_URGENCY_LOW, timeoutMilliseconds: 0)
        n.setHint("resident", boolean: true)
        n.setActions(NotifierText.timerActions(state: t.state, capabilities: caps))
        if show(n) { appliedTimer = t; timerFailed = false } else { appliedTimer = nil; timerFailed = true }
    }

    private func applyReminder(summary: String, body: String, untracked: String?, caps: Set<String>) {
        let actions = untracked.map { NotifierText.untrackedActions(continueLabel: $0, capabilities: caps) }
            ?? NotifierText.reminderActions(capabilities: caps)
        applyLasting(&reminderNote, summary: summary, body: body, category: NotifierText.reminderCategory, actions: actions, caps: caps)
    }

    private func applyAway(id: Int64, summary: String, body: String, stopLabel: String, caps: Set<String>) {
        applyLasting(&awayNote, summary: summary, body: body, category: NotifierText.awayCategory,
                     actions: NotifierText.awayActions(id: id, stopLabel: stopLabel, capabilities: caps), caps: caps)
    }

    /// A notification that stays until answered or dismissed, changed in place while it is shown.
    private func applyLasting(_ note: inout LibnotifyNotification?, summary: String, body: String,
                              category: String, actions: [NotificationActionSpec], caps: Set<String>) {
        let text = NotifierText.bodyText(body, markup: caps.contains("body-markup"))
        let n = notification(reusing: note, summary: summary, body: text)
        note = n
        n.set(category: category, desktopEntry: desktopEntry, urgency: NOTIFY_URGENCY_NORMAL, timeoutMilliseconds: 0)
        n.setActions(actions)
        _ = show(n)
    }

    /// The timer and the reminder are each one notification changed in place: `existing` updated,
    /// or a new one whose closing is watched.
    private func notification(reusing existing: LibnotifyNotification?, summary: String, body: String) -> LibnotifyNotification {
        if let existing {
            existing.update(summary: summary, body: body)
            return existing
        }
        return LibnotifyNotification(summary: summary, body: body, worker: self, watchClosing: true)
    }

    private func applyReport(summary: String, body: String, imagePath: String?, category: String, caps: Set<String>) {
        let text = NotifierText.bodyText(body, markup: caps.contains("body-markup"))
        // Not kept: it has no actions, and the server lets it expire (-1: the server's default).
        let n = LibnotifyNotification(summary: summary, body: text, worker: self, watchClosing: false)
        n.set(category: category, desktopEntry: desktopEntry, urgency: NOTIFY_URGENCY_NORMAL, timeoutMilliseconds: -1)
        if let imagePath, !caps.isDisjoint(with: ["icon-static", "icon-multi", "body-images"]) {
            n.setHint("image-path", string: imagePath)
        }
        _ = show(n)
    }

    /// Short-lived (the undo it offers is about what just happened); a new one replaces the last.
    private func applyUndoable(summary: String, body: String, caps: Set<String>) {
        let replaced = undoNote
        undoNote = nil
        replaced?.close()
        let text = NotifierText.bodyText(body, markup: caps.contains("body-markup"))
        let n = LibnotifyNotification(summary: summary, body: text, worker: self, watchClosing: true)
        undoNote = n
        n.set(category: NotifierText.undoCategory, desktopEntry: desktopEntry, urgency: NOTIFY_URGENCY_NORMAL,
              timeoutMilliseconds: NotifierText.undoTimeoutMilliseconds)
        n.setActions(NotifierText.undoActions(capabilities: caps))
        _ = show(n)
    }

    /// Shows; logs one line on the first failure of a run of failures.
    private func show(_ n: LibnotifyNotification) -> Bool {
        guard let problem = n.show() else {
            problemLogged = false
            return true
        }
        logProblem(problem)
        return false
    }

    /// The notification server went away or was replaced: the ids we hold were given out by the
    /// old one, and a new server hands the same ids to other applications. Forget our
    /// notifications without closing them (a close or an update would hit someone else's), so the
    /// next show creates new ones.
    func serverOwnerChanged(_ owner: String?) {
        defer { serverOwner = .some(owner) }
        guard let previous = serverOwner, previous != owner else { return } // first report: nothing to forget
        (timerNote, reminderNote, awayNote, undoNote, phaseNote) = (nil, nil, nil, nil, nil)
        appliedTimer = nil
        timerFailed = wantedTimer != nil // shown again at the next event
    }

    // Called by libnotify on this thread.
    func actionInvoked(_ key: String, activationToken: String) {
        guard var action = NotifierText.action(forKey: key) else { return }
        if case .openDefault = action { action = .openDefault(activationToken: activationToken) }
        let d = Unmanaged.passRetained(ActionDelivery(onAction, action)).toOpaque()
        g_main_context_invoke_full(mainContext, 0, deliverAction, d, nil)
    }

    /// The server closed one of ours (dismissed, or an action was invoked): forget it, so the
    /// next state change shows it again.
    func notificationClosed(_ p: gpointer) {
        if timerNote?.isThis(p) == true {
            timerNote = nil
            appliedTimer = nil
        } else if awayNote?.isThis(p) == true {
            awayNote = nil
        } else if reminderNote?.isThis(p) == true {
            reminderNote = nil
        } else if undoNote?.isThis(p) == true {
            undoNote = nil
        } else if phaseNote?.isThis(p) == true {
            phaseNote = nil
        }
    }
}
