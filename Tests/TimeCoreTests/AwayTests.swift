import Foundation
import XCTest
@testable import TimeCore

/// Away spans: recorded only while a session runs, counted until answered, and each answer
/// checked on the session's segments.
final class AwayTests: TrackerTestCase {
    private func startWriting() throws -> SessionID {
        try tracker.createProject(name: "Writing", color: "", category: "")
        return try tracker.startProject("Writing")
    }

    /// Starts at base, away from base+600 (lock) to base+3000, returns the session id.
    private func awayHalfAnHour() throws -> SessionID {
        let id = try startWriting()
        clock.advance(600)
        XCTAssertEqual(try tracker.markAway(reason: .lock, at: clock.now()), base + 600)
        XCTAssertEqual(try tracker.awaySince(), base + 600)
        clock.advance(2400)
        let ended = try XCTUnwrap(tracker.markBack(at: clock.now()))
        XCTAssertEqual(ended.start, base + 600)
        XCTAssertEqual(ended.end, base + 3000)
        XCTAssertEqual(try tracker.awaySince(), 0)
        clock.advance(300)
        return id
    }

    func testNothingIsRecordedUnlessASessionRuns() throws {
        XCTAssertNil(try tracker.markAway(reason: .lock, at: base))
        _ = try startWriting()
        try tracker.pause()
        XCTAssertNil(try tracker.markAway(reason: .idle, at: base))
        XCTAssertNil(try tracker.markBack(at: base + 100), "no error when nobody was away")
        XCTAssertEqual(try tracker.pendingAway(), [])
    }

    func testAShortAbsenceIsForgottenAndALongOneIsPendingAndCounted() throws {
        let id = try startWriting()
        clock.advance(100)
        try tracker.markAway(reason: .idle, at: base + 50)
        clock.advance(9)
        XCTAssertEqual(try tracker.pendingAway(), [], "a span counts from one minute on")
        clock.advance(1)
        XCTAssertEqual(try tracker.pendingAway().map(\.end), [nil], "listed while it lasts, end 0")
        try tracker.markBack(at: base + 105)
        XCTAssertEqual(try tracker.store.awaySpans(), [], "55 seconds are forgotten")

        clock.advance(1000)
        try tracker.markAway(reason: .manual, at: clock.now() - 5000)
        XCTAssertEqual(try tracker.awaySince(), base, "never before the running segment began")
        clock.advance(120)
        try tracker.markBack(at: clock.now())
        let pending = try tracker.pendingAway()
        XCTAssertEqual(pending.count, 1)
        XCTAssertEqual(pending[0].reason, .manual)
        XCTAssertEqual(tracker.projectName(of: pending[0]), "Writing")
        XCTAssertEqual(try tracker.session(id: id).activeSeconds(at: clock.now()), clock.now() - base, "unanswered time stays counted")
    }

    func testPausingWhileAwayEndsTheSpanThere() throws {
        _ = try startWriting()
        try tracker.markAway(reason: .lock, at: base)
        clock.advance(600)
        try tracker.pause()
        XCTAssertEqual(try tracker.awaySince(), 0)
        XCTAssertEqual(try tracker.pendingAway().map(\.end), [base + 600])
        clock.advance(600)
        try tracker.resume()
        try tracker.stop()
        XCTAssertEqual(try tracker.pendingAway().count, 1, "stopping does not answer it")
    }

    func testKeepLeavesTheSegmentsAsTheyWere() throws {
        let id = try awayHalfAnHour()
        let before = try tracker.session(id: id)
        let unanswered = try tracker.weeklyReport(week: "", format: "json")
        try tracker.resolveAway(id: 0, choice: "keep")
        XCTAssertEqual(try tracker.session(id: id), before)
        XCTAssertEqual(try tracker.weeklyReport(week: "", format: "json"), unanswered, "reports are the same for unanswered and kept time")
        XCTAssertEqual(try tracker.pendingAway(), [])
        assertTrackerError("NoSuchAway", try tracker.resolveAway(id: 0, choice: "keep"))
    }

