import DBusKit

/// The session bus: the screen savers' ActiveChanged and GNOME's idle monitor, whose watches
/// are added again whenever Mutter (re)appears.
extension Presence {
    static let mutter = "org.gnome.Mutter.IdleMonitor"
    static let mutterPath = "/org/gnome/Mutter/IdleMonitor/Core"

    func startDesktop(on bus: BusConnection) {
        for saver in ["org.gnome.ScreenSaver", "org.freedesktop.ScreenSaver"] {
            match(bus, "type='signal',interface='\(saver)',member='ActiveChanged'")
        }
        match(bus, Presence.nameOwnerRule(Presence.mutter))
        match(bus, "type='signal',sender='\(Presence.mutter)',interface='\(Presence.mutter)',member='WatchFired'")
        listen(on: bus) { [weak self] message in self?.desktopSignal(message) }
        if (try? bus.nameHasOwner(Presence.mutter)) == true { mutterAppeared() }
    }

    /// AwayMinutes changed: the idle watch moves (0 removes it).
    public func setIdleMinutes(_ minutes: UInt32) {
        guard minutes != idleMinutes else { return }
        idleMinutes = minutes
        guard mutterOwner != nil else { return }
        if idleWatchID != 0 { _ = try? callMutter("RemoveWatch", [.uint32(idleWatchID)]); idleWatchID = 0 }
        addIdleWatch()
        if minutes == 0 { set("idle", away: false, reason: .idle, at: nowSeconds) }
    }

    /// The person was already idle when the agent started (a span still lasting from before a
    /// restart): when GNOME's idle monitor is here, it tells when they are back. Returns false
    /// when no source can tell.
    public func resumeIdle(since time: Int64) -> Bool {
        guard mutterOwner != nil else { return false }
        _ = conditions.set("idle", away: true, reason: .idle, at: time)
        if activeWatchID == 0 { addActiveWatch() }
        return true
    }

    private func callMutter(_ member: String, _ arguments: [DBusValue]) throws -> [DBusValue] {
        guard let bus = sessionBus else { return [] }
        return try bus.call(destination: Presence.mutter, path: Presence.mutterPath, interface: Presence.mutter,
                            member: member, arguments: arguments, timeoutMilliseconds: Presence.callTimeout)
    }

    private func mutterAppeared() {
        mutterOwner = try? sessionBus?.getNameOwner(Presence.mutter)
        idleWatchID = 0
        activeWatchID = 0
        addIdleWatch()
        if conditions.active["idle"] != nil { addActiveWatch() }
    }

    private func addIdleWatch() {
        guard idleMinutes > 0 else { return }
        do {
            idleWatchID = try callMutter("AddIdleWatch", [.uint64(UInt64(idleMinutes) * 60_000)]).first?.uint32Value ?? 0
        } catch {
            warn("GNOME's idle monitor refused an idle watch (\(error))")
        }
    }

    private func addActiveWatch() {
        activeWatchID = (try? callMutter("AddUserActiveWatch", []))?.first?.uint32Value ?? 0
    }

    private func desktopSignal(_ message: Message) {
        if let (name, owner) = Presence.nameOwnerChange(message), name == Presence.mutter {
            mutterOwner = nil
            idleWatchID = 0
            activeWatchID = 0
            if !owner.isEmpty { mutterAppeared() }
            return
        }
        guard let arguments = try? message.arguments() else { return }
        for saver in ["org.gnome.ScreenSaver", "org.freedesktop.ScreenSaver"]
        where message.isSignal(interface: saver, member: "ActiveChanged") {
            if let active = arguments.first?.boolValue { set(saver, away: active, reason: .lock, at: nowSeconds) }
            return
        }
        guard message.isSignal(interface: Presence.mutter, member: "WatchFired"), let owner = mutterOwner,
              message.sender == owner, let id = arguments.first?.uint32Value, id != 0 else { return }
        if id == idleWatchID {
            // Input stopped AwayMinutes ago.
            set("idle", away: true, reason: .idle, at: nowSeconds - Int64(idleMinutes) * 60)
            if activeWatchID == 0 { addActiveWatch() }
        } else if id == activeWatchID {
            activeWatchID = 0 // a user-active watch fires once
            set("idle", away: false, reason: .idle, at: nowSeconds)
        }
    }
}
