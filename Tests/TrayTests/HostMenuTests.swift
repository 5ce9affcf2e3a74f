import DBusKit
import Foundation
import TestSupport
import XCTest

/// The menu a host shows after every kind of change, kept the way GNOME's AppIndicator and
/// Plasma keep it (HostMenuCache): it must be what the agent means, entry for entry. The
/// symptoms seen on the real hosts are each a check here: the title line, Stop greyed while
/// paused, the Undo line, Stop enabled again after idle, a radio mark, an entry shown again.
final class HostMenuTests: XCTestCase {
    var bus: PrivateBus!
    var data: TemporaryDirectory!
    var agent: AgentProcess!
    var client: BusConnection!
    var tray: TrayClient!
    var watcher: TestWatcher!
    var hosts: [HostMenuCache] = []

    override func setUpWithError() throws {
        bus = try PrivateBus()
        data = TemporaryDirectory("time-host-menu")
        agent = try AgentProcess(bus: bus, dataDirectory: data.file("data"))
        client = try bus.connect()
        tray = TrayClient(connection: client, name: "org.kde.StatusNotifierItem-\(agent.pid)-1")
        try waitFor("the tray item's name", seconds: 10) { try client.nameHasOwner(tray.name) }
        // The agent sends menu signals only while a host is registered.
        watcher = try TestWatcher(bus: bus)
        XCTAssertTrue(watcher.waitForRegistration(count: 1))
    }

    override func tearDown() {
        hosts.forEach { $0.stop() }
        watcher?.stop()
        agent?.terminate()
        client?.close()
        bus?.stop()
        data?.remove()
    }

    private func startHosts() throws {
        hosts = try [HostMenuCache(.appIndicator, bus: bus, itemName: tray.name), HostMenuCache(.plasma, bus: bus, itemName: tray.name)]
    }

    /// Waits until every host shows what a fresh read shows, and returns that menu.
    @discardableResult
    private func settled(_ step: String, file: StaticString = #filePath, line: UInt = #line) throws -> [HostMenuCache.Shown] {
        var truth: [HostMenuCache.Shown] = []
        for host in hosts {
            let agreed = TestSupport.wait(seconds: 10) {
                (try? host.catchUp()) != nil && { truth = (try? HostMenuCache.truth(tray)) ?? []; return host.shown() == truth }()
            }
            XCTAssertTrue(agreed, "after \(step), \(host.kind.rawValue) shows\n  \(host.shown())\nbut the agent means\n  \(truth)",
                          file: file, line: line)
        }
        return truth
    }

    private func entry(_ menu: [HostMenuCache.Shown], _ prefix: String) -> HostMenuCache.Shown? {
        menu.first { $0.label.hasPrefix(prefix) }
    }

    private func canUndo() throws -> String { try client.agentProperty("CanUndo").stringValue ?? "" }

    func testEveryHostShowsWhatTheAgentMeansAfterEveryKindOfChange() throws {
        for name in ["Writing", "Reading"] { _ = try client.agent("CreateProject", [.string(name), .string(""), .string("")]) }
        try startHosts()
        var menu = try settled("the start")
        XCTAssertEqual(menu.first?.label.hasPrefix("Not tracking (today "), true, "\(menu)")
        XCTAssertEqual(entry(menu, "Stop")?.enabled, false, "Stop is greyed while idle")

        _ = try client.agent("StartProject", [.string("Writing")])
        menu = try settled("start")
        XCTAssertEqual(menu.first?.label.hasPrefix("Writing — 0:00 (today "), true, "the title line after start: \(menu)")
        XCTAssertEqual(entry(menu, "Stop")?.enabled, true, "Stop enabled again after idle (Plasma kept it greyed)")
        XCTAssertNotNil(entry(menu, "Pause"))
        XCTAssertEqual(entry(menu, "Undo: ")?.label, "Undo: \(try canUndo())")

        _ = try client.agent("Pause")
        menu = try settled("pause")
        XCTAssertEqual(menu.first?.label.hasSuffix(" · paused"), true, "the title line while paused: \(menu)")
        XCTAssertEqual(entry(menu, "Stop")?.enabled, true, "Stop greyed while paused")
        XCTAssertNotNil(entry(menu, "Resume"))
        XCTAssertNil(entry(menu, "Pause"))
        let undoLine = try XCTUnwrap(entry(menu, "Undo: ")).label
        XCTAssertTrue(undoLine.hasPrefix("Undo: Paused Writing"), "the Undo line after the pause: \(undoLine)")
        XCTAssertEqual(undoLine, "Undo: \(try canUndo())")

        _ = try client.agent("Resume")
        menu = try settled("resume")
        XCTAssertEqual(menu.first?.label.hasSuffix(" · paused"), false, "\(menu)")
        XCTAssertNotNil(entry(menu, "Pause"))

        _ = try client.agent("StartProject", [.string("Reading")])
        menu = try settled("switch")
        XCTAssertEqual(menu.first?.label.hasPrefix("Reading — "), true, "\(menu)")
        let start = try XCTUnwrap(entry(menu, "Start")).submenu
        XCTAssertEqual(start.map(\.label), ["Reading", "Writing"], "the open project first, then by newest session")
        XCTAssertEqual(start.map(\.mark), [1, 0], "the radio mark follows the open project")

        _ = try client.call(destination: AgentProcess.busName, path: AgentProcess.path, interface: "org.freedesktop.DBus.Properties",
                            member: "Set", arguments: [.string(AgentProcess.interface), .string("ReminderMinutes"), .variant(.uint32(90))])
        menu = try settled("a reminder setting")
        let reminders = try XCTUnwrap(entry(menu, "Reminders")).submenu
        XCTAssertEqual(reminders.first { $0.mark == 1 }?.label, "Every 90 min")
        XCTAssertEqual(entry(menu, "Undo: ")?.label, "Undo: \(try canUndo())")

        _ = try client.agent("Undo")   // the reminder setting
        _ = try client.agent("Undo")   // the switch: Writing open again
        menu = try settled("undo")
        XCTAssertEqual(menu.first?.label.hasPrefix("Writing — "), true, "\(menu)")
        XCTAssertEqual(try XCTUnwrap(entry(menu, "Reminders")).submenu.first { $0.mark == 1 }?.label, "Every 60 min")
        XCTAssertEqual(try XCTUnwrap(entry(menu, "Start")).submenu.first?.label, "Writing", "the reopened project first")
        XCTAssertEqual(entry(menu, "Undo: ")?.label, "Undo: \(try canUndo())")

        _ = try client.agent("Stop")
        menu = try settled("stop")
        XCTAssertEqual(menu.first?.label.hasPrefix("Not tracking (today "), true, "\(menu)")
        XCTAssertEqual(entry(menu, "Stop")?.enabled, false)
        XCTAssertNotNil(entry(menu, "Continue Writing"))

        _ = try client.agent("Toggle")
        menu = try settled("a start from idle")
        XCTAssertEqual(entry(menu, "Stop")?.enabled, true, "Stop enabled again after idle")
    }