    func testDiscardCutsTheSpanOutAndTheTimerKeepsRunning() throws {
        let id = try awayHalfAnHour()
        try tracker.resolveAway(id: 0, choice: " Discard ")
        let session = try tracker.session(id: id)
        XCTAssertEqual(session.segments, [Segment(start: base, end: base + 600), Segment(start: base + 3000, end: nil)])
        XCTAssertTrue(session.isRunning)
        XCTAssertEqual(session.activeSeconds(at: clock.now()), 600 + 300)
        XCTAssertEqual(try tracker.status().runningSince, base + 3000)
    }

    /// An answer is a step of the undo history with its own sentence; undoing it brings the span
    /// back, pending and counted, and the session's segments as they were.
    func testAnAnswerIsUndoneLikeAnyOtherChange() throws {
        let id = try awayHalfAnHour()
        let before = try tracker.session(id: id)
        let pending = try tracker.pendingAway()
        try tracker.resolveAway(id: 0, choice: "discard")
        let sentence = try tracker.canUndo()
        XCTAssertTrue(sentence.hasPrefix("Discarded"), sentence)
        XCTAssertTrue(sentence.contains("Writing"), sentence)
        XCTAssertEqual(try tracker.undo(), sentence)
        XCTAssertEqual(try tracker.session(id: id), before)
        XCTAssertEqual(try tracker.pendingAway(), pending)
        XCTAssertEqual(try tracker.redo(), sentence)
        XCTAssertEqual(try tracker.pendingAway(), [])
        XCTAssertEqual(try tracker.session(id: id).segments, [Segment(start: base, end: base + 600), Segment(start: base + 3000, end: nil)])
    }

    func testStopEndsTheSessionAtTheSpansStart() throws {
        let id = try awayHalfAnHour()
        let span = try XCTUnwrap(tracker.pendingAway().first)
        try tracker.resolveAway(id: span.id, choice: "stop")
        let session = try tracker.session(id: id)
        XCTAssertEqual(session.end, base + 600)
        XCTAssertEqual(session.segments, [Segment(start: base, end: base + 600)])
        XCTAssertEqual(try tracker.status().state, .idle)
    }

    func testStopOnACompletedSessionMovesItsEndBack() throws {
        let id = try awayHalfAnHour()
        try tracker.pause()
        clock.advance(60)
        try tracker.resume()
        clock.advance(60)
        try tracker.stop()
        try tracker.resolveAway(id: 0, choice: "stop")
        let session = try tracker.session(id: id)
        XCTAssertEqual(session.end, base + 600)
        XCTAssertEqual(session.segments, [Segment(start: base, end: base + 600)])
    }

    func testDiscardOfALastingSpanEndsItNow() throws {
        let id = try startWriting()
        clock.advance(100)
        try tracker.markAway(reason: .idle, at: base + 100)
        clock.advance(500)
        try tracker.resolveAway(id: 0, choice: "discard")
        XCTAssertEqual(try tracker.session(id: id).segments, [Segment(start: base, end: base + 100), Segment(start: base + 600, end: nil)])
        XCTAssertEqual(try tracker.awaySince(), 0)
    }

    func testBadAnswersChangeNothing() throws {
        _ = try awayHalfAnHour()
        let before = try DataState(store: tracker.store)
        assertTrackerError("InvalidArgument", try tracker.resolveAway(id: 0, choice: "forget"))
        assertTrackerError("NoSuchAway", try tracker.resolveAway(id: 99, choice: "keep"))
        assertTrackerError("InvalidArgument", try tracker.setAwayMinutes(AwayState.maximumMinutes + 1))
        XCTAssertEqual(try DataState(store: tracker.store), before)
    }

