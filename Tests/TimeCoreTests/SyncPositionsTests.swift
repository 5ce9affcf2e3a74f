import Glibc
import XCTest
@testable import TimeCore

/// Start-up with sync on writes into the store only what arrived since the last merge: the
/// store keeps, with each merge, how far it holds every other device's records; a position that
/// does not match the files falls back to comparing everything (docs/sync.md, "Start-up").
final class SyncPositionsTests: SyncTestCase {
    private func sessions(_ tracker: Tracker) throws -> [String] {
        try tracker.store.allSessions().map { "\($0.globalID) \($0.start) \($0.note)" }.sorted()
    }

    func testARestartWritesOnlyWhatArrivedSinceAndFallsBackWhenThePositionDoesNotMatch() throws {
        let desktop = try home("desktop")
        try desktop.tracker.createProject(name: "Client A", color: "", category: "")
        for day in 1...5 {
            _ = try desktop.tracker.addSession(project: 1, start: utc(2026, 5, day, 9), duration: "1h", note: "day \(day)")
        }
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop", wallMilliseconds: wall)
        let laptopID = SyncRecord.newID()
        var laptop: DataHome? = try home("laptop")
        var a: SyncEngine? = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(try sessions(laptop!.tracker), try sessions(desktop.tracker))
        let desktopRecords = Int(b.replica.recordCount)

        // A restart: every record of the desktop's is known to the store; nothing is written.
        let snapshots = try XCTUnwrap(laptop!.keeper).entries.count
        try a!.stop()
        (a, laptop) = (nil, nil)
        laptop = try home("laptop")
        a = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(a!.alreadyHeld, desktopRecords)
        XCTAssertEqual(try XCTUnwrap(laptop!.keeper).entries.count, snapshots, "no change was made at start")
        XCTAssertEqual(try sessions(laptop!.tracker), try sessions(desktop.tracker))

        // What arrives while the laptop is off is all that is written at the next start.
        try a!.stop()
        (a, laptop) = (nil, nil)
        clock.advance(600)
        _ = try desktop.tracker.addSession(project: 1, start: utc(2026, 5, 6, 9), duration: "1h", note: "day 6")
        try b.publish(wallMilliseconds: wall)
        try b.flushLog()
        laptop = try home("laptop")
        a = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(a!.alreadyHeld, desktopRecords)
        XCTAssertEqual(try sessions(laptop!.tracker), try sessions(desktop.tracker))

        // A position that does not match the files (here: the line it names is not there): everything again, same result.
        try a!.stop()
        (a, laptop) = (nil, nil)
        do {
            let home = try self.home("laptop")
            var positions = try XCTUnwrap(SyncPositions.load(home.tracker.store, root: SyncLayout(folder: folder).root))
            for key in positions.devices.keys { positions.devices[key]?.lastSum = String(repeating: "0", count: 64) }
            try home.tracker.change(recordingStep: false) { try positions.save(home.tracker.store) }
        }
        laptop = try home("laptop")
        a = try SyncEngine(tracker: laptop!.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        XCTAssertEqual(a!.alreadyHeld, 0)
        XCTAssertEqual(try sessions(laptop!.tracker), try sessions(desktop.tracker))
        XCTAssertEqual(SyncPositions.load(laptop!.tracker.store, root: SyncLayout(folder: folder).root)?.held(in: SyncLayout(folder: folder)).count, 2,
                       "positions that match again were saved, of both devices (this one's own log too)")
        try a!.stop()
        try b.stop()
    }
}
