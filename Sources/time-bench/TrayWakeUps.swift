import DBusKit
import Glibc

/// The tray's one allowed tick, measured against the agent's threads: none while idle with a
/// tray host on the bus, and the label's minute while a session runs. The host here does what
/// every real one does once an item registers: it owns the watcher's name and reads the item's
/// properties. (Without that read the item takes the host for one that lost it and registers
/// again, a few times: TrayItem's read deadline, which TrayProtocolTests cover.)
func measureTrayWakeUps(agent: Agent, client: BusConnection, address: String, window: Double,
                        add: (String, String, [Double]) -> Void) throws {
    let watcher = try BusConnection(address: address)
    defer { watcher.close() }
    try watcher.requestName("org.kde.StatusNotifierWatcher")
    usleep(500_000) // the agent sees the watcher appear and registers its item
    _ = try watcher.call(destination: "org.kde.StatusNotifierItem-\(agent.pid)-1", path: "/StatusNotifierItem",
                         interface: "org.freedesktop.DBus.Properties", member: "GetAll",
                         arguments: [.string("org.kde.StatusNotifierItem")])
    usleep(100_000)
    var before = agent.voluntarySwitches
    usleep(UInt32(window * 1_000_000))
    add("wake-ups over the window, idle, tray host registered", "switches", [Double(agent.voluntarySwitches - before)])
    _ = try call(client, "StartProject", [.string("Bench A")])
    usleep(300_000)
    before = agent.voluntarySwitches
    usleep(UInt32(window * 1_000_000))
    add(trayTickMetric, "switches", [Double(agent.voluntarySwitches - before)])
    _ = try call(client, "Stop")
}

let trayTickMetric = "tray label ticks over the window, running, host"

/// At most one tick a minute (a tick may cost two switches: the timer and the signals it sends).
func trayTickVerdict(_ median: Double, window: Double) -> String {
    let limit = 2 * (window / 60).rounded(.up)
    return median <= limit ? "ok (≤ \(Int(limit)): one a minute)" : "MISSED (goal ≤ \(Int(limit)): one a minute)"
}
