// A fake systemd-logind (on the bus named by DBUS_SYSTEM_BUS_ADDRESS) and a fake GNOME Mutter
// IdleMonitor (on DBUS_SESSION_BUS_ADDRESS), served over DBusKit for the away tests, so the
// agent's real signal paths run. A test drives it through io.github.timetracker.TestDesktop on
// the system bus: Sleep, SetLocked, FireIdle, FireActive, Vanish, Return, and reads back
// what the agent did (inhibitors held, watches added). With --status-notifier-watcher, a tray
// watcher instead (Watcher.swift).
import CGLib
import DBusKit
import Glibc

final class FakeDesktop {
    let system: BusConnection
    let session: BusConnection
    let sessionPath = "/org/freedesktop/login1/session/_31"
    var locked = false
    var active = true
    /// Read ends of the pipes whose write ends were handed out as inhibitors.
    var inhibitorPipes: [Int32] = []
    var inhibitCalls: UInt32 = 0
    var getSessionArguments: [String] = []
    var idleWatches: [UInt32: UInt64] = [:]
    var activeWatches: Set<UInt32> = []
    var nextWatch: UInt32 = 1

    init() throws {
        let systemAddress = String(cString: getenv("DBUS_SYSTEM_BUS_ADDRESS"))
        system = try BusConnection(address: systemAddress)
        session = try BusConnection.session()
        system.attachToMainContext(nil)
        session.attachToMainContext(nil)
        try system.export(object: ExportedObject(path: "/org/freedesktop/login1", interfaces: [manager]))
        try system.export(object: ExportedObject(path: sessionPath, interfaces: [sessionInterface]))
        try system.export(object: ExportedObject(path: "/io/github/timetracker/TestDesktop", interfaces: [control]))
        try session.export(object: ExportedObject(path: "/org/gnome/Mutter/IdleMonitor/Core", interfaces: [idleMonitor]))
        _ = try system.requestName("org.freedesktop.login1")
        _ = try session.requestName("org.gnome.Mutter.IdleMonitor")
        _ = try system.requestName("io.github.timetracker.TestDesktop")
    }

    var manager: Interface {
        Interface(name: "org.freedesktop.login1.Manager", methods: [
            Method(name: "GetSession", inArgs: [Argument("session_id", "s")], outArgs: [Argument("object_path", "o")]) { [unowned self] call in
                self.getSessionArguments.append(call.arguments.first?.stringValue ?? "")
                return [.objectPath(self.sessionPath)]
            },
            Method(name: "Inhibit", inArgs: [Argument("what", "s"), Argument("who", "s"), Argument("why", "s"), Argument("mode", "s")],
                   outArgs: [Argument("pipe_fd", "h")]) { [unowned self] call in
                self.inhibitCalls += 1
                var ends: [Int32] = [0, 0]
                guard pipe(&ends) == 0 else { throw BusError(name: BusError.failed, message: "pipe failed") }
                self.inhibitorPipes.append(ends[0])
                let writeEnd = ends[1]
                call.afterReply = { close(writeEnd) } // the reply holds its own copy
                return [.unixFD(writeEnd)]
            },
        ], signals: [Signal(name: "PrepareForSleep", args: [Argument("start", "b")])])
    }

    var sessionInterface: Interface {
        Interface(name: "org.freedesktop.login1.Session", properties: [
            Property(name: "LockedHint", signature: "b") { [unowned self] in .bool(self.locked) },
            Property(name: "Active", signature: "b") { [unowned self] in .bool(self.active) },
        ], signals: [Signal(name: "Lock"), Signal(name: "Unlock")])
    }

    var idleMonitor: Interface {
        Interface(name: "org.gnome.Mutter.IdleMonitor", methods: [
            Method(name: "AddIdleWatch", inArgs: [Argument("interval", "t")], outArgs: [Argument("id", "u")]) { [unowned self] call in
                let id = self.nextWatch
                self.nextWatch += 1
                self.idleWatches[id] = call.arguments.first?.uint64Value ?? 0
                return [.uint32(id)]
            },
            Method(name: "AddUserActiveWatch", outArgs: [Argument("id", "u")]) { [unowned self] _ in
                let id = self.nextWatch
                self.nextWatch += 1
                self.activeWatches.insert(id)
                return [.uint32(id)]
            },
            Method(name: "RemoveWatch", inArgs: [Argument("id", "u")]) { [unowned self] call in
                let id = call.arguments.first?.uint32Value ?? 0
                self.idleWatches[id] = nil
                self.activeWatches.remove(id)
                return []
            },
        ], signals: [Signal(name: "WatchFired", args: [Argument("id", "u")])])
    }

