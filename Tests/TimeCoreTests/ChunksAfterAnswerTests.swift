import XCTest
@testable import TimeCore

/// Chunk files written after the answer, as the agent has them (`writeAfterAnswer`,
/// SnapshotKeeper+Chunks): until `tidyUp` the slot alone holds a new chunk, and it holds the whole
/// state; then the files are there and whole. A batch flush never makes a chunk durable that has
/// no file yet, and a start after a crash before the tidy-up puts the files back from the slot.
final class ChunksAfterAnswerTests: KeeperTestCase {
    private let year: Int64 = 365 * 86400

    override func setUpWithError() throws {
        try super.setUpWithError()
        clock.time = utc(2026, 11, 28, 9)
        keeper.writeAfterAnswer = true
        _ = try tracker.createProject(name: "Writing", color: "", category: "")
        keeper.tidyUp()
    }

    private func newestSlot() throws -> (path: String, body: SnapshotSlots.Body) {
        let paths = (0..<2).map { folder.snapshots + "/slot-\($0).snapshot" }
        let bodies = paths.compactMap { path in (try? SnapshotSlots.body(of: Files.read(path))).map { (path, $0) } }
        return try XCTUnwrap(bodies.max { $0.1.sequence < $1.1.sequence })
    }

    private func newestTreeFiles() throws -> Set<String> {
        try ChunkTreeContents(snapshot: try newestSlot().path).files
    }

    func testAChunkWaitsInTheSlotUntilTheTidyUp() throws {
        try tracker.addSession(project: 1, start: clock.time - 3 * year, duration: "1h", note: "years back")
        let slot = try newestSlot()
        XCTAssertEqual(slot.body.carried.count, 4, "the day, month, year and root travel in the slot")
        for hash in slot.body.carried.keys {
            XCTAssertFalse(Files.exists(folder.snapshots + "/" + SnapshotKeeper.chunkName(hash)), "not written before the answer")
        }
        XCTAssertEqual(try SnapshotKeeper.state(at: slot.path), try DataState(store: tracker.store), "the slot holds the whole state")
        keeper.tidyUp()
        for hash in slot.body.carried.keys {
            let bytes = try Files.read(folder.snapshots + "/" + SnapshotKeeper.chunkName(hash))
            XCTAssertEqual(SHA256.hex(bytes), hash, "written whole after the answer")
        }
        XCTAssertNoThrow(try newestTreeFiles())
    }

    private func carriedSize() throws -> Int {
        try newestSlot().body.carried.values.reduce(0) { $0 + $1.count }
    }

    /// A session added on day `day` of a run of days years back: a day chunk and its indexes each.
    private func addDay(_ day: Int) throws {
        clock.time += 60
        try tracker.addSession(project: 1, start: utc(2022, 5, 1, 9) + Int64(day) * 86400, duration: "1h", note: "")
    }

    /// Past the limit, the change that finds its chunks too many still answers after its one
    /// flush: its slot carries them all, and the batch flush (a `syncfs` of the whole file system,
    /// however long that takes) comes with the tidy-up after the answer.
    func testTheBatchFlushComesAfterTheAnswer() throws {
        var day = 0
        repeat {
            keeper.tidyUp()
            try addDay(day)
            day += 1
        } while !keeper.chunkFlushDue && day <= SnapshotKeeper.carriedChanges + 1
        XCTAssertFalse(try newestSlot().body.carried.isEmpty, "the change past the limit did not flush")
        XCTAssertTrue(keeper.chunkFlushDue, "the flush is left for the tidy-up")
        XCTAssertEqual(try SnapshotKeeper.state(at: try newestSlot().path), try DataState(store: tracker.store),
                       "the slot of the change past the limit holds the whole state")
        keeper.tidyUp()
        XCTAssertFalse(keeper.chunkFlushDue)
        XCTAssertTrue(keeper.unflushed.isEmpty, "every chunk written is durable after the tidy-up")
        XCTAssertTrue(keeper.chunksDue.isEmpty)
        // Every chunk the newest state names is a whole file (ChunkTreeContents throws on one missing).
        let contents = try ChunkTreeContents(snapshot: try newestSlot().path)
        XCTAssertEqual(contents.sessionIDs, try tracker.store.allSessions().filter { $0.end != nil }.map(\.id).sorted())
        // The next change carries its own chunks only.
        try addDay(day)
        XCTAssertEqual(try newestSlot().body.carried.count, 4, "the day, month, year and root")
        XCTAssertLessThan(try carriedSize(), SnapshotKeeper.carriedLimit / 4)
    }

    /// A flush after the answer that fails (here its chunk files cannot be written) loses
    /// nothing: the slots go on carrying the chunks. At twice the limit a change flushes before
    /// its answer, writing what waits first, and its slot carries nothing.
    func testABatchFlushThatFailedAfterTheAnswerComesBeforeOneAtTwiceTheLimit() throws {
        var day = 0, flushedBefore = false, largest = 0, pastLimit: Int?
        while !flushedBefore && day <= 2 * SnapshotKeeper.carriedChanges + 1 {
            Files.injectedWriteFailure = EIO
            keeper.tidyUp()
            Files.injectedWriteFailure = nil
            try addDay(day)
            day += 1
            XCTAssertEqual(try SnapshotKeeper.state(at: try newestSlot().path), try DataState(store: tracker.store), "day \(day)")
            flushedBefore = try newestSlot().body.carried.isEmpty
            largest = max(largest, try carriedSize())
            if keeper.chunkFlushDue && pastLimit == nil { pastLimit = day }
        }
        XCTAssertTrue(flushedBefore, "a change flushed before its answer")
        let firstPast = try XCTUnwrap(pastLimit, "the carried chunks passed the limit")
        XCTAssertGreaterThan(day, firstPast, "the slots went on carrying the chunks while the flush failed")
        XCTAssertLessThanOrEqual(largest, 2 * SnapshotKeeper.carriedLimit + SnapshotKeeper.carriedLimit / 4)
        XCTAssertTrue(keeper.chunksDue.isEmpty)
        XCTAssertTrue(keeper.unflushed.isEmpty)
        // The change that flushed had chunks of its own waiting, and no tidy-up wrote them: every
        // chunk the newest state names is a whole file all the same.
        let contents = try ChunkTreeContents(snapshot: try newestSlot().path)
        XCTAssertEqual(contents.sessionIDs, try tracker.store.allSessions().filter { $0.end != nil }.map(\.id).sorted())
    }

    func testAStartAfterACrashBeforeTheTidyUpPutsTheChunksBack() throws {
        try tracker.addSession(project: 1, start: clock.time - 3 * year, duration: "1h", note: "years back")
        let expected = try DataState(store: tracker.store)
        let carried = try newestSlot().body.carried.keys
        // The agent ends here (no tidy-up): the next start finds the chunks in the slot only.
        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
        XCTAssertEqual(try DataState(store: tracker.store), expected)
        for hash in carried {
            XCTAssertEqual(SHA256.hex(try Files.read(folder.snapshots + "/" + SnapshotKeeper.chunkName(hash))), hash, "put back at start")
        }
    }
}
