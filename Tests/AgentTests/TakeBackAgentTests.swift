import DBusKit
import Foundation
import TestSupport
import XCTest

/// A change that committed while its slot went to the disk, whose flush then failed, and whose
/// take-back failed too (Tracker+TakeBack.swift), seen from the bus: a real agent on a disk that
/// goes bad between two calls (the crash recorder's TIME_CRASH_DISK_FAILS: the slot's fdatasync
/// fails with EIO, then every write to the store's WAL). CommitBesideTheFlushTests makes the same
/// failures inside the core; here is what a client sees of them.
final class TakeBackAgentTests: XCTestCase {
    private var scratch: TemporaryDirectory!
    /// The failing disk's switch: it fails while this file exists.
    private var diskFails: String { scratch.file("the disk fails") }

    override func setUp() { scratch = TemporaryDirectory("time-take-back") }
    override func tearDown() { scratch.remove() }

    /// An agent on the failing disk (off), with a running session of Writing. The session's
    /// start is the second change since the agent's: the keeper has seen the store alone since a
    /// change of its own, so the next change commits while its slot is written.
    /// `walWritesFail`: whether the WAL's writes fail too once a flush has.
    private func agentOnAFailingDisk(walWritesFail: Bool) throws -> (AgentHarness, open: UInt64) {
        let data = scratch.file("data")
        var environment = [
            "LD_PRELOAD": Products.directory + "/libtime-crash-recorder.so",
            "TIME_CRASH_ROOT": data, "TIME_CRASH_DISK_FAILS": diskFails, "TIME_CRASH_FAIL_FLUSH": "/snapshots/slot-",
        ]
        if walWritesFail { environment["TIME_CRASH_FAIL_WRITES"] = "time.sqlite-wal" }
        let agent = try AgentHarness(environment: environment, dataDirectory: data)
        try agent.createProject("Writing")
        return (agent, try agent.start("Writing"))
    }

    func testAChangeTheDiskDidNotConfirmIsTakenBackAndEditingGoesOn() throws {
        let (agent, open) = try agentOnAFailingDisk(walWritesFail: false)
        defer { agent.tearDown() }
        try agent.call("AddNote", [.string("before the disk failed")])
        // (DataRevision counts the changes this run of the agent made: not data.)
        let observed = { try agent.allProperties().filter { !["ActiveSeconds", "DataRevision"].contains($0.key) } }
        let before = try observed()
        let sessions = try agent.sessions().map { $0.filter { $0.key != "active" } }

        XCTAssertTrue(FileManager.default.createFile(atPath: diskFails, contents: nil), "the failing disk switched on")
        let message = assertBusError(ContractError.storageFailure, "a Pause the disk did not confirm") { try agent.call("Pause") } ?? ""
        XCTAssertFalse(message.contains("Editing is locked"), message)
        XCTAssertEqual(try observed(), before, "the Pause was taken back")
        XCTAssertEqual(try agent.sessions().map { $0.filter { $0.key != "active" } }, sessions)
        XCTAssertEqual(try agent.state(), "running")

        try FileManager.default.removeItem(atPath: diskFails)
        try agent.call("Pause")
        XCTAssertEqual(try agent.state(), "paused", "editing goes on once the disk confirms again")
        try agent.crashAndRestart()
        XCTAssertEqual(try agent.property("StorageState"), .string("ok"))
        XCTAssertEqual(try agent.state(), "paused")
        XCTAssertEqual(try agent.property("SessionId"), .uint64(open))
        XCTAssertEqual(try agent.property("Note"), .string("before the disk failed"))
    }

    func testAChangeThatCannotBeTakenBackLocksEditingUntilTheAgentStartsAgain() throws {
        let (agent, open) = try agentOnAFailingDisk(walWritesFail: true)
        defer { agent.tearDown() }

        XCTAssertTrue(FileManager.default.createFile(atPath: diskFails, contents: nil), "the failing disk switched on")
        let message = assertBusError(ContractError.storageFailure, "a Pause the disk did not confirm and that could not be taken back") {
            try agent.call("Pause")
        } ?? ""
        for words in ["could not be taken back", "Editing is locked", "systemctl --user restart time-agent"] {
            XCTAssertTrue(message.contains(words), "the error says \"\(words)\": \(message)")
        }
        XCTAssertEqual(try agent.property("StorageState"), .string("read-only"))
        XCTAssertTrue(try agent.property("StorageMessage").stringValue?.contains("Editing is locked") == true)
        // The store holds the Pause (its commit stands), and the agent shows what the store holds.
        XCTAssertEqual(try agent.state(), "paused")
        XCTAssertEqual(try agent.property("SessionId"), .uint64(open))

        // A good disk again does not unlock editing: only a start records the store's state anew.
        try FileManager.default.removeItem(atPath: diskFails)
        for (method, arguments) in StorageTests.everyChange {
            assertBusError(ContractError.readOnly, "\(method) while editing is locked") { try agent.call(method, arguments) }
        }
        assertBusError(ContractError.readOnly, "Set ReminderMinutes while editing is locked") {
            try agent.setProperty("ReminderMinutes", .uint32(5))
        }
        XCTAssertEqual(try agent.state(), "paused")
        agent.assertAlive("with editing locked")

        try agent.restart()
        XCTAssertEqual(try agent.property("StorageState"), .string("ok"))
        XCTAssertEqual(try agent.property("StorageMessage"), .string(""))
        XCTAssertEqual(try agent.state(), "paused", "the start kept what the store held")
        XCTAssertEqual(try agent.property("SessionId"), .uint64(open))
        try agent.call("Resume")
        XCTAssertEqual(try agent.state(), "running")
        // What the start recorded and the Resume after it survive a kill: a slot holds them.
        try agent.crashAndRestart()
        XCTAssertEqual(try agent.property("StorageState"), .string("ok"))
        XCTAssertEqual(try agent.state(), "running")
        XCTAssertEqual(try agent.property("SessionId"), .uint64(open))
        XCTAssertEqual(try agent.sessions().count, 1)
    }
}