    /// Inhibitors whose every copy is still open (a closed one shows as a hang-up on the pipe).
    func heldInhibitors() -> UInt32 {
        inhibitorPipes = inhibitorPipes.filter { fd in
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, 0)
            if entry.revents & Int16(POLLHUP) != 0 { close(fd); return false }
            return true
        }
        return UInt32(inhibitorPipes.count)
    }

    var control: Interface {
        Interface(name: "io.github.timetracker.TestDesktop", methods: [
            Method(name: "Sleep", inArgs: [Argument("start", "b")]) { [unowned self] call in
                try self.system.emitSignal(path: "/org/freedesktop/login1", interface: "org.freedesktop.login1.Manager",
                                           name: "PrepareForSleep", arguments: [call.arguments[0]])
                return []
            },
            Method(name: "SetLocked", inArgs: [Argument("locked", "b")]) { [unowned self] call in
                self.locked = call.arguments[0].boolValue ?? false
                try self.system.emitPropertiesChanged(path: self.sessionPath, interface: "org.freedesktop.login1.Session",
                                                      changed: ["LockedHint": .bool(self.locked)])
                return []
            },
            Method(name: "SetActive", inArgs: [Argument("active", "b")]) { [unowned self] call in
                self.active = call.arguments[0].boolValue ?? true
                try self.system.emitPropertiesChanged(path: self.sessionPath, interface: "org.freedesktop.login1.Session",
                                                      changed: ["Active": .bool(self.active)])
                return []
            },
            Method(name: "FireIdle", outArgs: [Argument("interval", "t")]) { [unowned self] _ in
                guard let (id, interval) = self.idleWatches.min(by: { $0.key < $1.key }) else {
                    throw BusError(name: BusError.failed, message: "no idle watch was added")
                }
                try self.session.emitSignal(path: "/org/gnome/Mutter/IdleMonitor/Core", interface: "org.gnome.Mutter.IdleMonitor",
                                            name: "WatchFired", arguments: [.uint32(id)])
                return [.uint64(interval)]
            },
            Method(name: "FireActive") { [unowned self] _ in
                guard let id = self.activeWatches.min() else {
                    throw BusError(name: BusError.failed, message: "no user-active watch was added")
                }
                self.activeWatches.remove(id) // fires once, as Mutter's do
                try self.session.emitSignal(path: "/org/gnome/Mutter/IdleMonitor/Core", interface: "org.gnome.Mutter.IdleMonitor",
                                            name: "WatchFired", arguments: [.uint32(id)])
                return []
            },
            Method(name: "Inhibitors", outArgs: [Argument("held", "u"), Argument("calls", "u")]) { [unowned self] _ in
                [.uint32(self.heldInhibitors()), .uint32(self.inhibitCalls)]
            },
            Method(name: "GetSessionArguments", outArgs: [Argument("arguments", "as")]) { [unowned self] _ in
                [.stringArray(self.getSessionArguments)]
            },
            Method(name: "IdleWatches", outArgs: [Argument("intervals", "at"), Argument("active", "u")]) { [unowned self] _ in
                [.array(elementSignature: "t", self.idleWatches.keys.sorted().map { .uint64(self.idleWatches[$0]!) }),
                 .uint32(UInt32(self.activeWatches.count))]
            },
            // "logind" or "mutter" leaves its bus (a restart's first half; Mutter forgets its watches).
            Method(name: "Vanish", inArgs: [Argument("which", "s")]) { [unowned self] call in
                if call.arguments[0].stringValue == "mutter" {
                    _ = try self.session.releaseName("org.gnome.Mutter.IdleMonitor")
                    self.idleWatches = [:]
                    self.activeWatches = []
                } else {
                    _ = try self.system.releaseName("org.freedesktop.login1")
                }
                return []
            },
            Method(name: "Return", inArgs: [Argument("which", "s")]) { [unowned self] call in
                if call.arguments[0].stringValue == "mutter" {
                    _ = try self.session.requestName("org.gnome.Mutter.IdleMonitor")
                } else {
                    _ = try self.system.requestName("org.freedesktop.login1")
                }
                return []
            },
        ])
    }
}

signal(SIGPIPE, SIG_IGN)
func failed(_ error: any Error) -> Never {
    let line = "time-fake-desktop: \(error)\n"
    _ = line.withCString { write(2, $0, strlen($0)) }
    exit(1)
}
let loop = g_main_loop_new(nil, 0)
if CommandLine.arguments.dropFirst().first == "--status-notifier-watcher" {
    let watcher: FakeWatcher
    do { watcher = try FakeWatcher() } catch { failed(error) }
    watcher.session.onDisconnect = { g_main_loop_quit(loop) }
    g_main_loop_run(loop)
    withExtendedLifetime(watcher) {}
    exit(0)
}
let desktop: FakeDesktop
do {
    desktop = try FakeDesktop()
} catch {
    failed(error)
}
desktop.system.onDisconnect = { g_main_loop_quit(loop) }
desktop.session.onDisconnect = { g_main_loop_quit(loop) }
g_main_loop_run(loop)
withExtendedLifetime(desktop) {}
