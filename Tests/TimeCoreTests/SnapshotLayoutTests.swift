import Glibc
import XCTest
@testable import TimeCore

/// Where the snapshots keep each session (chunks per period, today's inline) in the sequences
/// that are easy to get wrong: every snapshot must be exactly the store's state, and equal states
/// on a day must make equal payloads.
final class SnapshotLayoutTests: FoldersTestCase {
    override func setUp() {
        super.setUp()
        clock.time = SafetyClock().time  // (these cases begin at the clock's own default time)
    }

    private func newestState(_ home: DataHome) throws -> DataState {
        try XCTUnwrap(home.keeper).state(of: XCTUnwrap(home.keeper?.entries.last))
    }

    /// The days the newest snapshot's chunks hold.
    private func periods(_ folder: Folder) throws -> [String] {
        try ChunkTreeContents(snapshot: folder.snapshots + "/" + folder.states().last!).sessionsByPeriod.keys.sorted()
    }

    /// A session of today that sits in a whole block of 32 (so in the month's chunk, not inline)
    /// is edited without changing which ids are in the block: the month's chunk is rewritten.
    func testEditingATodaySessionHeldInAWholeBlockReachesTheSnapshot() throws {
        let folder = makeFolder()
        clock.time = utc(2026, 11, 28, 1)
        let home = try open(folder)
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        try home.tracker.createProject(name: "Reading", color: "", category: "")
        for _ in 0..<(SnapshotKeeper.inlineBlock + 1) {
            try home.tracker.startProject("Writing")
            clock.time += 60
            try home.tracker.stop()
            clock.time += 60
        }
        home.tracker.tidyUp()
        XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store), "before the edit")

        try home.tracker.setNote(session: 5, note: "edited while in the block")
        XCTAssertEqual(try newestState(home).differences(from: DataState(store: home.tracker.store)), [], "note of a chunked session of today")

        try home.tracker.editSession(id: 6, changes: SessionChanges(projectID: 2))
        XCTAssertEqual(try newestState(home).differences(from: DataState(store: home.tracker.store)), [], "project of a chunked session of today")
    }

    /// The clock goes back across a year end and the change deletes the last finished session:
    /// the full record that follows lists no chunk (not the old year's), and pruning never
    /// removes a chunk the newest snapshot refers to.
    func testAFullRecordWithNoFinishedSessionLeftDropsTheOldChunkList() throws {
        let folder = makeFolder()
        clock.time = utc(2027, 1, 2, 12)
        let home = try open(folder)
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        let id = try home.tracker.addSession(project: 1, start: utc(2026, 12, 20, 10), duration: "1h", note: "december")
        XCTAssertEqual(try periods(folder), ["2026-12-20"])

        clock.time = utc(2026, 12, 31, 12)            // the clock goes back across the year end
        try home.tracker.deleteSession(id: id)
        XCTAssertEqual(try newestState(home).differences(from: DataState(store: home.tracker.store)), [],
                       "the deleted session must not be in the newest snapshot")
        XCTAssertEqual(try periods(folder), [], "no finished session is left, so no chunk")

        // Changes that touch no finished session keep the stale list; pruning then loses the chunk.
        for round in 0..<(3 * SnapshotKeeper.keptStates) {
            clock.time += 1
            try home.tracker.updateProject(id: 1, changes: ProjectChanges(name: "Writing \(round)"))
            home.tracker.tidyUp()
        }
        let newest = try XCTUnwrap(home.keeper?.entries.last)
        XCTAssertNoThrow(try SnapshotKeeper.state(at: newest.path), "the newest snapshot must be readable")
    }

    /// Equal data states on the same day make byte-identical payloads, whether the keeper ran
    /// through the year end or started after it.
    func testARestartAcrossTheYearEndMakesTheSamePayloadAsRunningThrough() throws {
        func run(restarting: Bool) throws -> (hash: String, periods: [String]) {
            let folder = makeFolder()
            clock.time = utc(2026, 12, 31, 10)
            var home: DataHome? = try open(folder)
            // The data's random id is part of its state: the same data has the same id.
            try home!.tracker.store.setMeta("data_id", "0123456789abcdef")
            try home!.tracker.createProject(name: "Writing", color: "", category: "")
            _ = try home!.tracker.addSession(project: 1, start: utc(2026, 11, 10, 9), duration: "1h", note: "")
            // So are the global ids of sync (random when made): the same records, the same ids.
            try home!.tracker.store.database.execute("UPDATE projects SET gid = 'p1'; UPDATE sessions SET gid = 's1'")
            try home!.tracker.setNote(session: 1, note: "the ids above reach its chunk")
            clock.time = utc(2027, 1, 2, 10)
            if restarting {
                home = nil
                home = try open(folder)
            }
            try home!.tracker.setReminderMinutes(30)
            return (try XCTUnwrap(home!.keeper?.entries.last).stateHash, try periods(folder))
        }
        let through = try run(restarting: false)
        let restarted = try run(restarting: true)
        XCTAssertEqual(through.periods, ["2026-11-10"])
        XCTAssertEqual(restarted.periods, through.periods, "chunk layout after a restart")
        XCTAssertEqual(restarted.hash, through.hash, "equal states on the same day, equal payloads")
    }

    /// A pruned snapshot with another name (a hard link, as rsnapshot or `cp -al` backups make)
    /// is not reused for the next snapshot: the backed-up copy keeps its bytes.
    func testARecycledSnapshotDoesNotOverwriteAHardLinkedCopy() throws {
        let folder = makeFolder()
        let home = try open(folder)
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        let backup = Files.directoryName(folder.path) + "/backup.json"
        let oldest = folder.snapshots + "/" + folder.states().first!
        XCTAssertEqual(link(oldest, backup), 0)
        let before = try Files.read(backup)
        for round in 0..<(SnapshotKeeper.keptStates + 2) {
            try home.tracker.updateProject(id: 1, changes: ProjectChanges(name: "Writing \(round)"))
            home.tracker.tidyUp()
        }
        XCTAssertTrue(Files.same(try Files.read(backup), before), "a hard link to a pruned snapshot keeps its bytes")
        XCTAssertNoThrow(try SnapshotKeeper.state(at: backup))
    }
}
