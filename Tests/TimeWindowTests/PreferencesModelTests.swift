import DBusCore
import Glibc
import TimeClient
@testable import TimeWindow
import XCTest

/// Preferences read from the agent's properties, the calls its rows make, and the login start
/// read from and written to the autostart entries (real files in a temporary folder).
final class PreferencesModelTests: XCTestCase {
    func testRowsReadTheAgentsProperties() {
        let model = PreferencesModel(AgentProperties([
            "ReminderMinutes": .uint32(45), "UntrackedReminderMinutes": .uint32(0), "AwayMinutes": .uint32(7),
            "WeeklyTarget": .uint64(37 * 3600 + 30 * 60), "Currency": .string("EUR"), "SyncFolder": .string(""),
            "SyncState": .string("off"), "StorageState": .string("ok"),
        ]))
        XCTAssertEqual([model.reminderMinutes, model.untrackedMinutes, model.awayMinutes], [45, 0, 7])
        XCTAssertEqual(model.targetHours, 37)
        XCTAssertEqual(model.targetMinutes, 30)
        XCTAssertEqual(model.currency, "EUR")
        XCTAssertNil(model.focus, "an agent without the focus timer's properties: the Focus group is hidden")
        XCTAssertFalse(model.syncOn)
        XCTAssertEqual(model.syncStatus, "Off")
    }

    func testFocusSettingsShowOnlyWhenTheAgentHasThemAll() {
        var values: [String: DBusValue] = ["FocusMinutes": .uint32(50), "BreakMinutes": .uint32(10), "LongBreakMinutes": .uint32(20),
                                           "LongBreakEvery": .uint32(0), "FocusAutoStart": .bool(true), "PauseInBreaks": .bool(false)]
        let focus = PreferencesModel(AgentProperties(values)).focus
        XCTAssertEqual(focus, PreferencesModel.Focus(focusMinutes: 50, breakMinutes: 10, longBreakMinutes: 20, longBreakEvery: 0,
                                                     autoStart: true, pauseInBreaks: false))
        values["PauseInBreaks"] = nil
        XCTAssertNil(PreferencesModel(AgentProperties(values)).focus)
    }

    func testSyncShowsTheAgentsWordsAndTheDevicesNewestFirst() {
        let devices = DBusValue.array(elementSignature: "(ssx)", [
            .structure([.string("a1"), .string("laptop"), .int64(1_000)]),
            .structure([.string("b2"), .string("desk"), .int64(2_000)]),
        ])
        let model = PreferencesModel(AgentProperties(["SyncFolder": .string("/home/u/Sync/time"), "SyncState": .string("error"),
                                                      "SyncMessage": .string("The folder is gone; plug the disk in."), "Devices": devices]))
        XCTAssertTrue(model.syncOn)
        XCTAssertEqual(model.syncStatus, "Not working: The folder is gone; plug the disk in.")
        XCTAssertEqual(model.devices.map(\.name), ["desk", "laptop"])
    }

    func testEachChangeIsOneCallWithTheContractsTypes() {
        XCTAssertEqual(PreferencesModel.weeklyTarget(hours: 40, minutes: 15).uint64Value, 40 * 3600 + 15 * 60)
        XCTAssertEqual(PreferencesModel.currency(" chf ").stringValue, "CHF")
        XCTAssertEqual(PreferencesModel.enableSync(folder: "/s", device: "desk"),
                       AgentRequest("EnableSync", [.string("/s"), .string("desk")]))
        XCTAssertEqual(PreferencesModel.exportEverything.arguments.first?.stringValue, "json")
    }

    // MARK: Start at login

    private let system = """
        # A comment
        [Desktop Entry]
        Type=Application
        Name=Time agent
        Exec=/usr/bin/time-agent --activate
        X-GNOME-Autostart-enabled=true

        """

    func testTheUsersEntryOverridesTheSystemsAndHiddenTurnsItOff() {
        let onlySystem = LoginStart(userPath: "/u/time-agent.desktop", userText: nil, systemPath: "/etc/xdg/autostart/time-agent.desktop",
                                    systemText: system)
        XCTAssertTrue(onlySystem.isOn)
        XCTAssertEqual(onlySystem.summary, "On: /etc/xdg/autostart/time-agent.desktop")
        let hidden = LoginStart(userPath: "/u/time-agent.desktop", userText: "[Desktop Entry]\nHidden=true\n",
                                systemPath: "/etc/xdg/autostart/time-agent.desktop", systemText: system)
        XCTAssertFalse(hidden.isOn)
        XCTAssertEqual(hidden.summary, "Off: /u/time-agent.desktop (overrides /etc/xdg/autostart/time-agent.desktop)")
        let gnomeOff = LoginStart(userPath: "/u/x", userText: "[Desktop Entry]\nX-GNOME-Autostart-enabled=false\n", systemPath: nil, systemText: nil)
        XCTAssertFalse(gnomeOff.isOn)
        // A Hidden key of another group is not the entry's.
        XCTAssertTrue(LoginStart.enabled("[Desktop Entry]\nExec=x\n[Desktop Action a]\nHidden=true\n"))
        XCTAssertFalse(LoginStart(userPath: "/u/x", userText: nil, systemPath: nil, systemText: nil).isOn)
    }

    func testTurningOffHidesItAndOnRemovesTheOverrideOrWritesAWholeEntry() throws {
        let folder = String(cString: mkdtemp(strdup("/tmp/time-login-XXXXXX")))
        defer { _ = rmdirAll(folder) }
        let user = folder + "/config/autostart/time-agent.desktop"
        var login = LoginStart(userPath: user, userText: nil, systemPath: "/etc/x", systemText: system)
        XCTAssertNil(login.apply(on: false))
        let written = try XCTUnwrap(LoginStart.readFile(user))
        XCTAssertFalse(LoginStart.enabled(written))
        XCTAssertTrue(written.contains("Exec=/usr/bin/time-agent --activate"), "the system's keys are kept: \(written)")
        login.userText = written
        XCTAssertFalse(login.isOn)
        XCTAssertEqual(login.change(on: true), .remove)
        XCTAssertNil(login.apply(on: true))
        XCTAssertNil(LoginStart.readFile(user))

        // No system entry (an install without one, or one an administrator hid): a whole entry of the user's own.
        let alone = LoginStart(userPath: user, userText: nil, systemPath: nil, systemText: nil)
        XCTAssertNil(alone.apply(on: true))
        let own = try XCTUnwrap(LoginStart.readFile(user))
        XCTAssertTrue(LoginStart.enabled(own))
        XCTAssertTrue(own.contains("Exec=time-agent --activate"))
        XCTAssertTrue(own.hasPrefix("[Desktop Entry]\n"))
    }

    private func rmdirAll(_ folder: String) -> Int32 {
        unlink(folder + "/config/autostart/time-agent.desktop")
        rmdir(folder + "/config/autostart")
        rmdir(folder + "/config")
        return rmdir(folder)
    }
}
