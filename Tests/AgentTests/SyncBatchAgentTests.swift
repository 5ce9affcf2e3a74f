import DBusKit
import Foundation
import TestSupport
import TimeCore
import XCTest

/// Enabling sync on a history and joining a folder that holds one, in real agents killed with
/// SIGKILL in the middle (issue 21, part 3): the restarted agent goes on where its batches
/// stopped and ends with exactly what one unbatched run in the core gives (the same records in
/// its log, the same sessions in its store). Between batches the agent answers calls.
final class SyncBatchAgentTests: XCTestCase {
    private static let sessions = 6000
    private var folders: TemporaryDirectory!
    private var agents: [AgentHarness] = []

    override func setUpWithError() throws { folders = TemporaryDirectory("time-sync-batches") }

    override func tearDown() {
        for agent in agents { agent.tearDown() }
        folders?.remove()
    }

    /// A history made while sync was off, and a copy of it for the unbatched run.
    private func prepareHistory(_ directory: String) throws {
        let home = try DataHome(directory: directory)
        try home.tracker.createProject(name: "Client A", color: "", category: "")
        let start = unixNow() - 86400 * Int64(SyncBatchAgentTests.sessions / 8 + 10)
        let sessions = (0..<SyncBatchAgentTests.sessions).map { index -> WorkSession in
            let begin = start + Int64(index / 8) * 86400 + Int64(index % 8) * 3600
            return WorkSession(id: 0, projectID: 1, start: begin, end: begin + 1800, unrecordedSeconds: 0, note: "session \(index)",
                               segments: [Segment(start: begin, end: begin + 1800)])
        }
        _ = try home.tracker.importSessions(sessions)
    }

    private func copy(_ from: String, to destination: String) throws {
        try? FileManager.default.removeItem(atPath: destination)
        try FileManager.default.copyItem(atPath: from, toPath: destination)
    }

    /// A device's records in a sync folder, without their stamps (what another device reads).
    private func records(_ folder: String, of device: String) -> [String] {
        var reader = SyncLogReader(layout: SyncLayout(folder: folder))
        return reader.readNew(device: device).records.map {
            "\($0.kind.rawValue) \($0.id) \($0.operation.rawValue) \(JSON.sortedObject($0.fields).serialized)"
        }.sorted()
    }

    private func lines(_ folder: String, of device: String) -> Int {
        let text = (try? Files.read(SyncLayout(folder: folder).deviceFolder(device) + "/" + SyncLayout.changeFileName(1))) ?? []
        return text.reduce(0) { $0 + ($1 == 10 ? 1 : 0) }
    }

    private func ownDevice(_ folder: String, except others: Set<String> = []) throws -> String {
        try XCTUnwrap(SyncLayout(folder: folder).devices().first { !others.contains($0) })
    }

    /// The store's sessions by global id, as a person sees them (row ids differ between stores).
    private func contents(_ tracker: Tracker) throws -> [String] {
        try tracker.store.allSessions().map {
            "\($0.globalID) \($0.start) \($0.end.map(String.init) ?? "open") \($0.note)"
        }.sorted()
    }

    private func count(_ directory: String) -> Int64 {
        guard let store = try? SQLiteDatabase(path: directory + "/time.sqlite", mode: .readOnly) else { return 0 }
        return ((try? store.queryFirst("SELECT count(*) FROM sessions") { $0.int(0) }) ?? nil) ?? 0
    }

