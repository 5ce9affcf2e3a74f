import XCTest
@testable import TimeCore

/// Today's finished sessions the payload holds itself are serialized one by one and kept between
/// changes (SnapshotKeeper+Inline.swift). After every kind of change to them, the newest snapshot
/// must hold exactly what the store holds, and the inline list must be the bytes a whole read gives.
final class InlineSessionsTests: KeeperTestCase {
    override func setUpWithError() throws {
        try super.setUpWithError()
        clock.time = utc(2026, 11, 28, 8)
    }

    /// The oracles: the snapshot's records against the store's, read whole; the list against
    /// today's finished sessions read whole from the store and serialized.
    private func check(_ what: String) throws {
        let newest = try XCTUnwrap(keeper.entries.last)
        XCTAssertEqual(try keeper.state(of: newest).differences(from: DataState(store: tracker.store)), [], what)
        let today = CivilDate.utcDayKey(clock.time)
        let finished = try tracker.store.allSessions().filter { $0.end != nil && CivilDate.utcDayKey($0.start) == today }
        let inline = Array(finished.suffix(finished.count % SnapshotKeeper.inlineBlock))
        let payload = try SnapshotFormat.read(SnapshotSlots.snapshotBytes(at: newest.path)).payload
        let held = (payload["sessions"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
        XCTAssertEqual(held, inline.map(\.id), what)
    }

    func testEveryKindOfChangeToTodaysSessionsReachesTheInlineList() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        try tracker.createProject(name: "Reading", color: "", category: "")
        // Past a whole block: the block goes into the day's chunk, the rest stays inline.
        for index in 0..<(SnapshotKeeper.inlineBlock + 5) {
            clock.time += 60
            try tracker.startProject(index % 2 == 0 ? "Writing" : "Reading")
            try check("switch \(index)")
        }
        clock.time += 60
        try tracker.stop()
        try check("stopped")
        let inlineID = try XCTUnwrap(try tracker.store.allSessions().last { $0.end != nil }?.id)
        try tracker.setNote(session: inlineID, note: "a note on an inline session")
        try check("a note on an inline session")
        try tracker.editSession(id: inlineID - 1, changes: SessionChanges(start: clock.time - 3 * 3600, duration: "1m"))
        try check("an inline session edited")
        _ = try tracker.undo()
        try check("the edit undone")
        try tracker.deleteSession(id: inlineID - 2)
        try check("an inline session deleted")
        _ = try tracker.undo()
        try check("the delete undone")
        _ = try tracker.redo()
        try check("and redone")
        try tracker.addSession(project: 1, start: clock.time - 7200, duration: "10m", note: "added by hand")
        try check("a session added by hand, earlier today")
        clock.time += 60
        try tracker.startProject("Writing")
        clock.time += 60
        try tracker.stop()
        _ = try tracker.undo()
        try check("a stop undone")
    }

    /// A refused change, then another connection's write to an inline session: the next
    /// change's snapshot reads them again.
    func testARefusedChangeAndAnotherConnectionsWriteAreReadAgain() throws {
        try tracker.createProject(name: "Writing", color: "", category: "")
        for _ in 0..<3 {
            clock.time += 60
            try tracker.startProject("Writing")
            clock.time += 60
            try tracker.stop()
        }
        try check("three sessions")
        let last = try XCTUnwrap(try tracker.store.allSessions().last?.id)
        Files.injectedWriteFailure = EIO
        defer { Files.injectedWriteFailure = nil }
        XCTAssertThrowsError(try tracker.setNote(session: last, note: "refused"))
        Files.injectedWriteFailure = nil
        clock.time += 60
        try tracker.startProject("Writing")
        try check("after the refused change")
        let other = try SQLiteDatabase(path: folder.path + "/time.sqlite", mode: .readWrite)
        try other.run("UPDATE sessions SET note = 'written elsewhere' WHERE id = ?", .integer(last - 1))
        clock.time += 60
        try tracker.stop()
        try check("after another connection's write")
        XCTAssertEqual(try tracker.store.session(id: last - 1)?.note, "written elsewhere")
    }
}

/// The UTC day's key, written digit by digit, is the day's civil date as it prints itself, on
/// every day of the years the tracker takes and past them.
final class DayKeyTests: XCTestCase {
    func testTheDayKeyIsTheCivilDate() {
        var times: [Int64] = [0, -1, 86399, 86400, 253_402_300_799, 253_402_300_800, -62_135_596_800, -62_135_596_801]
        var random = SystemRandomNumberGenerator()
        for _ in 0..<20_000 { times.append(Int64.random(in: -70_000_000_000...300_000_000_000, using: &random)) }
        for day in 0..<(2 * 366) { times.append(951_782_400 + Int64(day) * 86400) }   // 2000-02-29 and two years on
        for time in times {
            let days = Int((time >= 0 ? time : time - 86399) / 86400)
            XCTAssertEqual(CivilDate.utcDayKey(time), CivilDate(dayNumber: days).description, "\(time)")
        }
    }
}