    /// Clicking an entry the host shows does what the method does (the GNOME check of Pause).
    func testPauseChosenFromTheKeptMenuPauses() throws {
        _ = try client.agent("CreateProject", [.string("Writing"), .string(""), .string("")])
        _ = try client.agent("StartProject", [.string("Writing")])
        try startHosts()
        try settled("start")
        let pause = try XCTUnwrap(try tray.layout().root.find("Pause"))
        _ = try tray.menu("Event", [.int32(pause.id), .string("clicked"), .variant(.int32(0)), .uint32(0)])
        try waitFor("paused from the menu", seconds: 10) { try client.agentProperty("State") == .string("paused") }
        let menu = try settled("Pause from the menu")
        XCTAssertEqual(entry(menu, "Stop")?.enabled, true)
        XCTAssertEqual(menu.first?.label.hasSuffix(" · paused"), true)
    }

    /// `Open Time` is hidden while no application `io.github.timetracker.Time` can be started,
    /// shown once one can (a host about to open the menu makes the agent look again), and
    /// activates it through org.freedesktop.Application.Activate, so the bus starts it. The
    /// application here is a real GApplication (Python's GIO), the shape the window has.
    func testOpenTimeAppearsOnceTheWindowIsInstalledAndActivatesIt() throws {
        try startHosts()
        let hidden = try XCTUnwrap(try tray.layout().root.find("Open Time"), "the entry keeps its place while hidden")
        XCTAssertEqual(hidden.properties["visible"], .bool(false))
        var menu = try settled("the start without a window")
        XCTAssertNil(entry(menu, "Open Time"), "no window installed: nothing to open")
        XCTAssertEqual(try tray.menu("AboutToShow", [.int32(0)])[0], .bool(false), "nothing changed")

        try FileManager.default.createDirectory(atPath: data.file("window"), withIntermediateDirectories: true)
        let window = try WindowStandIn(bus: bus, folder: data.file("window"))

        XCTAssertEqual(try tray.menu("AboutToShow", [.int32(0)])[0], .bool(true), "the menu changed: the host reads it again")
        menu = try settled("installing the window")
        let open = try XCTUnwrap(entry(menu, "Open Time"), "shown again on every host (visible back at its default)")
        XCTAssertTrue(open.enabled)
        let labels = menu.map(\.label)
        XCTAssertEqual(labels.firstIndex(of: "Open Time"), labels.firstIndex(of: "Show this week").map { $0 + 1 },
                       "the contract's order: Show this week, then Open Time")

        let id = try XCTUnwrap(try tray.layout().root.find("Open Time")).id
        _ = try tray.menu("Event", [.int32(id), .string("clicked"), .variant(.int32(0)), .uint32(0)])
        try waitFor("the window activated", seconds: 20) { window.count == 1 }
        XCTAssertTrue(try client.nameHasOwner("io.github.timetracker.Time"), "started by D-Bus activation")
        XCTAssertFalse(agent.logText.contains("warning"), agent.logText)
    }
}
