import CGLib
import DBusKit
import Glibc
import Presence
import TimeCore

/// Away detection's part of the service: Presence's events, MarkAway / MarkBack / ResolveAway,
/// the away properties and the return notification. The D-Bus methods, the desktop's signals and
/// the notification's actions all end in the same three functions: `personLeft`, `personBack`
/// and `resolveAway`.
struct AwayAgentState {
    var presence: Presence?
    var systemBus: BusConnection?
    /// Spans whose return notification was shown by this agent (a new agent shows them again).
    var notified: Set<Int64> = []
    /// The span the return notification on screen is about; 0 when none.
    var shownID: Int64 = 0
    /// A one-shot timer for the moment the lasting span reaches a minute and starts to count.
    var countSource: UInt32 = 0
}

extension TimerProperties {
    mutating func setAway(from tracker: Tracker) {
        awayMinutes = tracker.awayMinutes
        awaySince = (try? tracker.awaySince()) ?? 0
        pendingAway = .array(elementSignature: "(txxss)", ((try? tracker.pendingAway()) ?? []).map { span in
            .structure([.uint64(UInt64(max(0, span.id))), .int64(span.start), .int64(span.end ?? 0),
                        .string(span.reason.rawValue), .string(tracker.projectName(of: span))])
        })
    }
}

extension AgentService {
    // MARK: The three functions

    /// The person left at `time`. Durable when it returns (a suspend waits for that).
    func personLeft(reason: AwayReason, at time: Int64) throws {
        focusPersonLeft(at: time)
        try tracker.markAway(reason: reason, at: time)
    }

    /// The person is back at `time`; the return notification follows after the reply.
    func personBack(at time: Int64) throws {
        try tracker.markBack(at: time)
        try focusPersonBack()
    }

    func resolveAway(id: Int64, choice: String) throws {
        try tracker.resolveAway(id: id, choice: choice)
    }

    // MARK: The desktop

    /// Connects Presence to the session bus and, when there is one, the system bus.
    func startAwayDetection(sessionBus: BusConnection) {
        let address = getenv("DBUS_SYSTEM_BUS_ADDRESS").map { String(cString: $0) } ?? "unix:path=/run/dbus/system_bus_socket"
        let systemBus = try? BusConnection(address: address)
        systemBus?.attachToMainContext(nil)
        if let systemBus { systemBus.onDisconnect = { [weak self] in self?.systemBusClosed() } }
        away.systemBus = systemBus
        let presence = Presence(sessionBus: sessionBus, systemBus: systemBus, idleMinutes: tracker.awayMinutes) { [weak self] event in
            self?.presenceEvent(event)
        }
        away.presence = presence
        presence.start()
        Log.info("away detection from: \(presence.sourcesFound.joined(separator: ", "))")
        resumeLastingSpan(presence)
    }

    /// A span still lasting from before this agent started stays as it was, unless a source can
    /// tell: logind says the session is unlocked (after a lock or a suspend: back now), or GNOME's
    /// idle monitor watches for input (after idle). Otherwise MarkBack or the next return ends it.
    private func resumeLastingSpan(_ presence: Presence) {
        guard let span = try? tracker.lastingAwaySpan() else { return }
        switch span.reason {
        case .lock, .suspend:
            if presence.followsSession && !presence.personIsAway { presenceEvent(.back(at: tracker.clock.now())) }
        case .idle:
            _ = presence.resumeIdle(since: span.start)
        case .manual:
            break
        }
    }

    private func systemBusClosed() {
        Log.info("the system bus went away; suspend is noticed through the kernel's clocks")
    }

    func stopAwayDetection() {
        if away.countSource != 0 { g_source_remove(away.countSource); away.countSource = 0 }
        away.presence?.stop()
        away.presence = nil
        away.systemBus?.close()
        away.systemBus = nil
    }

    private func presenceEvent(_ event: PresenceEvent) {
        do {
            switch event {
            case .left(let reason, let time): try personLeft(reason: AwayReason(rawValue: reason.rawValue) ?? .manual, at: time)
            case .back(let time): try personBack(at: time)
            }
        } catch {
            Log.warning("could not record \(event): \(error)")
        }
        refreshAfterChange()
    }

    // MARK: After every change

