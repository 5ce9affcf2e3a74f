import Glibc
import XCTest
@testable import TimeCore

/// Two devices, each a real data folder (store, snapshots, the change gate), one sync folder
/// between them: local changes are published, the other device's records come into the store
/// as one verified change per batch, and both stores converge.
final class SyncEngineTests: SyncTestCase {
    /// What a person sees on a device: projects by name, completed sessions by start.
    private func view(_ tracker: Tracker) throws -> [String] {
        let projects = Dictionary(uniqueKeysWithValues: tracker.projects().map { ($0.id, $0) })
        return try tracker.store.allSessions().map { session in
            "\(session.globalID) \(projects[session.projectID]!.name) \(projects[session.projectID]!.globalID) \(session.start)-\(session.end.map(String.init) ?? "open") \(session.note)"
        }.sorted() + tracker.projects().map { "project \($0.globalID) \($0.name) \($0.archived)" }.sorted()
    }

    private func settle(_ a: SyncEngine, _ b: SyncEngine) throws {
        for _ in 0..<3 {
            try a.publish(wallMilliseconds: wall); try b.publish(wallMilliseconds: wall)
            try a.merge(wallMilliseconds: wall); try b.merge(wallMilliseconds: wall)
        }
    }

    func testTwoDevicesConvergeThroughTheGateAndKeepTheirOwnTimers() throws {
        let laptop = try home("laptop")
        let desktop = try home("desktop")
        // Offline, both make a project of the same name and work in it.
        try laptop.tracker.createProject(name: "Client A", color: "", category: "")
        _ = try laptop.tracker.addSession(project: 1, start: utc(2026, 5, 29, 9), duration: "2h", note: "laptop work")
        try desktop.tracker.createProject(name: "client a", color: "", category: "")
        _ = try desktop.tracker.addSession(project: 1, start: utc(2026, 5, 28, 14), duration: "1h", note: "desktop work")
        let laptopID = SyncRecord.newID(), desktopID = SyncRecord.newID()
        let a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        clock.advance(60)
        let snapshotsBefore = try XCTUnwrap(desktop.keeper).entries.count
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: desktopID, deviceName: "desktop", wallMilliseconds: wall)
        try settle(a, b)

        // One project on both (same name, one thing), both sessions on both.
        XCTAssertEqual(laptop.tracker.projects().count, 1)
        XCTAssertEqual(desktop.tracker.projects().count, 1)
        XCTAssertEqual(try view(laptop.tracker), try view(desktop.tracker))
        XCTAssertEqual(try laptop.tracker.store.allSessions().map(\.note).sorted(), ["desktop work", "laptop work"])
        XCTAssertGreaterThan(try XCTUnwrap(desktop.keeper).entries.count, snapshotsBefore, "the merge went through the gate")
        let newest = try XCTUnwrap(desktop.keeper?.entries.last)
        XCTAssertEqual(try SnapshotKeeper.state(at: newest.path).sessions.count, 2, "the verified snapshot holds the merged batch")
        XCTAssertEqual(Set(a.devices.map(\.name)), ["laptop", "desktop"])

        // The laptop's timer runs: shown on the desktop as the laptop's, not in the desktop's store.
        clock.advance(600)
        try laptop.tracker.startProject("Client A")
        try settle(a, b)
        XCTAssertEqual(try desktop.tracker.status().state, .idle, "the desktop's own timer is untouched")
        XCTAssertEqual(b.openSessionsElsewhere.count, 1)
        XCTAssertEqual(b.originName(ofSession: b.openSessionsElsewhere[0].id), "laptop")
        clock.advance(1800)
        let stopped = try laptop.tracker.stop()
        try settle(a, b)
        XCTAssertEqual(b.openSessionsElsewhere.count, 0)
        XCTAssertEqual(try view(laptop.tracker), try view(desktop.tracker))

        // Edited on one, deleted on the other: deleted on both.
        let gid = try laptop.tracker.session(id: stopped).globalID
        let onDesktop = try XCTUnwrap(try desktop.tracker.store.allSessions().first { $0.globalID == gid })
        try desktop.tracker.setNote(session: onDesktop.id, note: "edited on the desktop")
        try laptop.tracker.deleteSession(id: stopped)
        clock.advance(60)
        try settle(a, b)
        XCTAssertNil(try desktop.tracker.store.allSessions().first { $0.globalID == gid })
        XCTAssertEqual(try view(laptop.tracker), try view(desktop.tracker))
        XCTAssertEqual(b.replica.entity(.session, gid)?["note"]?.stringValue, "edited on the desktop", "the last version is kept")

        // Deleted on the laptop while its sync was off: published when it is on again.
        let quiet = try laptop.tracker.addSession(project: 1, start: utc(2026, 5, 27, 9), duration: "1h", note: "soon gone")
        try settle(a, b)
        XCTAssertEqual(try desktop.tracker.store.allSessions().filter { $0.note == "soon gone" }.count, 1)
        try laptop.tracker.disableSync()
        try laptop.tracker.deleteSession(id: quiet)
        let again = try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        try settle(again, b)
        XCTAssertEqual(try desktop.tracker.store.allSessions().filter { $0.note == "soon gone" }.count, 0)

        // A rename on the desktop reaches the laptop.
        try desktop.tracker.updateProject(id: 1, changes: ProjectChanges(name: "Client B"))
        try settle(again, b)
        XCTAssertEqual(laptop.tracker.projects().map(\.name), ["Client B"])
        XCTAssertEqual(try view(laptop.tracker), try view(desktop.tracker))
    }

    func testBadFilesInTheFolderAreNeverAppliedAndNeverStopTheOthers() throws {
        let laptop = try home("laptop")
        let desktop = try home("desktop")
        try laptop.tracker.createProject(name: "Writing", color: "", category: "")
        let laptopID = SyncRecord.newID()
        let a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: laptopID, deviceName: "laptop", wallMilliseconds: wall)
        _ = a
        let own = SyncLayout(folder: folder).deviceFolder(laptopID)
        // A conflict copy holding a record nobody acknowledged, a temporary file, and a cut line.
        let stray = SyncRecord(device: laptopID, sequence: 3, hlc: HLC(time: wall, counter: 9), kind: .project,
                               id: SyncRecord.newID(), operation: .create, fields: ["name": .string("Ghost")])
        writeBytes(Array(stray.line.utf8), to: own + "/changes-000001.sync-conflict-20260601-090000-ABCDEFG.jsonl")
        writeBytes(Array(stray.line.utf8), to: own + "/.syncthing.changes-000002.jsonl.tmp")
        appendBytes(Array(stray.line.utf8.prefix(40)), to: own + "/changes-000001.jsonl")
        let b = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop", wallMilliseconds: wall)
        XCTAssertEqual(desktop.tracker.projects().map(\.name), ["Writing"])
        XCTAssertEqual(b.problems, [], "a cut line is waited for, not reported")
        // A damaged complete line stops that device's file there and is reported.
        appendBytes(Array("garbage\n".utf8), to: own + "/changes-000001.jsonl")
        try b.merge(wallMilliseconds: wall)
        XCTAssertEqual(b.problems.count, 1)
        XCTAssertEqual(desktop.tracker.projects().map(\.name), ["Writing"])
    }
}
