import DBusKit
import Foundation
import TestSupport
import XCTest

/// The contract's properties: types, values, exactly one `PropertiesChanged` per transition
/// holding exactly what changed, the read-write ReminderMinutes and the constant Version.
final class PropertiesTests: XCTestCase {
    var agent: AgentHarness!
    var recorder: PropertiesChangedRecorder!

    static let contractTypes: [String: String] = [
        "State": "s", "Project": "s", "ProjectColor": "s", "Category": "s", "SessionId": "t", "SessionStart": "x",
        "RunningSince": "x", "ActiveSeconds": "t", "Note": "s", "LastProject": "s", "StorageState": "s",
        "StorageMessage": "s", "Version": "s", "ReminderMinutes": "u", "CanUndo": "s",
    ]

    override func setUpWithError() throws {
        agent = try AgentHarness()
        recorder = try PropertiesChangedRecorder(bus: agent.bus)
    }

    override func tearDown() {
        recorder?.close()
        agent?.tearDown()
    }

    func testGetAllHasEveryContractPropertyWithItsTypeAndIdleValues() throws {
        let all = try agent.allProperties()
        for (name, signature) in Self.contractTypes {
            XCTAssertEqual(all[name]?.signature, signature, "property \(name)")
            XCTAssertEqual(try agent.property(name), all[name], "Get \(name) agrees with GetAll")
        }
        let idle: [String: DBusValue] = [
            "State": .string("idle"), "Project": .string(""), "ProjectColor": .string(""), "Category": .string(""),
            "SessionId": .uint64(0), "SessionStart": .int64(0), "RunningSince": .int64(0), "ActiveSeconds": .uint64(0),
            "Note": .string(""), "LastProject": .string(""), "StorageState": .string("ok"), "StorageMessage": .string(""),
            "ReminderMinutes": .uint32(60), "CanUndo": .string(""),
        ]
        for (name, value) in idle { XCTAssertEqual(all[name], value, "\(name) of a fresh agent") }
        assertBusError(BusError.unknownProperty, "Get of a property that does not exist") { try agent.property("Elapsed") }
    }

    /// Runs `change`, and checks that exactly one PropertiesChanged arrived holding exactly the
    /// properties whose GetAll value differs, with the new values. Returns the changed names.
    @discardableResult
    private func transition(_ what: String, file: StaticString = #filePath, line: UInt = #line,
                            _ change: () throws -> Void) throws -> Set<String> {
        _ = recorder.take(atLeast: 0, quiet: 0.05)
        let before = try agent.allProperties()
        try change()
        let after = try agent.allProperties()
        let expected = Set(after.keys.filter { before[$0] != after[$0] })
        let signals = recorder.take(atLeast: expected.isEmpty ? 0 : 1)
        if expected.isEmpty {
            XCTAssertEqual(signals.count, 0, "\(what): nothing changed, yet PropertiesChanged came: \(signals)", file: file, line: line)
            return []
        }
        XCTAssertEqual(signals.count, 1, "\(what): one PropertiesChanged per transition, got \(signals)", file: file, line: line)
        guard let signal = signals.first else { return [] }
        XCTAssertEqual(Set(signal.keys), expected, "\(what): the signal holds exactly the changed properties", file: file, line: line)
        for (name, value) in signal { XCTAssertEqual(value, after[name], "\(what): \(name)", file: file, line: line) }
        // Every change also changes CanUndo and DataRevision (checked in the signal above); the
        // callers list the rest.
        return expected.subtracting(["CanUndo", "DataRevision"])
    }

    func testOnePropertiesChangedPerTransitionWithExactlyTheChangedProperties() throws {
        try agent.call("AddCategory", [.string("Work")])
        try agent.createProject("Writing", color: "#112233", category: "Work")
        try agent.createProject("Reading", color: "#445566")

        let revision = try XCTUnwrap(try agent.property("DataRevision").uint64Value)
        XCTAssertEqual(try transition("CreateProject while idle") { try agent.createProject("Other") }, [])
        XCTAssertEqual(try agent.property("DataRevision").uint64Value, revision + 1, "every acknowledged change moves DataRevision on")
        let started = try transition("StartProject from idle") { try agent.start("Writing") }
        XCTAssertEqual(started, ["State", "Project", "ProjectColor", "Category", "SessionId", "SessionStart", "RunningSince", "LastProject"])
        XCTAssertEqual(try transition("StartProject on the running project") { try agent.start("Writing") }, [])
        XCTAssertEqual(try transition("Resume while running") { try agent.call("Resume") }, [])

        usleep(1_100_000) // so the paused session has active seconds to report
        XCTAssertEqual(try transition("Pause") { try agent.call("Pause") }, ["State", "RunningSince", "ActiveSeconds"])
        XCTAssertEqual(try transition("Pause while paused") { try agent.call("Pause") }, [])
        XCTAssertEqual(try transition("Resume") { try agent.call("Resume") }, ["State", "RunningSince"])
        XCTAssertEqual(try transition("AddNote") { try agent.call("AddNote", [.string("a line")]) }, ["Note"])
        XCTAssertEqual(try transition("Toggle") { try agent.call("Toggle") }.isSuperset(of: ["State", "RunningSince"]), true)
        XCTAssertEqual(try transition("Toggle back") { try agent.call("Toggle") }, ["State", "RunningSince"])
        let id = try XCTUnwrap(try agent.property("SessionId").uint64Value)
        XCTAssertEqual(try transition("SetNote of the open session") { try agent.call("SetNote", [.uint64(id), .string("new")]) }, ["Note"])
        let writingID = try XCTUnwrap(try agent.projects().first { $0["name"] == .string("Writing") }?["id"]?.uint64Value)
        XCTAssertEqual(try transition("renaming the running project") {
            try agent.call("UpdateProject", [.uint64(writingID), .vardict(["name": .string("Prose")])])
        }, ["Project", "LastProject"])
        XCTAssertEqual(try transition("recoloring the running project") {
            try agent.call("UpdateProject", [.uint64(writingID), .vardict(["color": .string("#778899")])])
        }, ["ProjectColor"])
        XCTAssertEqual(try transition("deleting its category") { try agent.call("DeleteCategory", [.string("Work")]) }, ["Category"])
        let beforeRefusal = try agent.property("DataRevision")
        XCTAssertEqual(try transition("a refused call") {
            _ = try? agent.call("CreateProject", [.string("prose"), .string(""), .string("")])
        }, [])
        XCTAssertEqual(try agent.property("DataRevision"), beforeRefusal, "a refused call changes nothing")
        let switched = try transition("StartProject of another project") { try agent.start("Reading") }
        XCTAssertTrue(switched.isSuperset(of: ["Project", "ProjectColor", "SessionId", "Note", "LastProject"]), "\(switched)")
        XCTAssertFalse(switched.contains("State"), "running stays running")
        let stopped = try transition("Stop") { try agent.call("Stop") }
        XCTAssertTrue(stopped.isSuperset(of: ["State", "Project", "ProjectColor", "SessionId", "SessionStart", "RunningSince"]), "\(stopped)")
        XCTAssertFalse(stopped.contains("LastProject"), "Stop keeps LastProject")
        XCTAssertEqual(try transition("Toggle from idle") { _ = try agent.call("Toggle") }.contains("State"), true)
        XCTAssertEqual(try transition("AddSession") {
            try agent.call("AddSession", [.uint64(writingID), .int64(unixNow() - 86_400), .string("1h"), .string("")])
        }, [])
    }

