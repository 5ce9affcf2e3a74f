import XCTest
@testable import TimeCore

/// The kept state files as the agent writes them, after the answer (SnapshotKeeper+KeptFile.swift):
/// a change back to a state an older file keeps (an undo, an edit taken back and forth) keeps it
/// once, under the newest number, in a file that verifies and holds the store's state record by
/// record; the older file is gone, and a start finds the data as it was.
final class KeptFileTests: KeeperTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        keeper.writeAfterAnswer = true
        _ = try tracker.createProject(name: "Writing", color: "", category: "")
        keeper.tidyUp()
    }

    private func change(_ body: () throws -> Void) throws {
        clock.time += 60
        try body()
        keeper.tidyUp()
    }

    /// Every kept file verifies and holds its state once; the newest holds the store's state.
    private func checkKeptFiles(_ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let onDisk = SnapshotKeeper.scan(folder.snapshots)
        XCTAssertEqual(onDisk, keeper.entries, "\(what): the files are the keeper's entries", file: file, line: line)
        XCTAssertEqual(Set(onDisk.map(\.stateHash)).count, onDisk.count, "\(what): each state kept once", file: file, line: line)
        for entry in onDisk {
            XCTAssertEqual(try SnapshotFormat.read(Files.read(entry.path)).stateHash, entry.stateHash, what, file: file, line: line)
        }
        let newest = try XCTUnwrap(onDisk.last, file: file, line: line)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [], what, file: file, line: line)
    }

    func testAStateTakenBackIsKeptOnceUnderTheNewestNumber() throws {
        try change { _ = try tracker.startProject("Writing") }
        let started = try XCTUnwrap(keeper.entries.last)
        try change { try tracker.addNote("first draft") }
        try checkKeptFiles("after the note")
        try change { _ = try tracker.undo() }
        let undone = try XCTUnwrap(keeper.entries.last)
        XCTAssertEqual(undone.stateHash, started.stateHash, "the undo went back to the state after the start")
        XCTAssertGreaterThan(undone.sequence, started.sequence)
        XCTAssertFalse(Files.exists(started.path), "the older file of the same state is gone")
        try checkKeptFiles("after the undo")
        try change { _ = try tracker.redo() }
        try checkKeptFiles("after the redo")

        // Back and forth more times than there are kept files.
        for round in 0..<(SnapshotKeeper.keptStates + 3) {
            try change { _ = round % 2 == 0 ? try tracker.undo() : try tracker.redo() }
        }
        try checkKeptFiles("after many undos and redos")
        let expected = try DataState(store: tracker.store)
        home = nil
        home = try DataHome(directory: folder.path, clock: clock)
        XCTAssertEqual(home.status, .ok, home.status.message)
        XCTAssertEqual(try DataState(store: tracker.store).differences(from: expected), [])
    }

    func testTheOlderFileStaysUntilTheNewOneIsWritten() throws {
        try change { _ = try tracker.startProject("Writing") }
        let started = try XCTUnwrap(keeper.entries.last)
        try change { try tracker.addNote("first draft") }
        clock.time += 60
        _ = try tracker.undo()
        // Answered, not yet tidied up: the state is durable in its slot, and its older file is
        // still there until the new one is written.
        XCTAssertTrue(Files.exists(started.path))
        XCTAssertEqual(keeper.entries.last?.stateHash, started.stateHash)
        keeper.tidyUp()
        XCTAssertFalse(Files.exists(started.path))
        try checkKeptFiles("after the tidy-up")
    }
}