    func testSegmentArithmetic() {
        let segments = [Segment(start: 0, end: 100), Segment(start: 200, end: 300), Segment(start: 400, end: nil)]
        XCTAssertEqual(AwayCut.segments(segments, removing: 50, 250),
                       [Segment(start: 0, end: 50), Segment(start: 250, end: 300), Segment(start: 400, end: nil)])
        XCTAssertEqual(AwayCut.segments(segments, removing: 150, 500), [Segment(start: 0, end: 100), Segment(start: 500, end: nil)])
        XCTAssertEqual(AwayCut.segments(segments, removing: 0, 100), [Segment(start: 200, end: 300), Segment(start: 400, end: nil)])
        XCTAssertEqual(AwayCut.segments(segments, endingAt: 250), [Segment(start: 0, end: 100), Segment(start: 200, end: 250)])
        XCTAssertEqual(AwayCut.segments(segments, endingAt: 400), [Segment(start: 0, end: 100), Segment(start: 200, end: 300)])
    }

    func testSpansAndTheSettingSurviveARestartAndIdsAreNeverReused() throws {
        _ = try awayHalfAnHour()
        try tracker.setAwayMinutes(5)
        let first = try XCTUnwrap(tracker.pendingAway().first)
        try reopen()
        XCTAssertEqual(tracker.awayMinutes, 5)
        XCTAssertEqual(try tracker.pendingAway(), [first])
        try tracker.resolveAway(id: first.id, choice: "keep")
        try tracker.markAway(reason: .lock, at: clock.now())
        clock.advance(120)
        try tracker.markBack(at: clock.now())
        XCTAssertEqual(try tracker.pendingAway().map(\.id), [first.id + 1])
    }

    func testDeletingASessionRemovesItsSpans() throws {
        let id = try awayHalfAnHour()
        try tracker.stop()
        try tracker.deleteSession(id: id)
        XCTAssertEqual(try tracker.pendingAway(), [])
    }
}

/// Schema v5 and snapshot payload v5: older stores and snapshots migrate forward, and the away
/// part survives a restore from a snapshot.
final class AwayStorageTests: XCTestCase {
    private final class FixedClock: Clock { var time: Int64 = 1_795_000_000; func now() -> Int64 { time } }
    private var folder: String!
    private let clock = FixedClock()

    override func setUpWithError() throws {
        folder = try makeTemporaryDirectory() + "/data"
    }

