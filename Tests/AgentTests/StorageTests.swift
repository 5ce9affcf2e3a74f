import DBusKit
import Foundation
import TestSupport
import XCTest

/// StorageState, StorageMessage and the two storage errors, produced by real damage to the
/// data folder: read-only over an unrecoverable or newer store, StorageFailure when a change
/// cannot be made durable, and "restored" from a snapshot.
final class StorageTests: XCTestCase {
    /// Every state a client can observe, for "nothing was changed" comparisons.
    private func observable(_ agent: AgentHarness, excluding: Set<String> = []) throws -> [String] {
        var properties = try agent.allProperties()
        // DataRevision counts the changes this run of the agent made: not data, so not compared.
        for name in excluding.union(["ActiveSeconds", "DataRevision"]) { properties[name] = nil }
        return [canonical(properties)] + (try agent.projects().map(canonical)) + ["\(try agent.call("ListCategories"))"]
            + (try agent.sessions().map { session in var s = session; s["active"] = nil; return canonical(s) })
    }

    // MARK: read-only

    /// Every changing method of the contract, with arguments that would otherwise be plausible
    /// (project 1, session 1, a project named Writing, a category named Work).
    static let everyChange: [(String, [DBusValue])] = [
        ("StartProject", [.string("Writing")]), ("StartProject", [.string("#1")]), ("Pause", []), ("Resume", []),
        ("Toggle", []), ("Stop", []), ("AddNote", [.string("x")]), ("SetNote", [.uint64(1), .string("x")]),
        ("CreateProject", [.string("New"), .string(""), .string("")]),
        ("UpdateProject", [.uint64(1), .vardict(["name": .string("Prose")])]),
        ("AddCategory", [.string("Admin")]), ("DeleteCategory", [.string("Work")]),
        ("AddSession", [.uint64(1), .int64(1_700_000_000), .string("1h"), .string("")]),
        ("EditSession", [.uint64(1), .vardict(["note": .string("x")])]), ("DeleteSession", [.uint64(1)]),
        ("Undo", []), ("Redo", []),
    ]

    func testUnrecoverableStoreIsServedReadOnlyAndLeftByteForByte() throws {
        var garbage = Data("this is not an SQLite database, and no snapshot exists to restore it from\n".utf8)
        for index in 0..<8192 { garbage.append(UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 7)) }
        let agent = try AgentHarness { directory in
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try garbage.write(to: URL(fileURLWithPath: directory + "/time.sqlite"))
        }
        defer { agent.tearDown() }
        let store = agent.dataDirectory + "/time.sqlite"

        XCTAssertEqual(try agent.property("StorageState"), .string("read-only"))
        let message = try XCTUnwrap(try agent.property("StorageMessage").stringValue)
        XCTAssertFalse(message.isEmpty, "StorageMessage says what happened and what to do")
        XCTAssertTrue(agent.agent.logText.contains(message), "the log says it too")

        for (method, arguments) in Self.everyChange {
            let error = assertBusError(ContractError.readOnly, "\(method) on a read-only store") { try agent.call(method, arguments) }
            XCTAssertEqual(error, message, "\(method): the ReadOnly error carries the storage message")
        }
        assertBusError(ContractError.readOnly, "Set ReminderMinutes") { try agent.setProperty("ReminderMinutes", .uint32(15)) }
        XCTAssertEqual(try agent.property("ReminderMinutes"), .uint32(60))
        XCTAssertEqual(try agent.projects().count, 0)
        XCTAssertEqual(try agent.state(), "idle")
        XCTAssertNoThrow(try agent.call("WeeklyReport", [.string(""), .string("json")]), "reading still works")
        agent.assertAlive("after refusing changes on a read-only store")

