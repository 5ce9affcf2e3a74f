import DBusKit
import Foundation
import TestSupport
import XCTest

/// Issue 30 from outside, with real agents (each on its own bus, with its own data and its own
/// copy of the sync folder, exchanged the way Syncthing does: a temporary file, then a rename),
/// and a third device's files written by the test from docs/sync.md alone (DocSyncDevice), as a
/// later version of Time would write them.
final class SyncVersionsAgentTests: XCTestCase {
    private var a: AgentHarness!
    private var b: AgentHarness!
    private var folders: TemporaryDirectory!
    private var own: [String: String] = [:]

    override func setUpWithError() throws { folders = TemporaryDirectory("time-sync-versions") }

    override func tearDown() {
        a?.tearDown()
        b?.tearDown()
        folders?.remove()
    }

    /// Two agents that see each other; `desktopEnvironment` starts the desktop as another build.
    private func pair(desktopEnvironment: [String: String] = [:]) throws {
        a = try AgentHarness()
        b = try AgentHarness(environment: desktopEnvironment)
        try a.call("EnableSync", [.string(folders.file("a")), .string("laptop")])
        try b.call("EnableSync", [.string(folders.file("b")), .string("desktop")])
        for side in ["a", "b"] {
            own[side] = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: root(side)).first)
        }
        try exchange()
        XCTAssertTrue(try waitFor { try devices(a) == 2 && devices(b) == 2 }, "the two devices see each other")
    }

    private func root(_ side: String) -> String { folders.file(side + "/time-tracker") }
    private func devices(_ agent: AgentHarness) throws -> Int { try agent.property("Devices").arrayValue?.count ?? 0 }
    private func waitFor(_ condition: () throws -> Bool) throws -> Bool { try TestSupport.wait(seconds: 10, interval: 0.05, condition) }

    /// Copies each device's files into the other's folder: a temporary name first, then a rename.
    private func exchange() throws {
        let manager = FileManager.default
        for (from, to) in [("a", "b"), ("b", "a")] {
            let source = root(from) + "/" + own[from]!
            let copy = root(to) + "/" + own[from]!
            try manager.createDirectory(atPath: copy, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: source) where !name.hasPrefix(".") {
                let temporary = copy + "/.syncthing." + name + ".tmp"
                try? manager.removeItem(atPath: temporary)
                try manager.copyItem(atPath: source + "/" + name, toPath: temporary)
                XCTAssertEqual(rename(temporary, copy + "/" + name), 0)
            }
        }
    }

    private func project(_ agent: AgentHarness, _ name: String) throws -> [String: DBusValue]? {
        try agent.projects().first { $0["name"]?.stringValue == name }
    }

    private func plan(_ agent: AgentHarness, _ name: String) throws -> String {
        guard let project = try project(agent, name) else { return "no \(name)" }
        return "\(project["rate"]?.stringValue ?? "?") \(project["weekly_target"]?.uint64Value ?? 0) "
            + "\(try agent.property("Currency").stringValue ?? "?") \(try agent.property("WeeklyTarget").uint64Value ?? 0)"
    }

    private func report(_ agent: AgentHarness) throws -> String {
        try agent.call("Report", [.string("this-year"), .vardict(["format": .string("json")])]).first?.stringValue ?? ""
    }

    /// The freelancer of issue 30: what the laptop sets arrives on the desktop, the same two hours
    /// bill the same on both; and back.
    func testRatesTargetsAndTheCurrencyTravelBothWays() throws {
        try pair()
        let consulting = try a.createProject("Consulting")
        try a.call("AddSession", [.uint64(consulting), .int64(unixNow() - 86400), .string("2h"), .string("two hours")])
        try exchange()
        XCTAssertTrue(try waitFor { try project(b, "Consulting") != nil && b.sessions().count == 1 })
        try a.call("UpdateProject", [.uint64(consulting), .vardict(["rate": .string("120.50"), "weekly_target": .uint64(36_000)])])
        try a.setProperty("Currency", .string("EUR"))
        try a.setProperty("WeeklyTarget", .uint64(144_000))
        try exchange()
        XCTAssertTrue(try waitFor { try plan(b, "Consulting") == "120.50 36000 EUR 144000" }, (try? plan(b, "Consulting")) ?? "")
        XCTAssertEqual(try report(a), try report(b))
        let billed = try report(b)
        XCTAssertTrue(billed.contains("\"amount\":\"241.00\""), billed)

        let there = try XCTUnwrap(try project(b, "Consulting")?["id"]?.uint64Value)
        try b.call("UpdateProject", [.uint64(there), .vardict(["rate": .string("130"), "weekly_target": .uint64(0)])])
        try b.setProperty("Currency", .string("CHF"))
        try b.setProperty("WeeklyTarget", .uint64(0))
        try exchange()
        XCTAssertTrue(try waitFor { try plan(a, "Consulting") == "130 0 CHF 0" }, (try? plan(a, "Consulting")) ?? "")
        XCTAssertEqual(try report(a), try report(b))
        for agent in [a!, b!] { XCTAssertEqual(try agent.property("SyncState").stringValue, "ok") }
    }

    /// A record of an unknown kind, one of an unknown operation, an unknown field and an unknown
    /// key: the state stays ok, the message names the device and asks for an update here, and
    /// the device's records around and after them merge, also after a restart.
    func testRecordsOfANewerVersionAreSkippedToldAndTheRestMerges() throws {
        try pair()
        var tablet = try DocSyncDevice(root: root("b"))
        let projectID = DocSyncDevice.newID(), session = DocSyncDevice.newID()
        try tablet.append(kind: "device", id: tablet.id, op: "create", fields: ["name": "tablet"])
        try tablet.append(kind: "project", id: projectID, op: "create",
                          fields: ["name": "Tablet work", "color": "#112233", "category": "", "archived": false])
        try tablet.append(kind: "settings", id: "shared", op: "set", fields: ["theme": "dark"])
        try tablet.append(kind: "project", id: projectID, op: "archive", fields: [:])
        try tablet.append(kind: "project", id: projectID, op: "set", fields: ["color": "#445566", "mood": "fine"], extra: ["trace": "x"])
        XCTAssertTrue(try waitFor { try project(b, "Tablet work")?["color"]?.stringValue == "#445566" }, "the known records merge")
        XCTAssertTrue(try waitFor { try b.property("SyncMessage").stringValue?.contains("tablet") == true })
        let message = try XCTUnwrap(try b.property("SyncMessage").stringValue)
        XCTAssertTrue(message.contains("newer version of Time") && message.contains("update Time on this computer"), message)
        XCTAssertTrue(message.contains("kind \"settings\""), message)
        XCTAssertEqual(try b.property("SyncState").stringValue, "ok")
        XCTAssertEqual(try project(b, "Tablet work")?["archived"]?.boolValue, false, "the unknown operation changed nothing")

        try b.restart()
        XCTAssertTrue(try waitFor { try b.property("SyncMessage").stringValue?.contains("tablet") == true }, "still told after a restart")
        XCTAssertEqual(try b.property("SyncState").stringValue, "ok")
        let start = unixNow() - 7200
        try tablet.append(kind: "session", id: session, op: "create", fields: [
            "project": projectID, "start": start, "end": start + 3600, "note": "after a restart", "segments": [[start, start + 3600]],
            "unrecorded": 0, "origin": tablet.id,
        ])
        XCTAssertTrue(try waitFor { try b.sessions().contains { $0["note"]?.stringValue == "after a restart" } }, "later records merge")
        XCTAssertEqual(try b.property("SyncState").stringValue, "ok")
        b.assertAlive()
    }

    /// A device file of a newer format: nothing of it is merged, and it is told (state ok).
    func testADeviceFileOfANewerFormatIsNotMergedAndTold() throws {
        try pair()
        var tablet = try DocSyncDevice(root: root("b"), format: 99)
        try tablet.append(kind: "device", id: tablet.id, op: "create", fields: ["name": "tablet"])
        try tablet.append(kind: "project", id: DocSyncDevice.newID(), op: "create",
                          fields: ["name": "Tablet work", "color": "#112233", "category": "", "archived": false])
        XCTAssertTrue(try waitFor { try b.property("SyncMessage").stringValue?.contains("format 99") == true })
        XCTAssertNil(try project(b, "Tablet work"))
        XCTAssertEqual(try b.property("SyncState").stringValue, "ok")
    }

    /// A wrong checksum after a record of a newer version is still damage, with its own message.
    func testAWrongChecksumIsStillDamage() throws {
        try pair()
        var tablet = try DocSyncDevice(root: root("b"))
        try tablet.append(kind: "device", id: tablet.id, op: "create", fields: ["name": "tablet"])
        try tablet.append(kind: "settings", id: "shared", op: "set", fields: ["theme": "dark"])
        try tablet.append(kind: "project", id: DocSyncDevice.newID(), op: "create",
                          fields: ["name": "Damaged", "color": "#112233", "category": "", "archived": false], sum: "00")
        XCTAssertTrue(try TestSupport.wait(seconds: 15, interval: 0.1) { try b.property("SyncState").stringValue == "error" })
        let message = try XCTUnwrap(try b.property("SyncMessage").stringValue)
        XCTAssertTrue(message.contains("damaged") && message.contains("checksum"), message)
        XCTAssertNil(try project(b, "Damaged"))
    }

    /// The upgrade: the desktop runs a build that does not know categories (a test switch), skips
    /// the laptop's category records and says so; its later records merge; started as the build
    /// that knows them, it merges what it skipped, from the merged state it kept (no rebuild).
    func testAnUpgradeMergesTheSkippedRecordsWithoutARebuild() throws {
        try pair(desktopEnvironment: ["TIME_SYNC_TEST_UNKNOWN": "category"])
        try a.call("AddCategory", [.string("Billable")])
        _ = try a.createProject("Consulting", category: "Billable")
        try exchange()
        XCTAssertTrue(try waitFor { try project(b, "Consulting") != nil })
        XCTAssertTrue(try waitFor { try b.property("SyncMessage").stringValue?.contains("laptop") == true })
        XCTAssertEqual(try project(b, "Consulting")?["category"]?.stringValue, "")
        XCTAssertEqual(try b.call("ListCategories").first?.arrayValue?.count, 0)
        XCTAssertEqual(try b.property("SyncState").stringValue, "ok")
        _ = try a.createProject("Writing")
        try exchange()
        XCTAssertTrue(try waitFor { try project(b, "Writing") != nil }, "a known record after the unknown ones merges")

        try b.restart(environment: [:])
        XCTAssertTrue(try waitFor { try project(b, "Consulting")?["category"]?.stringValue == "Billable" }, "the skipped records merge")
        XCTAssertTrue(try waitFor { try b.property("SyncMessage").stringValue == "" })
        XCTAssertEqual(try b.property("SyncState").stringValue, "ok")
        let started = b.agent.logText.components(separatedBy: "\n").last { $0.contains("sync on:") } ?? ""
        XCTAssertTrue(started.contains("the merged state kept is taken"), started)
    }
}