    override func tearDown() {
        if let folder { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: folder).deletingLastPathComponent().path) }
    }

    private func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name)").path
    }

    /// A real v4 store written by the sqlite3 command line migrates with every record.
    func testVersion4StoreFromTheSQLite3CommandLineMigrates() throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sqlite.arguments = ["sqlite3", folder + "/time.sqlite"]
        sqlite.standardInput = FileHandle(forReadingAtPath: fixture("store-v4-open-session.sql"))
        sqlite.standardOutput = FileHandle.nullDevice
        try sqlite.run()
        sqlite.waitUntilExit()
        XCTAssertEqual(sqlite.terminationStatus, 0)
        let original = try Files.read(folder + "/time.sqlite")
        let sessions = [
            WorkSession(id: 1, projectID: 1, start: 1_794_000_000, end: 1_794_007_200, unrecordedSeconds: 0, note: "drafting",
                        segments: [Segment(start: 1_794_000_000, end: 1_794_003_600), Segment(start: 1_794_005_400, end: 1_794_007_200)]),
            WorkSession(id: 2, projectID: 2, start: 1_794_100_000, end: 1_794_103_600, unrecordedSeconds: 1800, note: "legacy total", segments: []),
            WorkSession(id: 3, projectID: 1, start: 1_794_989_400, end: nil, unrecordedSeconds: 0, note: "open",
                        segments: [Segment(start: 1_794_989_400, end: 1_794_989_700), Segment(start: 1_794_990_000, end: nil)]),
        ]
        do {
            let home = try DataHome(directory: folder, clock: clock)
            XCTAssertEqual(home.status, .ok, home.status.message)
            let tracker = home.tracker
            XCTAssertEqual(try tracker.store.database.integerPragma("user_version"), Schema.currentVersion)
            XCTAssertEqual(try tracker.store.database.query("PRAGMA foreign_key_check") { $0.string(0) }, [])
            XCTAssertEqual(try tracker.store.allSessions(), sessions)
            XCTAssertEqual(tracker.projects().map(\.name), ["Writing", "Reading"])
            XCTAssertEqual(tracker.reminderMinutes, 45)
            XCTAssertEqual(try tracker.store.awayState(), AwayState(), "no spans, the default setting")
            let archive = try XCTUnwrap(RawArchiver.list(folder + "/archives").last)
            XCTAssertEqual(try Files.read(folder + "/archives/\(archive)/time.sqlite"), original)
            // Away works on the migrated open session, and the snapshot holds it.
            try tracker.markAway(reason: .lock, at: clock.time - 600)
            try tracker.markBack(at: clock.time)
            XCTAssertEqual(try SnapshotKeeper.state(at: XCTUnwrap(home.keeper?.entries.last?.path)), try DataState(store: tracker.store))
        }
        let reopened = try DataHome(directory: folder, clock: clock)
        XCTAssertEqual(try reopened.tracker.pendingAway().map(\.start), [clock.time - 600])
        XCTAssertEqual(try reopened.tracker.store.allSessions(), sessions)
    }

    /// A v4 snapshot (a payload without `away`, as v4 wrote it) restores into the current store.
    func testVersion4SnapshotRestores() throws {
        let project = Project(id: 1, name: "Writing", color: "#3366cc", categoryID: nil, archived: false)
        let open = WorkSession(id: 1, projectID: 1, start: 1_794_990_000, end: nil, unrecordedSeconds: 0, note: "",
                               segments: [Segment(start: 1_794_990_000, end: nil)])
        let payload = SnapshotFormat.payload(categories: [], projects: [project], reminderMinutes: 30, openSession: open,
                                             chunkList: SnapshotFormat.chunkList([]))
        XCTAssertFalse(payload.contains("\"away\""))
        let file = SnapshotFormat.file(payload: payload, version: 4, createdAt: 1_794_990_100)
        let snapshots = folder + "/snapshots"
        try FileManager.default.createDirectory(atPath: snapshots, withIntermediateDirectories: true)
        try Files.writeDurably(file.bytes, to: snapshots + "/" + SnapshotKeeper.fileName(sequence: 1, stateHash: file.stateHash))
        let home = try DataHome(directory: folder, clock: clock)
        XCTAssertEqual(home.status.state, .restored, home.status.message)
        XCTAssertEqual(try home.tracker.status().session?.segments, open.segments)
        XCTAssertEqual(home.tracker.reminderMinutes, 30)
        XCTAssertEqual(home.tracker.awayMinutes, AwayState.defaultMinutes)
    }

    /// Pending spans and the setting come back from a snapshot when the store is damaged.
    func testAwaySpansAreRestoredFromTheSnapshot() throws {
        var expected: DataState
        do {
            let home = try DataHome(directory: folder, clock: clock)
            try home.tracker.createProject(name: "Writing", color: "", category: "")
            try home.tracker.startProject("Writing")
            clock.time += 600
            try home.tracker.markAway(reason: .suspend, at: clock.time - 300)
            try home.tracker.setAwayMinutes(7)
            expected = try DataState(store: home.tracker.store)
            XCTAssertEqual(expected.away.spans.count, 1)
            home.tracker.tidyUp()
        }
        try Files.writeDurably([UInt8](repeating: 7, count: 4096), to: folder + "/time.sqlite")
        for suffix in ["-wal", "-shm"] { Files.remove(folder + "/time.sqlite" + suffix) }
        let home = try DataHome(directory: folder, clock: clock)
        XCTAssertEqual(home.status.state, .restored, home.status.message)
        XCTAssertEqual(try DataState(store: home.tracker.store), expected)
        XCTAssertEqual(home.tracker.awayMinutes, 7)
        XCTAssertEqual(try home.tracker.awaySince(), clock.time - 300)
    }
}
