import CGLib
import DBusKit
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

/// The watch loop: one GLib main loop, the D-Bus connection on it, and at most one minute timer.
final class Watcher {
    let agent: AgentClient
    let style: PanelStatus.Style
    let context: Context
    var status = PanelStatus.offline
    private var tick: guint = 0
    private let loop: OpaquePointer
    private(set) var busLost = false

    init(agent: AgentClient, style: PanelStatus.Style, context: Context) {
        self.agent = agent
        self.style = style
        self.context = context
        loop = g_main_loop_new(nil, 0)
    }

    deinit { g_main_loop_unref(loop) }

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
            g_main_loop_quit(self.loop)
        }
        bus.attachToMainContext()
        refresh(autoStart: true)
        g_main_loop_run(loop)
        removeTick()
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

    fileprivate func emit() {
        if !output(status.render(style, now: context.preciseNow())) {
            g_main_loop_quit(loop)   // the panel went away
        }
    }

    /// One timeout at the next whole minute of elapsed time, only while running.
    fileprivate func schedule() {
        removeTick()
        guard status.isRunning else { return }
        let delay = status.secondsToNextMinute(at: context.preciseNow())
        let milliseconds = guint(max(0, delay) * 1000) + 50
        tick = g_timeout_add_full(0, milliseconds, watchTick, Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    fileprivate func ticked() {
        tick = 0
        emit()
        schedule()
    }

    private func removeTick() {
        if tick != 0 { g_source_remove(tick) }
        tick = 0
    }
}

private func watchTick(_ data: gpointer?) -> gboolean {
    guard let data else { return 0 }
    Unmanaged<Watcher>.fromOpaque(data).takeUnretainedValue().ticked()
    return 0   // G_SOURCE_REMOVE: ticked() scheduled the next one
}
