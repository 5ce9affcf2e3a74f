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

    func testABatchFlushWritesWhatWaitsBeforeItFlushes() throws {
        var flushed = false
        for day in 0..<(SnapshotKeeper.carriedChanges + 4) where !flushed {
            clock.time += 60
            try tracker.addSession(project: 1, start: utc(2022, 5, 1, 9) + Int64(day) * 86400, duration: "1h", note: "")
            // The change that flushes has chunks of its own waiting: no tidy-up comes before it.
            flushed = try newestSlot().body.carried.isEmpty
            if !flushed { keeper.tidyUp() }
        }
        XCTAssertTrue(flushed, "a batch flush came")
        XCTAssertTrue(keeper.chunksDue.isEmpty)
        // Every chunk the newest state names is a whole file, though no tidy-up ran after the flush.
        // (ChunkTreeContents reads every file the tree names, and throws on one missing.)
        let contents = try ChunkTreeContents(snapshot: try newestSlot().path)
        XCTAssertEqual(contents.sessionIDs, try tracker.store.allSessions().filter { $0.end != nil }.map(\.id).sorted())
        XCTAssertEqual(try SnapshotKeeper.state(at: try newestSlot().path), try DataState(store: tracker.store))
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
