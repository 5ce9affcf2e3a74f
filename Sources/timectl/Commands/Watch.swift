import TimeClient
import CDBus
import DBusCore
import Glibc

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "watch",
        abstract: "Print the timer now and again on every change (for panels such as waybar).",
        discussion: """
            One line now, one whenever the agent's properties change, and, only while the timer runs,
            one when the elapsed time reaches the next whole minute. Nothing is polled: an idle or paused
            timer prints nothing until something changes. When the agent stops, a line with class
            'offline' is printed, and the properties are read again when it comes back.
            """,
        options: [.value("--format", valueName: "format", help: "waybar (default), json or plain.")])

    var style: PanelStatus.Style

    init(_ arguments: ParsedArguments) throws {
        let format = arguments.value("--format") ?? "waybar"
        guard let style = PanelStatus.Style(rawValue: format) else {
            throw arguments.usageError("unknown format '\(format)' (waybar, json or plain)")
        }
        self.style = style
    }

    func run(_ context: Context) throws {
        let watcher = Watcher(agent: try context.agent(), style: style, context: context)
        try watcher.run()
        if watcher.busLost {
            throw UnreachableError(message: "the session bus went away")
        }
    }
}

/// The watch loop: libdbus' own blocking dispatch on the connection, woken by the next minute tick
/// at the latest (no GLib: timectl starts faster without it, see scripts/bench.sh).
final class Watcher {
    let agent: AgentClient
    let style: PanelStatus.Style
    let context: Context
    var status = PanelStatus.offline
    /// When the next minute line is due (monotonic seconds); nil while not running.
    private var tick: Double?
    private var running = true
    private(set) var busLost = false

    init(agent: AgentClient, style: PanelStatus.Style, context: Context) {
        self.agent = agent
        self.style = style
        self.context = context
    }

    func run() throws {
        let bus = agent.bus
        do {
            try bus.addMatch("type='signal',sender='\(Time1.busName)',path='\(Time1.path)',"
                             + "interface='\(Time1.properties)',member='PropertiesChanged'")
            try bus.addMatch("type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
                             + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Time1.busName)'")
        } catch let error as BusError {
            throw translate(error)
        }
        bus.onSignal { [unowned self] message in self.handle(message) }
        bus.onDisconnect = { [unowned self] in
            self.busLost = true
            self.running = false
        }
        refresh(autoStart: true)
        while running, let raw = bus.raw {
            var timeout: Int32 = -1
            if let tick { timeout = Int32(clamping: Int(max(0, (tick - monotonicNow()) * 1000).rounded(.up))) }
            // Waits for traffic (or the timeout) and dispatches one message to the handlers above.
            if dbus_connection_read_write_dispatch(raw, timeout) == 0 {
                busLost = true
                break
            }
            if let tick, monotonicNow() >= tick {
                self.tick = nil
                emit()
                schedule()
            }
        }
    }

    private func handle(_ message: Message) {
        if message.isSignal(interface: "org.freedesktop.DBus", member: "NameOwnerChanged") {
            let args = (try? message.arguments()) ?? []
            guard args.count == 3, args[0].stringValue == Time1.busName else { return }
            if args[2].stringValue?.isEmpty ?? true {
                status = .offline
                emit()
                schedule()
            } else {
                refresh(autoStart: false)
            }
        } else if message.isSignal(interface: Time1.properties, member: "PropertiesChanged"),
                  message.path == Time1.path {
            let args = (try? message.arguments()) ?? []
            guard args.first?.stringValue == Time1.interface else { return }
            refresh(autoStart: false)
        }
    }

    /// Reads every property again (a signal may carry only some, or invalidate them).
    private func refresh(autoStart: Bool) {
        do {
            status = PanelStatus(properties: try agent.allProperties(autoStart: autoStart))
        } catch {
            status = .offline
        }
        emit()
        schedule()
    }

    private func emit() {
        if !output(status.render(style, now: context.preciseNow())) {
            running = false   // the panel went away
        }
    }

    /// The next line at the next whole minute of elapsed time while running, or of a focus
    /// phase's minutes left while one runs (a break pauses the session, not its count-down).
    private func schedule() {
        tick = nil
        let now = context.preciseNow()
        let delays = [status.isRunning ? status.secondsToNextMinute(at: now) : nil, status.secondsToNextFocusMinute(at: now)]
        guard let delay = delays.compactMap({ $0 }).min() else { return }
        tick = monotonicNow() + max(0, delay) + 0.05
    }
}

/// Seconds on the monotonic clock (minute ticks follow real elapsed time even when TIMECTL_NOW fixes the date).
private func monotonicNow() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}
