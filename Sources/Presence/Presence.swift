import DBusKit
import Glibc

/// Turns the desktop's signals into "left at T" / "back at T": systemd-logind on the system bus
/// (sleep with a delay inhibitor, the session's lock and activity), the screen savers and GNOME's
/// idle monitor on the session bus, and the kernel's clocks when no logind is there. Knows
/// nothing of time tracking. Event-driven only: no timer, no polling.
///
/// `report` runs on the main loop; a `left` for a suspend is reported while the inhibitor is
/// held, and the inhibitor is released only when `report` returns, so the receiver must store
/// the moment durably before returning.
public final class Presence {
    let clock: PresenceClock
    let report: (PresenceEvent) -> Void
    let sessionBus: BusConnection?
    let systemBus: BusConnection?
    var conditions = PresenceConditions()
    var idleMinutes: UInt32
    var signalHandlers: [(BusConnection, Int)] = []

    // systemd-logind
    var logindOwner: String?
    var sessionPath: String?
    var inhibitor: Int32 = -1
    var sleepingSince: (real: Int64, boot: Int64)?
    var logindSleptSinceKernelCheck = false

    // GNOME's idle monitor
    var mutterOwner: String?
    var idleWatchID: UInt32 = 0
    var activeWatchID: UInt32 = 0

    // The kernel
    var meter: SuspendMeter
    var clockWatch: ClockChangeWatch?

    /// Blocking calls to desktop services never wait longer than this.
    static let callTimeout: Int32 = 3000

    public init(sessionBus: BusConnection?, systemBus: BusConnection?, idleMinutes: UInt32,
                clock: PresenceClock = KernelClock(), report: @escaping (PresenceEvent) -> Void) {
        self.sessionBus = sessionBus
        self.systemBus = systemBus
        self.idleMinutes = idleMinutes
        self.clock = clock
        self.report = report
        meter = SuspendMeter(clock: clock)
    }

    /// Connects to whatever sources exist now and watches for the others to appear.
    public func start() {
        if let systemBus { startLogind(on: systemBus) }
        if let sessionBus { startDesktop(on: sessionBus) }
        clockWatch = ClockChangeWatch { [weak self] in self?.clockChanged() }
    }

    public func stop() {
        for (bus, id) in signalHandlers { bus.removeSignalHandler(id) }
        signalHandlers = []
        clockWatch?.stop()
        clockWatch = nil
        releaseInhibitor()
    }

    deinit { stop() }

    /// Whether some source says the person is away right now (e.g. the session is locked).
    public var personIsAway: Bool { conditions.isAway }

    /// Whether logind follows this agent's session, so that "not locked" can be believed.
    public var followsSession: Bool { logindOwner != nil && sessionPath != nil }

    /// Which sources were found (for the log).
    public var sourcesFound: [String] {
        var found: [String] = []
        if logindOwner != nil { found.append("logind" + (sessionPath.map { " (session \($0))" } ?? "")) }
        if mutterOwner != nil { found.append("Mutter idle monitor") }
        if clockWatch != nil { found.append("kernel clocks") }
        return found
    }

    /// Whether a sleep delay inhibitor is held now.
    public var holdsInhibitor: Bool { inhibitor >= 0 }

    var nowSeconds: Int64 { clock.realtime() / 1_000_000_000 }

    /// One source's state; reports when the person's overall state changed.
    func set(_ source: String, away: Bool, reason: PresenceReason, at time: Int64) {
        if let event = conditions.set(source, away: away, reason: reason, at: time) { report(event) }
    }

    func listen(on bus: BusConnection, _ handler: @escaping (Message) -> Void) {
        signalHandlers.append((bus, bus.onSignal(handler: handler)))
    }

    /// Adds a match rule; a bus that refuses it only loses that source.
    func match(_ bus: BusConnection, _ rule: String) {
        do { try bus.addMatch(rule) } catch { warn("could not watch \(rule): \(error)") }
    }

    func warn(_ message: String) {
        let line = "time-agent: presence: \(message)\n"
        _ = line.withCString { write(2, $0, strlen($0)) }
    }

    static func nameOwnerRule(_ name: String) -> String {
        "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(name)'"
    }

    /// (name, new owner) of a NameOwnerChanged signal from the bus itself.
    static func nameOwnerChange(_ message: Message) -> (String, String)? {
        guard message.isSignal(interface: "org.freedesktop.DBus", member: "NameOwnerChanged"),
              let arguments = try? message.arguments(), arguments.count == 3,
              let name = arguments[0].stringValue, let owner = arguments[2].stringValue else { return nil }
        return (name, owner)
    }

    // MARK: The kernel

    private func clockChanged() {
        let logindSaw = logindSleptSinceKernelCheck || sleepingSince != nil
        logindSleptSinceKernelCheck = false
        guard let suspend = meter.check(clock: clock) else { return }
        // The kernel's suspended time is used only when no logind signal came.
        guard logindOwner == nil, !logindSaw else { return }
        set("kernel", away: true, reason: .suspend, at: suspend.left)
        set("kernel", away: false, reason: .suspend, at: suspend.back)
    }
}
