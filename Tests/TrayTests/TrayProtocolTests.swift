import DBusKit
import Foundation
import TestSupport
import XCTest

/// The tray item of a real agent, driven as the hosts drive it: a watcher that comes and goes,
/// GetAll with exact types, GetLayout per submenu with depth 1 (KDE), GetGroupProperties with an
/// empty list (libdbusmenu), Event and EventGroup "clicked", AboutToShow(Group).
final class TrayProtocolTests: XCTestCase {
    var bus: PrivateBus!
    var data: TemporaryDirectory!
    var agent: AgentProcess!
    var client: BusConnection!
    var tray: TrayClient!

    override func setUpWithError() throws {
        bus = try PrivateBus()
        data = TemporaryDirectory("time-tray")
    }

    override func tearDown() {
        agent?.terminate()
        client?.close()
        bus?.stop()
        data?.remove()
    }

    private func startAgent(_ environment: [String: String] = [:]) throws {
        agent = try AgentProcess(bus: bus, dataDirectory: data.file("data"), environment: environment)
        client = try bus.connect()
        tray = TrayClient(connection: client, name: "org.kde.StatusNotifierItem-\(agent.pid)-1")
        try waitFor("the tray item's name", seconds: 10) { try client.nameHasOwner(tray.name) }
    }

    private func state() throws -> String { try client.agentProperty("State").stringValue ?? "" }

    func testRegistersWithEveryWatcherThatAppearsAndNeverComplainsWithoutOne() throws {
        try startAgent()
        let first = try TestWatcher(bus: bus)
        XCTAssertTrue(first.waitForRegistration(count: 1), "the agent did not register with a watcher that appeared")
        XCTAssertEqual(first.registered, [tray.name])
        first.stop()   // the panel restarts
        let second = try TestWatcher(bus: bus)
        defer { second.stop() }
        XCTAssertTrue(second.waitForRegistration(count: 1), "the agent did not register again after the watcher restarted")
        XCTAssertEqual(second.registered, [tray.name])
        XCTAssertFalse(agent.logText.lowercased().contains("serviceunknown"), agent.logText)
        XCTAssertFalse(agent.logText.contains("warning"), agent.logText)
    }

    /// A host can lose an item that registers at the instant it starts (GNOME's AppIndicator
    /// failed to set up its proxy and never read it): an item nobody read a few seconds after
    /// registering registers again, a bounded number of times; one that was read does not.
    func testRegistersAgainWhileNoHostReadsIt() throws {
        try startAgent(["TIME_AGENT_TRAY_READ_SECONDS": "1"])
        let deaf = try TestWatcher(bus: bus, readsItems: false)
        XCTAssertTrue(deaf.waitForRegistration(count: 5, seconds: 20), "registered \(deaf.registered.count) time(s) with a watcher whose host never read the item")
        XCTAssertTrue(deaf.registered.allSatisfy { $0 == tray.name })
        XCTAssertFalse(deaf.waitForRegistration(count: 6, seconds: 3), "a watcher with no host behind it is not asked forever (no wake-ups)")
        deaf.stop()

        // A host that comes late (a watcher restart) reads at the second attempt: no third.
        let late = try TestWatcher(bus: bus, readsItems: false)
        XCTAssertTrue(late.waitForRegistration(count: 2, seconds: 15))
        _ = try tray.itemProperties()
        XCTAssertFalse(late.waitForRegistration(count: 3, seconds: 3), "registered again after a host read the item")
        late.stop()

        let reading = try TestWatcher(bus: bus)
        defer { reading.stop() }
        XCTAssertTrue(reading.waitForRegistration(count: 1))
        XCTAssertFalse(reading.waitForRegistration(count: 2, seconds: 3), "registered twice with a watcher whose host read the item")

        // The watcher drops the item (GNOME destroys one whose proxy failed): it asks again.
        try reading.drop(tray.name)
        XCTAssertTrue(reading.waitForRegistration(count: 2, seconds: 5), "not registered again after the watcher dropped the item")
        try reading.drop("org.kde.StatusNotifierItem-1-1/StatusNotifierItem")
        XCTAssertFalse(reading.waitForRegistration(count: 3, seconds: 2), "registered again when another item was dropped")
        try reading.drop(tray.name + "/StatusNotifierItem")   // KDE's form
        XCTAssertTrue(reading.waitForRegistration(count: 3, seconds: 5))
    }