        agent.stopAgent()
        XCTAssertEqual(agent.agent.process.terminationStatus, 0)
        XCTAssertEqual(fileBytes(store), garbage, "the original store is byte for byte as it was")
        for suffix in ["-wal", "-shm", "-journal"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: store + suffix), "no \(suffix) was created beside the original")
        }
    }

    func testNewerSchemaIsNeverDowngradedAndEveryChangeIsRefusedWithReadOnly() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        let projectID = try agent.createProject("Writing")
        try agent.createProject("Reading")
        try agent.call("AddCategory", [.string("Work")])
        try agent.call("AddSession", [.uint64(projectID), .int64(unixNow() - 86_400), .string("1h"), .string("")])
        try agent.start("Writing")
        agent.stopAgent()
        let store = agent.dataDirectory + "/time.sqlite"
        let pragma = try Command.run("sqlite3", [store, "PRAGMA user_version = 99;"])
        XCTAssertEqual(pragma.status, 0, pragma.stderr)
        let newer = try XCTUnwrap(fileBytes(store))
        try agent.restart()

        XCTAssertEqual(try agent.property("StorageState"), .string("read-only"))
        let message = try XCTUnwrap(try agent.property("StorageMessage").stringValue)
        XCTAssertTrue(message.contains("newer"), message)
        let before = try observable(agent)
        for (method, arguments) in Self.everyChange {
            assertBusError(ContractError.readOnly, "\(method) on a newer store") { try agent.call(method, arguments) }
        }
        assertBusError(ContractError.readOnly, "Set ReminderMinutes") { try agent.setProperty("ReminderMinutes", .uint32(5)) }
        XCTAssertEqual(try observable(agent), before, "nothing changed")
        agent.assertAlive()
        agent.stopAgent()
        XCTAssertEqual(fileBytes(store), newer, "a newer store is left byte for byte")
    }

    // MARK: StorageFailure

    func testChangeWhoseSnapshotCannotBeWrittenIsRefusedWithStorageFailureAndNothingChanges() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        let projectID = try agent.createProject("Writing")
        try agent.createProject("Reading")
        let open = try agent.start("Writing")
        let snapshots = agent.dataDirectory + "/snapshots"
        let before = try observable(agent)

        // The snapshot folder becomes a plain file: no snapshot can be written, whoever we are.
        try FileManager.default.moveItem(atPath: snapshots, toPath: snapshots + ".aside")
        try Data("not a folder".utf8).write(to: URL(fileURLWithPath: snapshots))
        let changes: [(String, [DBusValue])] = [
            ("CreateProject", [.string("New"), .string(""), .string("")]), ("Pause", []), ("Toggle", []), ("Stop", []),
            ("StartProject", [.string("Reading")]), ("AddNote", [.string("a line")]),
            ("AddSession", [.uint64(projectID), .int64(unixNow() - 86_400), .string("1h"), .string("")]),
            ("AddCategory", [.string("Work")]),
        ]
        for (method, arguments) in changes {
            assertBusError(ContractError.storageFailure, "\(method) without a snapshot folder") { try agent.call(method, arguments) }
        }
        assertBusError(ContractError.storageFailure, "Set ReminderMinutes") { try agent.setProperty("ReminderMinutes", .uint32(5)) }
        XCTAssertEqual(try observable(agent), before, "a refused change leaves everything as it was")
        XCTAssertEqual(try agent.property("StorageState"), .string("ok"))
        agent.assertAlive()

        // Once the folder is back, changes go through again, and a crash loses nothing acknowledged.
        try FileManager.default.removeItem(atPath: snapshots)
        try FileManager.default.moveItem(atPath: snapshots + ".aside", toPath: snapshots)
        try agent.call("AddNote", [.string("kept")])
        let created = try agent.createProject("New")
        try agent.crashAndRestart()
        XCTAssertEqual(try agent.property("Note"), .string("kept"))
        XCTAssertEqual(try agent.property("SessionId"), .uint64(open))
        XCTAssertEqual(try agent.projects().map { $0["name"]?.stringValue ?? "" }, ["Writing", "Reading", "New"])
        XCTAssertEqual(try agent.projects().last?["id"], .uint64(created))
        XCTAssertEqual(try agent.sessions().count, 1, "no refused session reappeared")
    }

    func testFullDiskRefusesChangesWithStorageFailureAndRecovers() throws {
        guard getuid() == 0 else { throw XCTSkip("mounting a tiny tmpfs as the data folder needs root") }
        let scratch = TemporaryDirectory("time-full")
        defer { scratch.remove() }
        let mountPoint = scratch.file("data")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        let mounted = try Command.run("mount", ["-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", mountPoint])
        guard mounted.status == 0 else { throw XCTSkip("mount -t tmpfs is not permitted here: \(mounted.stderr)") }
        defer { _ = try? Command.run("umount", ["-l", mountPoint]) }

        let agent = try AgentHarness(dataDirectory: mountPoint)
        defer { agent.tearDown() }
        let projectID = try agent.createProject("Writing")
        let open = try agent.start("Writing")
        try agent.call("AddNote", [.string("before the disk filled")])
        let before = try observable(agent)

        // Fill the file system to the last byte.
        let filler = mountPoint + "/filler"
        let fill = try Command.run("dd", ["if=/dev/zero", "of=\(filler)", "bs=4k"])
        XCTAssertNotEqual(fill.status, 0, "dd stops at a full disk")
        XCTAssertTrue(fill.stderr.contains("No space left"), fill.stderr)

        let changes: [(String, [DBusValue])] = [
            ("CreateProject", [.string("New"), .string(""), .string("")]), ("Pause", []), ("Stop", []),
            ("AddNote", [.string(String(repeating: "a long line ", count: 400))]),
            ("AddSession", [.uint64(projectID), .int64(unixNow() - 86_400), .string("1h"), .string("")]),
        ]
        for (method, arguments) in changes {
            assertBusError(ContractError.storageFailure, "\(method) on a full disk") { try agent.call(method, arguments) }
        }
        XCTAssertEqual(try observable(agent), before, "nothing was changed")
        agent.assertAlive("on a full disk")

        try FileManager.default.removeItem(atPath: filler)
        try agent.call("Pause")
        XCTAssertEqual(try agent.state(), "paused", "with space again, changes go through")
        try agent.crashAndRestart()
        XCTAssertEqual(try agent.property("StorageState"), .string("ok"))
        XCTAssertEqual(try agent.property("State"), .string("paused"))
        XCTAssertEqual(try agent.property("SessionId"), .uint64(open))
        XCTAssertEqual(try agent.property("Note"), .string("before the disk filled"))
        XCTAssertEqual(try agent.projects().count, 1)
        XCTAssertEqual(try agent.sessions().count, 1)
        agent.stopAgent()
    }

    // MARK: restored

    func testDamagedStoreIsRestoredFromTheNewestSnapshotWithEveryRecord() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        try agent.call("AddCategory", [.string("Work")])
        let writing = try agent.createProject("Writing", color: "#123456", category: "Work")
        try agent.createProject("Reading")
        for day in 1...5 {
            try agent.call("AddSession", [.uint64(writing), .int64(unixNow() - Int64(day) * 86_400), .string("\(day)h"), .string("day \(day)")])
        }
        try agent.start("Reading")
        try agent.call("Stop")
        let open = try agent.start("Writing")
        try agent.call("AddNote", [.string("in progress")])
        try agent.call("Pause")
        try agent.setProperty("ReminderMinutes", .uint32(45))
        // A restored store starts with an empty undo history (CanUndo ""), checked below.
        let before = try observable(agent, excluding: ["StorageState", "StorageMessage", "CanUndo"])

        agent.stopAgent()
        let store = agent.dataDirectory + "/time.sqlite"
        let garbage = Data(repeating: 0xA5, count: 12_288)
        try garbage.write(to: URL(fileURLWithPath: store))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        try agent.restart()

        XCTAssertEqual(try agent.property("StorageState"), .string("restored"))
        let message = try XCTUnwrap(try agent.property("StorageMessage").stringValue)
        XCTAssertFalse(message.isEmpty)
        XCTAssertEqual(try observable(agent, excluding: ["StorageState", "StorageMessage", "CanUndo"]),
                       before, "every property, project, category and session is back")
        XCTAssertEqual(try agent.property("CanUndo"), .string(""), "the history does not come back with a restore")
        XCTAssertEqual(try agent.property("SessionId"), .uint64(open))
        XCTAssertEqual(try agent.property("State"), .string("paused"))
        XCTAssertEqual(try agent.property("Note"), .string("in progress"))
        XCTAssertEqual(try agent.property("ReminderMinutes"), .uint32(45))

        // The damaged file is kept in quarantine, untouched.
        let quarantine = agent.dataDirectory + "/quarantine"
        let kept = (FileManager.default.enumerator(atPath: quarantine)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix("time.sqlite") }
        XCTAssertEqual(kept.count, 1, "the damaged store is in quarantine")
        XCTAssertEqual(kept.first.flatMap { fileBytes(quarantine + "/" + $0) }, garbage)

        // The restored store takes changes, and the next start is plainly ok.
        try agent.call("Resume")
        try agent.restart()
        XCTAssertEqual(try agent.property("StorageState"), .string("ok"))
        XCTAssertEqual(try agent.property("StorageMessage"), .string(""))
        XCTAssertEqual(try agent.property("State"), .string("running"))
    }
}