    func testReminderMinutesIsReadWriteAnnouncedPersistedAndChecked() throws {
        XCTAssertEqual(try agent.property("ReminderMinutes"), .uint32(60), "default 60")
        XCTAssertEqual(try transition("Set ReminderMinutes") { try agent.setProperty("ReminderMinutes", .uint32(15)) }, ["ReminderMinutes"])
        XCTAssertEqual(try agent.property("ReminderMinutes"), .uint32(15))
        // A setting is a step of the history: CanUndo names it (announced in the same signal).
        XCTAssertEqual(try agent.property("CanUndo"), .string("Set reminders to every 15 minutes"))
        XCTAssertEqual(try transition("Set ReminderMinutes 0 (off)") { try agent.setProperty("ReminderMinutes", .uint32(0)) }, ["ReminderMinutes"])
        XCTAssertEqual(try agent.property("CanUndo"), .string("Turned reminders off"))
        XCTAssertEqual(try transition("Set ReminderMinutes to its current value") { try agent.setProperty("ReminderMinutes", .uint32(0)) }, [])

        assertBusError(BusError.invalidArgs, "Set with a string") { try agent.setProperty("ReminderMinutes", .string("15")) }
        assertBusError(BusError.invalidArgs, "Set with an int32") { try agent.setProperty("ReminderMinutes", .int32(15)) }
        assertBusError(BusError.invalidArgs, "Set with a uint64") { try agent.setProperty("ReminderMinutes", .uint64(15)) }
        assertBusError(ContractError.invalidArgument, "more than a week of minutes") { try agent.setProperty("ReminderMinutes", .uint32(UInt32.max)) }
        assertBusError(BusError.propertyReadOnly, "Set of State") { try agent.setProperty("State", .string("running")) }
        assertBusError(BusError.propertyReadOnly, "Set of Version") { try agent.setProperty("Version", .string("9.9.9")) }
        XCTAssertEqual(try agent.property("State"), .string("idle"))
        XCTAssertEqual(try agent.property("ReminderMinutes"), .uint32(0))

        try agent.setProperty("ReminderMinutes", .uint32(25))
        try agent.restart()
        XCTAssertEqual(try agent.property("ReminderMinutes"), .uint32(25), "persisted across a restart")
        try agent.crashAndRestart()
        XCTAssertEqual(try agent.property("ReminderMinutes"), .uint32(25), "persisted across a crash (acknowledged means durable)")
    }

    func testVersionIsConstantAndMatchesTheExecutable() throws {
        let version = try XCTUnwrap(try agent.property("Version").stringValue)
        XCTAssertNotNil(version.range(of: #"^\d+\.\d+\.\d+$"#, options: .regularExpression), version)
        let printed = try Command.run(Products.agent, ["--version"])
        XCTAssertEqual(printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "time-agent \(version)")
        let introspection = try XCTUnwrap(try agent.client.call(destination: AgentProcess.busName, path: AgentProcess.path,
                                                                interface: "org.freedesktop.DBus.Introspectable", member: "Introspect",
                                                                arguments: [], timeoutMilliseconds: 5_000).first?.stringValue)
        XCTAssertTrue(introspection.contains("org.freedesktop.DBus.Property.EmitsChangedSignal\" value=\"const\""),
                      "Version is announced as constant")
        try agent.createProject("Writing")
        _ = recorder.take(atLeast: 0, quiet: 0.05)
        try agent.start("Writing")
        try agent.call("Stop")
        for signal in recorder.take(atLeast: 2) { XCTAssertNil(signal["Version"], "Version never changes") }
        try agent.restart()
        XCTAssertEqual(try agent.property("Version"), .string(version))
    }
}
