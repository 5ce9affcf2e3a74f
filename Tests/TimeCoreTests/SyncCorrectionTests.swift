import Glibc
import XCTest
@testable import TimeCore

/// Corrections travel like any edit (contract: "Fixing what was forgotten", sync): the open
/// session corrected on one device shows corrected on the other (as that device's open session),
/// and completed, with its segments exact, in both stores; the other device's open session is not
/// in this device's store, so nothing here can change it.
final class SyncCorrectionTests: SyncTestCase {
    private func settle(_ a: SyncEngine, _ b: SyncEngine) throws {
        for _ in 0..<3 {
            try a.publish(wallMilliseconds: wall); try b.publish(wallMilliseconds: wall)
            try a.merge(wallMilliseconds: wall); try b.merge(wallMilliseconds: wall)
        }
    }

    private func segments(_ entity: SyncEntity?) -> [[Int64?]] {
        (entity?["segments"]?.arrayValue ?? []).map { ($0.arrayValue ?? []).map(\.intValue) }
    }

    func testACorrectedSessionReachesTheOtherDeviceWithItsSegmentsAndAdjustedNeighbour() throws {
        let laptop = try home("laptop"), desktop = try home("desktop")
        try laptop.tracker.createProject(name: "Writing", color: "", category: "")
        try laptop.tracker.createProject(name: "Email", color: "", category: "")
        let email = try laptop.tracker.addSession(project: 2, start: utc(2026, 6, 1, 7), duration: "1h", note: "")
        let a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "laptop", wallMilliseconds: wall)
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop", wallMilliseconds: wall)
        try settle(a, b)

        clock.time = utc(2026, 6, 1, 9)
        let writing = try laptop.tracker.startProject("Writing", at: utc(2026, 6, 1, 7, 30), adjust: true)
        try laptop.tracker.pause(at: utc(2026, 6, 1, 8, 15))
        try settle(a, b)
        let open = try XCTUnwrap(b.openSessionsElsewhere.first)
        XCTAssertEqual(open["start"]?.intValue, utc(2026, 6, 1, 7, 30))
        XCTAssertEqual(segments(open), [[utc(2026, 6, 1, 7, 30), utc(2026, 6, 1, 8, 15)]])
        let emailGID = try laptop.tracker.session(id: email).globalID
        let emailThere = try XCTUnwrap(try desktop.tracker.store.allSessions().first { $0.globalID == emailGID })
        XCTAssertEqual(emailThere.end, utc(2026, 6, 1, 7, 30), "the shortened session travelled")
        XCTAssertEqual(emailThere.segments, [Segment(start: utc(2026, 6, 1, 7), end: utc(2026, 6, 1, 7, 30))])
        XCTAssertNil(try desktop.tracker.status().session, "the laptop's open session is not the desktop's to change")
        assertTrackerError("NoCurrentSession", try desktop.tracker.stop(at: utc(2026, 6, 1, 8, 30)))

        try laptop.tracker.stop(at: utc(2026, 6, 1, 8, 30))
        try settle(a, b)
        XCTAssertEqual(b.openSessionsElsewhere.count, 0)
        let gid = try laptop.tracker.session(id: writing).globalID
        let there = try XCTUnwrap(try desktop.tracker.store.allSessions().first { $0.globalID == gid })
        XCTAssertEqual(there.end, utc(2026, 6, 1, 8, 30))
        XCTAssertEqual(there.segments, [Segment(start: utc(2026, 6, 1, 7, 30), end: utc(2026, 6, 1, 8, 15))])
    }
}
