import DBusKit
import Foundation
import TestSupport
import XCTest

/// One test's world: a private bus, optionally Xvfb + dunst on it, dbus-monitor on the
/// notification interface, and a real time-agent started WITH notifications.
final class NotificationWorld {
    static let timerCategory = "string \"x-time-tracker.timer\""
    static let reminderCategory = "string \"x-time-tracker.reminder\""
    static let reportCategory = "string \"x-time-tracker.report\""

    let bus: PrivateBus
    let desktop: NotificationDesktop?
    let data: TemporaryDirectory
    let output: String
    let wire: BusMonitor
    var agent: AgentProcess!
    let client: BusConnection

    /// - Parameters:
    ///   - dunst: start Xvfb and dunst (false: no notification server at all).
    ///   - beforeAgent: runs on the bus before the agent starts (e.g. a hung server).
    ///   - prepareData: runs on the agent's data folder before the agent starts.
    init(_ label: String, dunst: Bool = true, environment: [String: String] = [:],
         beforeAgent: (PrivateBus) throws -> Void = { _ in }, prepareData: (String) throws -> Void = { _ in }) throws {
        output = try testOutputDirectory("AgentNotificationTests/" + label)
        bus = try PrivateBus()
        data = TemporaryDirectory("time-notify-data")
        var started: NotificationDesktop?
        var monitor: BusMonitor?
        var process: AgentProcess?
        var connection: BusConnection?
        do {
            started = dunst ? try NotificationDesktop(bus: bus) : nil
            monitor = try BusMonitor(bus: bus, rule: "interface=org.freedesktop.Notifications",
                                     output: output + "/notifications-wire.txt")
            guard monitor!.waitUntilListening() else { throw FixtureError("dbus-monitor did not start") }
            try beforeAgent(bus)
            try prepareData(data.file("data"))
            process = try AgentProcess(bus: bus, dataDirectory: data.file("data"), arguments: [], environment: environment)
            connection = try bus.connect()
        } catch {
            process?.terminate()
            monitor?.stop()
            started?.stop()
            bus.stop()
            data.remove()
            throw error
        }
        desktop = started
        wire = monitor!
        agent = process!
        client = connection!
    }

    func stop() {
        client.close()
        agent?.terminate()
        try? agent?.logText.write(toFile: output + "/agent.log", atomically: true, encoding: .utf8)
        wire.stop()
        desktop?.stop()
        bus.stop()
        data.remove()
    }

    // MARK: The agent

    @discardableResult
    func call(_ method: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try client.agent(method, arguments)
    }

    func state() throws -> String { try client.agentProperty("State").stringValue ?? "?" }

    func int64Property(_ name: String) throws -> Int64 {
        let value = try client.agentProperty(name)
        return value.int64Value ?? value.uint64Value.map { Int64($0) } ?? -1
    }

    func setReminderMinutes(_ minutes: UInt32) throws {
        _ = try client.call(destination: AgentProcess.busName, path: AgentProcess.path,
                            interface: "org.freedesktop.DBus.Properties", member: "Set",
                            arguments: [.string(AgentProcess.interface), .string("ReminderMinutes"), .variant(.uint32(minutes))],
                            timeoutMilliseconds: 10_000)
    }

    /// Seconds a call took.
    func timed(_ body: () throws -> Void) rethrows -> Double {
        let start = Date()
        try body()
        return Date().timeIntervalSince(start)
    }

    // MARK: The wire

    func notifies(category: String) -> [NotifyCall] {
        wire.notifyCalls.filter { $0.hint("category") == category }
    }
    var timerNotifies: [NotifyCall] { notifies(category: Self.timerCategory) }
    var reminderNotifies: [NotifyCall] { notifies(category: Self.reminderCategory) }

    func calls(_ member: String) -> [MonitoredMessage] {
        wire.messages.filter { $0.kind == "method call" && $0.member == member }
    }
    func signals(_ member: String) -> [MonitoredMessage] {
        wire.messages.filter { $0.kind == "signal" && $0.member == member }
    }

    /// Waits (generously) until `count` timer Notify calls were seen; returns the last one.
    func waitForTimerNotify(count: Int, file: StaticString = #filePath, line: UInt = #line) -> NotifyCall? {
        let seen = wait(seconds: 15) { timerNotifies.count >= count }
        XCTAssertTrue(seen, "expected \(count) timer Notify calls, saw \(timerNotifies.count); wire: \(wire.output)",
                      file: file, line: line)
        return seen ? timerNotifies[count - 1] : nil
    }

    /// dunst's count of displayed notifications, once it has settled on `expected` (or not).
    func displayed(settlingOn expected: Int) -> Int {
        guard let desktop else { return -1 }
        var last = -1
        wait(seconds: 10) { last = desktop.count(); return last == expected }
        return last
    }

    /// Picks the line of dunst's context menu that holds `actionKey`: dunst ends each line with
    /// "[id,key]", so ",stop]" cannot match the reminder's ",reminder-stop]".
    func invoke(actionKey: String) throws {
        guard let desktop else { throw FixtureError("no dunst in this world") }
        try desktop.invokeAction(",\(actionKey)]")
    }
}

/// "09:12": a Unix time on the agent's wall clock (AgentProcess fixes TZ to Europe/Berlin).
func berlinClock(_ unixSeconds: Int64) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "Europe/Berlin")
    formatter.dateFormat = "HH:mm"
    return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(unixSeconds)))
}

/// "1:30" as the weekly report writes durations.
func clockDuration(_ seconds: Int64) -> String {
    guard seconds > 0 else { return "-" }
    let minutes = seconds / 60
    return "\(minutes / 60):" + (minutes % 60 < 10 ? "0" : "") + "\(minutes % 60)"
}