    func testItemPropertiesHaveTheTypesHostsExpect() throws {
        try startAgent()
        let properties = try tray.itemProperties()
        let expected = ["Category": "s", "Id": "s", "Title": "s", "Status": "s", "IconName": "s", "IconThemePath": "s",
                        "IconPixmap": "a(iiay)", "AttentionIconName": "s", "ToolTip": "(sa(iiay)ss)", "ItemIsMenu": "b",
                        "Menu": "o", "XAyatanaLabel": "s", "WindowId": "i"]
        for (name, signature) in expected {
            XCTAssertEqual(properties[name]?.signature, signature, name)
            XCTAssertEqual(try tray.itemProperty(name).signature, signature, "Get \(name)")
        }
        XCTAssertEqual(properties["Category"], .string("ApplicationStatus"))
        XCTAssertEqual(properties["Status"], .string("Active"), "an idle timer must not be Passive: hosts hide it")
        XCTAssertEqual(properties["Menu"], .objectPath("/MenuBar"))
        XCTAssertEqual(properties["ItemIsMenu"], .bool(false))
        XCTAssertEqual(properties["IconThemePath"], .string(""), "a build tree has no icons beside the agent")
        XCTAssertEqual(properties["IconName"], .string("io.github.timetracker.Time-idle-symbolic"))
        XCTAssertEqual(properties["IconAccessibleDesc"], .string("Time: not tracking"))
        XCTAssertFalse(properties["Id"]?.stringValue?.isEmpty ?? true)
        // Pixmaps: 16, 22 and 32 px, 4 bytes a pixel.
        let pixmaps = properties["IconPixmap"]!.arrayValue!.map { value -> (Int32, Int) in
            guard case .structure(let fields) = value else { return (0, 0) }
            return (fields[0].int32Value!, fields[2].arrayValue!.count)
        }
        XCTAssertEqual(pixmaps.map(\.0), [16, 22, 32])
        XCTAssertEqual(pixmaps.map(\.1), [16 * 16 * 4, 22 * 22 * 4, 32 * 32 * 4])
        for path in ["/StatusNotifierItem", "/MenuBar"] {
            let xml = try client.call(destination: tray.name, path: path, interface: "org.freedesktop.DBus.Introspectable",
                                      member: "Introspect")[0].stringValue!
            XCTAssertTrue(xml.contains(path == "/MenuBar" ? "com.canonical.dbusmenu" : "org.kde.StatusNotifierItem"), xml)
        }
    }

