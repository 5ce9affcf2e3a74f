import DBusKit
import Glibc

/// systemd-logind on the system bus: sleep (with a delay inhibitor taken in advance), and the
/// agent's session, found with GetSession("auto") (a systemd user service has no session of its
/// own), followed through LockedHint, Active, Lock and Unlock.
extension Presence {
    static let logind = "org.freedesktop.login1"
    static let logindPath = "/org/freedesktop/login1"
    static let manager = "org.freedesktop.login1.Manager"
    static let session = "org.freedesktop.login1.Session"

    func startLogind(on bus: BusConnection) {
        match(bus, Presence.nameOwnerRule(Presence.logind))
        match(bus, "type='signal',sender='\(Presence.logind)',interface='\(Presence.manager)',member='PrepareForSleep'")
        match(bus, "type='signal',sender='\(Presence.logind)',interface='org.freedesktop.DBus.Properties',member='PropertiesChanged',path_namespace='/org/freedesktop/login1/session'")
        match(bus, "type='signal',sender='\(Presence.logind)',interface='\(Presence.session)'")
        listen(on: bus) { [weak self] message in self?.logindSignal(message) }
        if (try? bus.nameHasOwner(Presence.logind)) == true { logindAppeared(on: bus) }
    }

    private func logindAppeared(on bus: BusConnection) {
        logindOwner = try? bus.getNameOwner(Presence.logind)
        do {
            let reply = try bus.call(destination: Presence.logind, path: Presence.logindPath, interface: Presence.manager,
                                     member: "GetSession", arguments: [.string("auto")], timeoutMilliseconds: Presence.callTimeout)
            if case .objectPath(let path)? = reply.first { sessionPath = path }
        } catch {
            sessionPath = nil
            warn("logind has no session for this agent (\(error)); lock and unlock come from the screen saver or MarkAway")
        }
        takeInhibitor()
        if let sessionPath {
            for (property, source) in [("LockedHint", "lock"), ("Active", "inactive")] {
                guard let reply = try? bus.call(destination: Presence.logind, path: sessionPath,
                                                interface: "org.freedesktop.DBus.Properties", member: "Get",
                                                arguments: [.string(Presence.session), .string(property)],
                                                timeoutMilliseconds: Presence.callTimeout),
                      let value = reply.first?.variantValue?.boolValue else { continue }
                set(source, away: source == "lock" ? value : !value, reason: .lock, at: nowSeconds)
            }
        }
    }

    /// A `delay` inhibitor: logind waits for us (up to its InhibitDelayMaxSec) before sleeping.
    func takeInhibitor() {
        guard inhibitor < 0, let bus = systemBus, logindOwner != nil else { return }
        do {
            let reply = try bus.call(destination: Presence.logind, path: Presence.logindPath, interface: Presence.manager,
                                     member: "Inhibit",
                                     arguments: [.string("sleep"), .string("Time"),
                                                 .string("Noting when you left before the computer sleeps"), .string("delay")],
                                     timeoutMilliseconds: Presence.callTimeout)
            if case .unixFD(let fd)? = reply.first { inhibitor = fd }
        } catch {
            warn("logind refused a sleep inhibitor (\(error)); a suspend is still noticed on resume")
        }
    }

    func releaseInhibitor() {
        if inhibitor >= 0 { close(inhibitor); inhibitor = -1 }
    }

    private func logindSignal(_ message: Message) {
        if let (name, owner) = Presence.nameOwnerChange(message), name == Presence.logind {
            releaseInhibitor()
            logindOwner = nil
            sessionPath = nil
            if !owner.isEmpty, let bus = systemBus { logindAppeared(on: bus) }
            return
        }
        guard let owner = logindOwner, message.sender == owner, let arguments = try? message.arguments() else { return }
        if message.isSignal(interface: Presence.manager, member: "PrepareForSleep"), let going = arguments.first?.boolValue {
            if going {
                sleepingSince = (nowSeconds, clock.boottime())
                set("sleep", away: true, reason: .suspend, at: nowSeconds)
                // The away start is stored (report returned): logind may go on.
                releaseInhibitor()
            } else {
                // Measured on BOOTTIME: the wall clock may be corrected right after resume.
                let since = sleepingSince ?? (nowSeconds, clock.boottime())
                let back = since.real + (clock.boottime() - since.boot) / 1_000_000_000
                sleepingSince = nil
                logindSleptSinceKernelCheck = true
                set("sleep", away: false, reason: .suspend, at: back)
                takeInhibitor()
            }
            return
        }
        guard let sessionPath, message.path == sessionPath else { return }
        if message.isSignal(interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged"),
           arguments.first?.stringValue == Presence.session, let changed = arguments.count > 1 ? arguments[1].variantDictionary : nil {
            if let locked = changed["LockedHint"]?.boolValue { set("lock", away: locked, reason: .lock, at: nowSeconds) }
            if let active = changed["Active"]?.boolValue { set("inactive", away: !active, reason: .lock, at: nowSeconds) }
        } else if message.isSignal(interface: Presence.session, member: "Lock") {
            set("lock", away: true, reason: .lock, at: nowSeconds)
        } else if message.isSignal(interface: Presence.session, member: "Unlock") {
            set("lock", away: false, reason: .lock, at: nowSeconds)
        }
    }
}
