import XCTest
@testable import TimeCore

/// A carried index chunk's form is made once per chunk and durable tree (SnapshotKeeper+Chunks,
/// `carriedForm`). A patch must always go against the tree durable now: after a second batch
/// flush, a chunk carried before it (here, an edit years back made again) must not travel as its
/// old patch against the first flush's tree. What a power cut and the pruning of that older tree
/// leave, the chunks of the durable tree only, must still read as the newest state.
final class CarriedFormTests: XCTestCase {
    private var folder: Folder!
    private var clock: SafetyClock!

    override func setUp() {
        clock = SafetyClock()
        clock.time = utc(2026, 11, 28, 9)
        folder = Folder()
    }

    override func tearDown() { folder.remove() }

    private func newestSlotPath() throws -> String {
        let slots = (0..<2).compactMap { try? SnapshotSlots.body(of: Files.read(folder.snapshots + "/slot-\($0).snapshot")) }
        let newest = try XCTUnwrap(slots.max { $0.sequence < $1.sequence })
        return folder.snapshots + "/slot-\(newest.sequence % 2).snapshot"
    }

    func testAPatchAlwaysGoesAgainstTheTreeDurableNow() throws {
        let home = try DataHome(directory: folder.path, clock: clock)
        let tracker = home.tracker
        let keeper = try XCTUnwrap(home.keeper)
        try tracker.createProject(name: "Writing", color: "", category: "")
        // Five years, a session every third day: enough for an index's patch to be its smaller form.
        for day in stride(from: 3, to: 1800, by: 3) {
            try tracker.addSession(project: 1, start: clock.time - Int64(day) * 86400, duration: "30m", note: "")
        }
        let old = try XCTUnwrap(try tracker.sessions(project: 1, from: 0, to: clock.time).first)
        try keeper.flushChunks()
        try tracker.setNote(session: old.id, note: "a")   // carried against the first flush's tree
        try tracker.setNote(session: old.id, note: "b")
        try keeper.flushChunks()
        let durable = try ChunkTreeContents(snapshot: try XCTUnwrap(keeper.entries.last).path).files
        try tracker.setNote(session: old.id, note: "a")   // the same chunks again, now against the second
        XCTAssertFalse(try SnapshotSlots.body(of: Files.read(try newestSlotPath())).carried.isEmpty, "the edit carries its chunks")
        let expected = try DataState(store: tracker.store)

        for name in folder.chunks() where !durable.contains(name) { Files.remove(folder.snapshots + "/" + name) }
        XCTAssertEqual(try SnapshotKeeper.state(at: try newestSlotPath()), expected)
    }
}
