import XCTest
@testable import TimeCore

/// The store keeps the open session it read until sessions or segments are written, so that a
/// timer change and its snapshot read it once (Store+Sessions.swift). What is kept must always be
/// what the store holds: after every kind of change, a refused one, and another connection's commit.
final class KeptOpenSessionTests: KeeperTestCase {
    /// The oracle: every session read whole, without what the store keeps, and the open one taken.
    private func openReadWhole() throws -> WorkSession? { try tracker.store.allSessions().first { $0.end == nil } }

    private func check(_ what: String) throws {
        XCTAssertEqual(try tracker.store.openSession(), try openReadWhole(), what)
        let newest = try XCTUnwrap(keeper.entries.last)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [], what)
    }

    func testEveryTimerChangeKeepsTheOpenSessionTheStoreHolds() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Reading", color: "", category: "")
        clock.time += 60
        try tracker.startProject("Writing")
        try check("started")
        for round in 0..<3 {
            clock.time += 60
            try tracker.pause()
            try check("paused, round \(round)")
            clock.time += 60
            try tracker.resume()
            try check("resumed, round \(round)")
        }
        try tracker.addNote("a line")
        try check("a note added")
        _ = try tracker.undo()
        try check("the note undone (a changeset applied)")
        _ = try tracker.redo()
        try check("and redone")
        clock.time += 60
        try tracker.startProject("Reading")
        try check("switched")
        clock.time += 60
        try tracker.stop()
        try check("stopped")
        XCTAssertNil(try tracker.store.openSession())
        _ = try tracker.undo()
        try check("the stop undone")
        XCTAssertNotNil(try tracker.store.openSession())
    }

    /// A change refused after the open session was read back: its rows are rolled back, and
    /// neither the store nor the tracker may go on with the session as the refused change left it.
    func testARefusedChangeKeepsNothingOfIt() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.startProject("Writing")
        clock.time += 60
        try tracker.pause()
        clock.time += 60
        Files.injectedWriteFailure = EIO
        defer { Files.injectedWriteFailure = nil }
        XCTAssertThrowsError(try tracker.resume())
        Files.injectedWriteFailure = nil
        XCTAssertEqual(try tracker.store.openSession(), try openReadWhole())
        XCTAssertEqual(try tracker.status().state, .paused)
        clock.time += 60
        try tracker.resume()
        try check("resumed after the refused change")
    }

    /// Another connection's commit is not seen by the update hook: the next change's snapshot
    /// holds what it wrote, even a change that writes neither sessions nor segments.
    func testAnotherConnectionsCommitReachesTheNextSnapshot() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.startProject("Writing")
        clock.time += 60
        try tracker.pause()
        let other = try SQLiteDatabase(path: folder.path + "/time.sqlite", mode: .readWrite)
        try other.execute("UPDATE sessions SET note = 'written elsewhere' WHERE end IS NULL")
        try tracker.addCategory("Work")
        try check("a category added after another connection's commit")
        XCTAssertEqual(try tracker.store.openSession()?.note, "written elsewhere")
    }
}
