import DBusKit
import Foundation
import TestSupport
import XCTest

/// The one tick the design allows: the label's minute, only while a session runs and a host is
/// registered. Minutes are shortened to 2 s (TIME_AGENT_MINUTE_SECONDS) so the test is quick;
/// reminders are off so that only the tray could wake the agent.
final class TrayWakeUpTests: XCTestCase {
    func testTicksOnlyWhileRunningWithAHost() throws {
        let bus = try PrivateBus()
        let data = TemporaryDirectory("time-tray-wake")
        let agent = try AgentProcess(bus: bus, dataDirectory: data.file("data"), environment: ["TIME_AGENT_MINUTE_SECONDS": "2"])
        let client = try bus.connect()
        defer { agent.terminate(); client.close(); bus.stop(); data.remove() }
        _ = try client.call(destination: AgentProcess.busName, path: AgentProcess.path, interface: "org.freedesktop.DBus.Properties",
                            member: "Set", arguments: [.string(AgentProcess.interface), .string("ReminderMinutes"), .variant(.uint32(0))])
        _ = try client.agent("CreateProject", [.string("Writing"), .string(""), .string("")])

        func wakeUps(over seconds: UInt32) -> Int {
            usleep(500_000)   // replies and after-reply work settle
            let before = switches(of: agent.pid)
            sleep(seconds)
            return switches(of: agent.pid) - before
        }

        // Running, no host: nothing ticks.
        _ = try client.agent("StartProject", [.string("Writing")])
        XCTAssertEqual(wakeUps(over: 5), 0, "a running agent with no tray host woke up")

        // A host appears: the label's minute ticks (2 s here), a few times in 7 s, no more.
        let watcher = try TestWatcher(bus: bus)
        defer { watcher.stop() }
        XCTAssertTrue(watcher.waitForRegistration(count: 1))
        let running = wakeUps(over: 7)
        XCTAssertGreaterThanOrEqual(running, 3, "the label did not tick once a (shortened) minute")
        XCTAssertLessThanOrEqual(running, 12, "more wake-ups than one a (shortened) minute")

        // Idle with a host registered: nothing ticks.
        _ = try client.agent("Stop")
        XCTAssertEqual(wakeUps(over: 5), 0, "an idle agent with a tray host woke up")
    }

    private func switches(of pid: Int32) -> Int {
        var total = 0
        for task in (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? [] {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)) ?? ""
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                total += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        return total
    }
}