    /// A damaged line that stays damaged is reported after the recheck, which reads the folder in
    /// batches like any merge; the good records before it are merged.
    func testADamagedLineIsReportedAfterItsRecheck() throws {
        let desktop = try AgentHarness()
        agents.append(desktop)
        let folder = folders.file("sync")
        let writer = try SyncLogWriter(layout: SyncLayout(folder: folder), device: SyncRecord.newID())
        try writer.append([SyncDraft(kind: .project, id: SyncRecord.newID(), operation: .create, fields: [
            "name": .string("Before the damage"), "color": .string("#3465a4"), "category": .string(""), "archived": .bool(false)])],
            wallMilliseconds: unixNow() * 1000)
        let file = writer.folder + "/" + SyncLayout.changeFileName(1)
        var damaged = try Files.read(file)
        damaged += Array(#"{"dev":"nobody","seq":2}"#.utf8) + [10]
        try Files.writeDurably(damaged, to: file)
        try desktop.call("EnableSync", [.string(folder), .string("desktop")])
        XCTAssertTrue(try TestSupport.wait(seconds: 10, interval: 0.05) {
            try desktop.call("ListProjects").first?.arrayValue?.contains { "\($0)".contains("Before the damage") } == true
        }, "the record before the damaged line is merged")
        XCTAssertEqual(try desktop.property("SyncState").stringValue, "ok", "a bad line may be a copy under way: not reported at once")
        XCTAssertTrue(try TestSupport.wait(seconds: 10, interval: 0.1) { try desktop.property("SyncState").stringValue == "error" })
        XCTAssertTrue(try desktop.property("SyncMessage").stringValue?.contains("is damaged") == true)
    }

    func testEnablingAndJoiningKilledInTheMiddleEndAsOneUnbatchedRun() throws {
        let total = SyncBatchAgentTests.sessions
        let laptop = try AgentHarness(prepare: { directory in
            try self.prepareHistory(directory)
            try self.copy(directory, to: self.folders.file("reference-laptop"))
        })
        agents.append(laptop)
        let folder = folders.file("sync")
        try laptop.call("EnableSync", [.string(folder), .string("laptop")])
        let device = try ownDevice(folder)
        // Killed once some batches are in the log, and before all of them are.
        XCTAssertTrue(try TestSupport.wait(seconds: 30, interval: 0.002) { lines(folder, of: device) > 200 })
        try laptop.call("GetStatus")  // answered between two batches
        try laptop.crashAndRestart()
        XCTAssertLessThan(lines(folder, of: device), total, "killed in the middle of enabling")
        XCTAssertTrue(try TestSupport.wait(seconds: 60, interval: 0.05) { lines(folder, of: device) >= total + 2 },
                      "the restarted agent goes on publishing")

        // The same history enabled in one unbatched run in the core, as the same device.
        let referenceFolder = folders.file("reference-sync")
        let reference = try DataHome(directory: folders.file("reference-laptop"))
        try SyncEngine(tracker: reference.tracker, folder: referenceFolder, device: device, deviceName: "laptop",
                       wallMilliseconds: unixNow() * 1000, batchLimit: .max).stop()
        XCTAssertTrue(try TestSupport.wait(seconds: 30, interval: 0.05) { records(folder, of: device) == records(referenceFolder, of: device) },
                      "the same records, none twice, none left out")
        try copy(folder, to: folders.file("sync-reference-join"))
        try copy(folder, to: folders.file("sync-join"))

        // A second device joins a copy of the folder, and is killed in the middle of merging.
        let desktop = try AgentHarness()
        agents.append(desktop)
        let joinFolder = folders.file("sync-join")
        try desktop.call("EnableSync", [.string(joinFolder), .string("desktop")])
        XCTAssertTrue(try TestSupport.wait(seconds: 30, interval: 0.002) { count(desktop.dataDirectory) > 300 })
        try desktop.call("GetStatus")
        try desktop.crashAndRestart()
        XCTAssertLessThan(count(desktop.dataDirectory), Int64(total), "killed in the middle of joining")
        XCTAssertTrue(try TestSupport.wait(seconds: 60, interval: 0.05) { count(desktop.dataDirectory) == Int64(total) },
                      "the restarted agent goes on merging")
        let joiner = try ownDevice(joinFolder, except: [device])
        desktop.stopAgent()

        let joined = try DataHome(directory: folders.file("reference-desktop"))
        try SyncEngine(tracker: joined.tracker, folder: folders.file("sync-reference-join"), device: joiner, deviceName: "desktop",
                       wallMilliseconds: unixNow() * 1000, batchLimit: .max).stop()
        XCTAssertEqual(try contents(try DataHome(directory: desktop.dataDirectory).tracker), try contents(joined.tracker))
        XCTAssertEqual(records(joinFolder, of: joiner), records(folders.file("sync-reference-join"), of: joiner))
    }

    /// The kept state lost (its file removed: a token that no longer matches), a restart rebuilds
    /// it from the folder in batches; killed in the middle, the next start goes on from there and
    /// ends with the merged state a fresh read of the folder gives, the store untouched and nothing
    /// published (issue 30, part 4). The agent answers between batches.
    func testARebuildKilledInTheMiddleGoesOnFromWhereItWas() throws {
        let total = SyncBatchAgentTests.sessions
        let laptop = try AgentHarness(prepare: { directory in try self.prepareHistory(directory) })
        agents.append(laptop)
        let folder = folders.file("sync")
        try laptop.call("EnableSync", [.string(folder), .string("laptop")])
        let device = try ownDevice(folder)
        XCTAssertTrue(try TestSupport.wait(seconds: 60, interval: 0.05) { lines(folder, of: device) >= total + 2 }, "published")
        let desktop = try AgentHarness()
        agents.append(desktop)
        try desktop.call("EnableSync", [.string(folder), .string("desktop")])
        XCTAssertTrue(try TestSupport.wait(seconds: 60, interval: 0.05) { count(desktop.dataDirectory) == Int64(total) }, "joined")
        let joiner = try ownDevice(folder, except: [device])
        let published = lines(folder, of: joiner)
        desktop.stopAgent()
        let before = try contents(try DataHome(directory: desktop.dataDirectory).tracker)
        let kept = desktop.dataDirectory + "/time-sync.sqlite"
        for suffix in ["", "-wal", "-shm"] { Files.remove(kept + suffix) }

        func rebuilding() -> Bool {
            guard let file = try? SQLiteDatabase(path: kept, mode: .readOnly) else { return false }
            return ((try? file.queryFirst("SELECT 1 FROM sync_kept WHERE key = 'rebuilding'") { _ in true }) ?? nil) == true
        }
        try desktop.restart()
        XCTAssertTrue(try TestSupport.wait(seconds: 30, interval: 0.001) { rebuilding() }, "the rebuild is under way")
        try desktop.call("GetStatus")  // answered between two batches
        try desktop.crashAndRestart()  // kill -9 while the progress says it is under way
        XCTAssertTrue(try TestSupport.wait(seconds: 60, interval: 0.05) { !rebuilding() && desktop.agent.logText.contains("sync on:") },
                      "the restarted agent goes on rebuilding")
        XCTAssertTrue(desktop.agent.logText.contains("the merged state is rebuilt from the folder"), desktop.agent.logText)
        try desktop.call("GetStatus")
        desktop.stopAgent()

        let home = try DataHome(directory: desktop.dataDirectory)
        XCTAssertEqual(try contents(home.tracker), before, "the store as it was")
        XCTAssertEqual(lines(folder, of: joiner), published, "nothing published")
        let engine = try SyncEngine(tracker: home.tracker, folder: folder, device: joiner, deviceName: "desktop", wallMilliseconds: unixNow() * 1000)
        XCTAssertTrue(engine.tookKeptState, "the rebuilt state is kept")
        XCTAssertEqual(engine.readAtStart, 0, "and holds everything")
        var reader = SyncLogReader(layout: SyncLayout(folder: folder))
        var fresh = SyncReplica()
        fresh.apply(reader.readNew(except: nil).records)
        XCTAssertEqual(engine.replica.view(), fresh.view())
        try engine.stop()
    }
}