    func testMenuFollowsTheTimerAndItsClicksChangeIt() throws {
        try startAgent()
        _ = try client.agent("CreateProject", [.string("my_project"), .string("#3465a4"), .string("")])
        _ = try client.agent("CreateProject", [.string("Writing & <Notes>"), .string("#cc0000"), .string("")])
        _ = try client.agent("StartProject", [.string("my_project")])
        let monitor = try bus.connect()
        defer { monitor.close() }

        var (revision, root) = try tray.layout()
        XCTAssertEqual(root.id, 0)
        XCTAssertEqual(root.properties["children-display"], .string("submenu"))
        let title = root.children[0]
        XCTAssertEqual(title.properties["enabled"], .bool(false))
        XCTAssertTrue(title.label!.hasPrefix("my__project — 0:00 (today 0:00)"), title.label!)
        XCTAssertTrue(root.labels.contains("Pause"))
        XCTAssertFalse(root.labels.contains("Resume"), "never both Pause and Resume")
        XCTAssertEqual(root.find("Stop")!.properties["enabled"], .bool(true),
                       "Stop is enabled while a session is open, and says so: a host keeps a false it saw")
        let start = root.find("Start")!
        XCTAssertEqual(start.properties["children-display"], .string("submenu"))
        XCTAssertEqual(start.labels.first, "my__project", "the open (most recent) project first")
        XCTAssertEqual(start.children.first?.properties["toggle-type"], .string("radio"))
        XCTAssertEqual(start.children.first?.properties["toggle-state"], .int32(1))
        XCTAssertEqual(start.children.last?.properties["toggle-state"], .int32(0))
        let reminders = root.find("Reminders")!
        XCTAssertEqual(reminders.labels, ["Off", "Every 30 min", "Every 60 min", "Every 90 min", "Every 120 min", "When not tracking"])
        XCTAssertEqual(reminders.find("When not tracking")?.labels, ["Off", "After 15 min", "After 30 min", "After 60 min"])
        XCTAssertEqual(reminders.find("When not tracking")?.children.first?.properties["toggle-state"], .int32(1), "off by default")
        XCTAssertEqual(reminders.find("Every 60 min")?.properties["toggle-state"], .int32(1))

        // KDE: one level at a time.
        let (_, startOnly) = try tray.layout(parent: start.id, depth: 1)
        XCTAssertEqual(startOnly.labels, start.labels)
        let (_, shallow) = try tray.layout(parent: 0, depth: 1)
        XCTAssertTrue(shallow.find("Start")!.children.isEmpty, "depth 1 leaves the submenu's entries out")
        let (_, labelsOnly) = try tray.layout(parent: 0, depth: -1, names: ["label"])
        XCTAssertEqual(Set(labelsOnly.children[0].properties.keys), ["label"])

        // libdbusmenu: every item's properties with an empty list.
        let group = try tray.menu("GetGroupProperties", [.array(elementSignature: "i", []), .stringArray([])])[0].arrayValue!
        XCTAssertGreaterThan(group.count, 10)
        XCTAssertEqual(try tray.menu("GetProperty", [.int32(title.id), .string("enabled")])[0], .variant(.bool(false)))
        for (name, value) in [("Version", DBusValue.uint32(3)), ("TextDirection", .string("ltr")), ("Status", .string("normal"))] {
            let got = try client.call(destination: tray.name, path: "/MenuBar", interface: "org.freedesktop.DBus.Properties",
                                      member: "Get", arguments: [.string("com.canonical.dbusmenu"), .string(name)])[0]
            XCTAssertEqual(got, .variant(value), name)
        }
        XCTAssertEqual(try tray.menu("AboutToShow", [.int32(0)])[0], .bool(false))
        let aboutGroup = try tray.menu("AboutToShowGroup", [.array(elementSignature: "i", [.int32(0), .int32(start.id), .int32(4242)])])
        XCTAssertEqual(aboutGroup[1], .array(elementSignature: "i", [.int32(4242)]))

        // Event "clicked" on Pause (what KDE and GNOME send).
        let pause = root.find("Pause")!
        _ = try tray.menu("Event", [.int32(pause.id), .string("clicked"), .variant(.int32(0)), .uint32(0)])
        try waitFor("paused by the menu", seconds: 10) { try state() == "paused" }
        var newRevision: UInt32 = 0
        try waitFor("a new layout revision", seconds: 10) { (newRevision, root) = try tray.layout(); return newRevision > revision }
        revision = newRevision
        XCTAssertTrue(root.labels.contains("Resume"))
        XCTAssertFalse(root.labels.contains("Pause"))
        XCTAssertEqual(try tray.itemProperty("IconName"), .string("io.github.timetracker.Time-paused-symbolic"))

        // EventGroup (libdbusmenu hosts: XFCE, waybar), with one unknown id reported back.
        let resume = root.find("Resume")!
        let errors = try tray.menu("EventGroup", [.array(elementSignature: "(isvu)", [
            .structure([.int32(resume.id), .string("clicked"), .variant(.int32(0)), .uint32(0)]),
            .structure([.int32(9999), .string("clicked"), .variant(.int32(0)), .uint32(0)]),
        ])])
        XCTAssertEqual(errors[0], .array(elementSignature: "i", [.int32(9999)]))
        try waitFor("resumed by the menu", seconds: 10) { try state() == "running" }

        // A menu entry for another project switches to it; the radio mark follows.
        let other = try tray.layout().root.find("Writing & <Notes>")!
        _ = try tray.menu("Event", [.int32(other.id), .string("clicked"), .variant(.int32(0)), .uint32(0)])
        try waitFor("switched by the menu", seconds: 10) { try client.agentProperty("Project") == .string("Writing & <Notes>") }
        try waitFor("the radio mark on the open project", seconds: 10) {
            try tray.layout().root.find("Writing & <Notes>")?.properties["toggle-state"] == .int32(1)
        }
        let tooltip = try tray.itemProperty("ToolTip")
        guard case .structure(let fields) = tooltip else { return XCTFail("ToolTip is not a structure") }
        XCTAssertTrue(fields[3].stringValue!.contains("Writing &amp; &lt;Notes&gt;"), fields[3].stringValue!)

        // Reminders submenu: the same setting as the ReminderMinutes property.
        let ninety = try tray.layout().root.find("Every 90 min")!
        _ = try tray.menu("Event", [.int32(ninety.id), .string("clicked"), .variant(.int32(0)), .uint32(0)])
        try waitFor("reminders every 90 min", seconds: 10) { try client.agentProperty("ReminderMinutes") == .uint32(90) }
        // And its not-tracking reminder: the same setting as UntrackedReminderMinutes.
        let fifteen = try tray.layout().root.find("After 15 min")!
        _ = try tray.menu("Event", [.int32(fifteen.id), .string("clicked"), .variant(.int32(0)), .uint32(0)])
        try waitFor("the not-tracking reminder after 15 min", seconds: 10) { try client.agentProperty("UntrackedReminderMinutes") == .uint32(15) }

        // Stop: idle, Stop disabled, "Continue" offered.
        _ = try tray.menu("Event", [.int32(try tray.layout().root.find("Stop")!.id), .string("clicked"), .variant(.int32(0)), .uint32(0)])
        try waitFor("stopped by the menu", seconds: 10) { try state() == "idle" }
        try waitFor("the idle menu", seconds: 10) { try tray.layout().root.find("Continue Writing & <Notes>") != nil }
        root = try tray.layout().root
        XCTAssertEqual(root.find("Stop")!.properties["enabled"], .bool(false))
        XCTAssertTrue(root.children[0].label!.hasPrefix("Not tracking (today "), root.children[0].label!)
    }