    /// The return notification for a span that just ended, the notification closed once its
    /// span is answered, the idle watch moved with AwayMinutes, and one timer for the minute
    /// at which a lasting span starts to count.
    func updateAway() {
        away.presence?.setIdleMinutes(tracker.awayMinutes)
        let pending = (try? tracker.pendingAway()) ?? []
        let ended = pending.filter { $0.end != nil && !away.notified.contains($0.id) }
        if let newest = ended.last {
            for span in ended { away.notified.insert(span.id) }
            showReturnNotification(newest)
        }
        if away.shownID != 0, !pending.contains(where: { $0.id == away.shownID }) {
            notifier?.closeAway()
            away.shownID = 0
        }
        if away.countSource != 0 { g_source_remove(away.countSource); away.countSource = 0 }
        let since = (try? tracker.awaySince()) ?? 0
        let now = tracker.clock.now()
        if since != 0, now - since < AwaySpan.minimumSeconds {
            let delay = UInt32(clamping: (since + AwaySpan.minimumSeconds - now) * 1000)
            away.countSource = g_timeout_add_full(G_PRIORITY_DEFAULT, delay, awaySpanCounts,
                                                  Unmanaged.passUnretained(self).toOpaque(), nil)
        }
    }

    fileprivate func awayCountDue() {
        away.countSource = 0
        refreshAfterChange()
    }

    private func showReturnNotification(_ span: AwaySpan) {
        guard let notifier, let end = span.end else { return }
        let text = AwayNotificationText(span: span, end: end, project: tracker.projectName(of: span))
        notifier.showAway(id: span.id, summary: text.summary, body: text.body, stopLabel: text.stopLabel)
        away.shownID = span.id
    }

    // MARK: The interface table

    var awayMethods: [Method] {
        [
            changing("MarkAway", [Argument("reason", "s"), Argument("seconds_ago", "u")], [],
                     "The person left seconds_ago seconds ago (reason idle, lock or manual). Nothing is recorded unless a session runs.") { args in
                let secondsAgo = Int64(args.values[1].uint32Value ?? 0)
                try self.personLeft(reason: AwayReason(markAwayReason: args.string(0)), at: self.tracker.clock.now() - secondsAgo)
                return []
            },
            changing("MarkBack", [], [], "The person is back now; no error when nobody was away.") { _ in
                try self.personBack(at: self.tracker.clock.now())
                return []
            },
            changing("ResolveAway", [Argument("id", "t"), Argument("choice", "s")], [],
                     "Answers a pending away span: keep, discard (cut out of the session) or stop (the session ends at its start). Id 0: the newest.") { args in
                guard let id = args.id(0) else {
                    throw TrackerError.noSuchAway("There is no pending away time with id \(args.values[0].uint64Value ?? 0); list them with PendingAway (timectl away).")
                }
                try self.resolveAway(id: id, choice: args.string(1))
                return []
            },
        ]
    }

    var awayProperties: [Property] {
        [
            Property(name: "AwayMinutes", signature: "u", access: .readWrite,
                     doc: "Idle minutes that count as away; 0 turns idle detection off (suspend and lock still count).",
                     setterAnnounces: true) { [unowned self] in
                .uint32(self.tracker.awayMinutes)
            } set: { [unowned self] value in
                try contractCall { try self.tracker.setAwayMinutes(value.uint32Value ?? 0) }
                // A change like any other: one PropertiesChanged with AwayMinutes and CanUndo,
                // then the idle watch moves (updateAway) and the tray's Undo line follows.
                self.refreshAfterChange()
            },
            property("AwaySince", "x", "When the current away span began; 0 when the person is present or no session runs."),
            property("PendingAway", "a(txxss)", "Unanswered away spans, oldest first: id, start, end (0 while it lasts), reason, project."),
        ]
    }
}

/// The return notification's words: `Away 42 min` / `Writing kept running 14:05–14:47 (screen locked)`.
struct AwayNotificationText {
    let summary: String
    let body: String
    let stopLabel: String

    init(span: AwaySpan, end: Int64, project: String) {
        summary = "Away \(AwayText.duration(end - span.start))"
        body = "\(project.isEmpty ? "The timer" : project) kept running \(LocalTime.clock(span.start))–\(LocalTime.clock(end)) (\(span.reason.phrase))"
        stopLabel = "Stop at \(LocalTime.clock(span.start))"
    }
}

private func awaySpanCounts(_ data: UnsafeMutableRawPointer?) -> gboolean {
    Unmanaged<AgentService>.fromOpaque(data!).takeUnretainedValue().awayCountDue()
    return 0 // G_SOURCE_REMOVE
}