    /// A change of labels, marks or enabled states is an ItemsPropertiesUpdated (GNOME re-reads
    /// nothing on LayoutUpdated); entries coming or going is a LayoutUpdated with a higher revision.
    /// GNOME's AppIndicator extension clears the Id and Menu it holds when it sees our bus name
    /// change owner and asks for them alone; its own refresh then fails, and an item without them
    /// never gets an icon, label or menu. A Get of the Id alone is answered, then both are told
    /// again in a PropertiesChanged its D-Bus proxy applies; GetAll and other Gets send nothing.
    func testTellsIdAndMenuAgainToAHostThatAsksForTheIdAlone() throws {
        try startAgent()
        let signals = try MenuSignals(bus: bus, interface: "org.freedesktop.DBus.Properties", path: "/StatusNotifierItem")
        defer { signals.stop() }
        let id = try tray.itemProperties()["Id"]
        _ = try tray.itemProperty("Title")
        _ = try tray.itemProperty("Menu")
        XCTAssertFalse(signals.waitFor("PropertiesChanged", seconds: 1), "GetAll or a Get of another property sent PropertiesChanged: \(signals.received)")

        XCTAssertEqual(try tray.itemProperty("Id"), id)
        XCTAssertTrue(signals.waitFor("PropertiesChanged"), "the Id and Menu were not told again after a Get of the Id")
        let told = try XCTUnwrap(signals.named("PropertiesChanged").first)
        XCTAssertEqual(told.count, 3)
        XCTAssertEqual(told[0], .string("org.kde.StatusNotifierItem"))
        XCTAssertEqual(told[1].variantDictionary, ["Id": try XCTUnwrap(id), "Menu": .objectPath("/MenuBar")])
        XCTAssertEqual(told[2].arrayValue, [])
        XCTAssertFalse(signals.waitFor("PropertiesChanged", count: 2, seconds: 1), "told more than once for one Get")
    }

    func testChangesAreAnnouncedTheWayHostsListen() throws {
        try startAgent()
        // A host listens once a watcher has the item registered (without one, nothing is sent).
        let watcher = try TestWatcher(bus: bus)
        defer { watcher.stop() }
        XCTAssertTrue(watcher.waitForRegistration(count: 1))
        _ = try client.agent("CreateProject", [.string("Writing"), .string(""), .string("")])
        _ = try client.agent("StartProject", [.string("Writing")])
        let signals = try MenuSignals(bus: bus)
        defer { signals.stop() }
        let before = try tray.layout()
        let ninety = try XCTUnwrap(before.root.find("Every 90 min")).id
        let sixty = try XCTUnwrap(before.root.find("Every 60 min")).id
        signals.reset()

        _ = try client.call(destination: AgentProcess.busName, path: AgentProcess.path, interface: "org.freedesktop.DBus.Properties",
                            member: "Set", arguments: [.string(AgentProcess.interface), .string("ReminderMinutes"), .variant(.uint32(90))])
        XCTAssertTrue(signals.waitFor("ItemsPropertiesUpdated"), "no ItemsPropertiesUpdated for the reminder marks")
        let updated = try XCTUnwrap(signals.named("ItemsPropertiesUpdated").first?.first?.arrayValue)
        var states: [Int32: DBusValue] = [:]
        for entry in updated {
            guard case .structure(let fields) = entry, let id = fields[0].int32Value else { continue }
            states[id] = fields[1].variantDictionary?["toggle-state"]
        }
        XCTAssertEqual(states[ninety], .int32(1))
        XCTAssertEqual(states[sixty], .int32(0))
        XCTAssertTrue(signals.named("LayoutUpdated").isEmpty, "only marks changed: no new layout")
        XCTAssertEqual(try tray.layout().revision, before.revision)

        signals.reset()
        _ = try client.agent("Pause")
        XCTAssertTrue(signals.waitFor("LayoutUpdated"), "Pause became Resume without a LayoutUpdated")
        let layoutUpdated = try XCTUnwrap(signals.named("LayoutUpdated").first)
        XCTAssertEqual(layoutUpdated[1], .int32(0), "the whole menu (parent 0)")
        XCTAssertGreaterThan(try XCTUnwrap(layoutUpdated[0].uint32Value), before.revision)
        XCTAssertEqual(try tray.layout().revision, layoutUpdated[0].uint32Value)
    }

    func testClicksOnTheIconToggleAndScrollingChangesNothing() throws {
        try startAgent()
        _ = try client.agent("CreateProject", [.string("Writing"), .string(""), .string("")])
        _ = try client.agent("StartProject", [.string("Writing")])
        _ = try tray.item("ProvideXdgActivationToken", [.string("token-from-plasma")])
        _ = try tray.item("Activate", [.int32(10), .int32(20)])
        try waitFor("paused by a left click", seconds: 10) { try state() == "paused" }
        _ = try tray.item("Activate", [.int32(0), .int32(0)])
        try waitFor("running again by a left click", seconds: 10) { try state() == "running" }
        _ = try tray.item("Scroll", [.int32(120), .string("Vertical")])
        _ = try tray.item("Scroll", [.int32(-120), .string("horizontal")])
        _ = try tray.item("ContextMenu", [.int32(0), .int32(0)])
        _ = try tray.item("SecondaryActivate", [.int32(0), .int32(0)])
        _ = try tray.item("XAyatanaSecondaryActivate", [.uint32(0)])
        XCTAssertEqual(try state(), "running")
        XCTAssertEqual(try tray.itemProperty("IconName"), .string("io.github.timetracker.Time-running-symbolic"))
        XCTAssertEqual(try tray.itemProperty("XAyatanaLabel"), .string("▶ 0:00"))
    }

    func testNoTrayOptionServesNoItem() throws {
        agent = try AgentProcess(bus: bus, dataDirectory: data.file("data"), arguments: ["--no-notifications", "--no-tray"])
        client = try bus.connect()
        let watcher = try TestWatcher(bus: bus)
        defer { watcher.stop() }
        XCTAssertFalse(try client.nameHasOwner("org.kde.StatusNotifierItem-\(agent.pid)-1"))
        XCTAssertFalse(watcher.waitForRegistration(count: 1, seconds: 2))
    }
}
