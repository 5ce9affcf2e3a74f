import Glibc
import XCTest
@testable import TimeCore

/// Enabling sync on a large history, and joining a folder that holds one, go in batches (issue
/// 21, part 3; docs/sync.md, "Enabling, disabling"): each batch is one change of the gate with at
/// most `batchLimit` records, the merged state is kept between them, and a run stopped in the
/// middle (a crash: nothing is stopped or saved) goes on at the next start and ends in exactly
/// the state one unbatched run gives: the same records in the folder, the same store.
final class SyncBatchTests: SyncTestCase {
    /// The merged state as a fresh read of every file in a folder gives it.
    private func rebuilt(_ syncFolder: String) -> [String] {
        var reader = SyncLogReader(layout: SyncLayout(folder: syncFolder))
        var replica = SyncReplica()
        replica.apply(reader.readNew(except: nil).records)
        return replica.view()
    }

    /// Every record of a folder, by device, without its stamp: what other devices would read.
    private func records(_ syncFolder: String) -> [String] {
        var reader = SyncLogReader(layout: SyncLayout(folder: syncFolder))
        return reader.readNew(except: nil).records.map { record in
            "\(record.device) \(record.kind.rawValue) \(record.id) \(record.operation.rawValue) \(JSON.sortedObject(record.fields).serialized)"
        }
    }

    /// The same lines, in any order; a failure names only the lines that differ.
    private func assertSame(_ a: [String], _ b: [String], _ message: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.count, b.count, message, file: file, line: line)
        let (only, other) = (Set(a).subtracting(b), Set(b).subtracting(a))
        XCTAssertTrue(only.isEmpty && other.isEmpty, "\(message): only in the first \(only.sorted()), only in the second \(other.sorted())",
                      file: file, line: line)
    }

    /// What a person sees of a store, by global id (local row ids differ between stores).
    private func contents(_ tracker: Tracker) throws -> [String] {
        let projects = Dictionary(try tracker.store.projects().map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let categories = Dictionary(try tracker.store.categories().map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        let sessions = try tracker.store.allSessions().map { session in
            "session \(session.globalID) \(projects[session.projectID]?.globalID ?? "?") \(session.start) \(session.end.map(String.init) ?? "open") "
                + "\(session.segments.map { "\($0.start)-\($0.end.map(String.init) ?? "")" }) \(session.note)"
        }
        let projectLines = projects.values.map { project in
            "project \(project.globalID) \(project.name) \(project.color) \(project.archived) \(project.categoryID.flatMap { categories[$0] } ?? "")"
        }
        return (sessions + projectLines + categories.values.map { "category \($0)" }).sorted()
    }

    /// Copies a folder (a data folder or a sync folder) whole.
    private func copy(_ from: String, to destination: String) throws {
        try Files.makePrivateDirectory(destination)
        for name in Files.list(from) {
            switch Files.kind(from + "/" + name) {
            case .directory: try copy(from + "/" + name, to: destination + "/" + name)
            case .regular: try Files.writeDurably(try Files.read(from + "/" + name), to: destination + "/" + name, syncFolder: false)
            default: break
            }
        }
    }

    /// A history that was published once, then changed while sync was off: sessions added,
    /// edited and deleted, a category deleted, a project archived. Enabling again publishes every difference.
    private func historyChangedWhileOff(device: String) throws {
        var base: DataHome? = try home("base")
        let tracker = base!.tracker
        try tracker.addCategory("Clients")
        try tracker.createProject(name: "Client A", color: "", category: "Clients")
        try tracker.createProject(name: "Client B", color: "", category: "")
        try tracker.createProject(name: "Gone soon", color: "", category: "")
        for day in 1...30 {
            _ = try tracker.addSession(project: ProjectID(day % 2 + 1), start: utc(2026, 4, day, 9), duration: "1h", note: "day \(day)")
        }
        _ = try tracker.addSession(project: 3, start: utc(2026, 5, 1, 9), duration: "30m", note: "in the project that goes")
        var engine: SyncEngine? = try SyncEngine(tracker: tracker, folder: directory + "/Sync-base", device: device,
                                                 deviceName: "laptop", wallMilliseconds: wall)
        try engine!.stop()
        engine = nil
        try tracker.disableSync()
        clock.advance(600)
        let sessions = try tracker.store.allSessions()
        for session in sessions.prefix(5) { try tracker.deleteSession(id: session.id) }
        for session in sessions.dropFirst(5).prefix(5) { try tracker.setNote(session: session.id, note: session.note + ", edited while off") }
        try tracker.deleteSession(id: sessions.last!.id)
        try tracker.deleteCategory("Clients")
        try tracker.updateProject(id: 3, changes: ProjectChanges(archived: true))
        for day in 1...20 { _ = try tracker.addSession(project: 2, start: utc(2026, 5, day, 14), duration: "2h", note: "new \(day)") }
        base = nil
    }

    func testEnablingInBatchesStoppedByACrashEndsAsOneUnbatchedRun() throws {
        let device = SyncRecord.newID()
        try historyChangedWhileOff(device: device)
        for name in ["whole", "batched"] {
            try copy(directory + "/base", to: directory + "/" + name)
            try copy(directory + "/Sync-base", to: directory + "/Sync-" + name)
        }
        // One run, unbatched.
        let whole = try home("whole")
        let unbatched = try SyncEngine(tracker: whole.tracker, folder: directory + "/Sync-whole", device: device, deviceName: "laptop",
                                       wallMilliseconds: wall, batchLimit: .max)
        try unbatched.stop()

        // Batches of 4 sessions, stopped by a crash after three of them.
        var batched: DataHome? = try home("batched")
        var engine: SyncEngine? = try SyncEngine(tracker: batched!.tracker, folder: directory + "/Sync-batched", device: device,
                                                 deviceName: "laptop", wallMilliseconds: wall, deferringWork: true, batchLimit: 4)
        // First the merged state is rebuilt from what the folder holds (in batches of its own, which
        // change nothing in the store), then publishing goes in batches.
        while engine!.rebuilding != nil { XCTAssertTrue(try engine!.step(wallMilliseconds: wall)) }
        XCTAssertEqual(engine!.batches, 0)
        for _ in 0..<4 { XCTAssertTrue(try engine!.step(wallMilliseconds: wall), "work is left after each of the first batches") }
        XCTAssertEqual(engine!.batches, 4)
        // The first batch holds every category and project (a few); the others at most 4 sessions.
        XCTAssertLessThanOrEqual(engine!.largestBatch, 4 + 3 + 1)
        XCTAssertLessThanOrEqual(engine!.replica.sessionsInMemory, 4, "published sessions leave memory with each batch")
        let partly = records(directory + "/Sync-batched").count
        XCTAssertGreaterThan(partly, records(directory + "/Sync-base").count, "the batches are in the log")
        (engine, batched) = (nil, nil)  // a crash: nothing stopped, nothing saved after the last batch

        batched = try home("batched")
        engine = try SyncEngine(tracker: batched!.tracker, folder: directory + "/Sync-batched", device: device, deviceName: "laptop",
                                wallMilliseconds: wall, batchLimit: 4)
        XCTAssertFalse(engine!.hasPendingWork)
        XCTAssertGreaterThan(engine!.batches, 5, "the rest went on in batches")
        try engine!.stop()

        assertSame(records(directory + "/Sync-batched"), records(directory + "/Sync-whole"),
                   "the same records (in another order within a change), none published twice, none left out")
        XCTAssertEqual(rebuilt(directory + "/Sync-batched"), rebuilt(directory + "/Sync-whole"))
        XCTAssertEqual(try contents(batched!.tracker), try contents(whole.tracker))
        XCTAssertTrue(rebuilt(directory + "/Sync-batched").contains { $0.hasPrefix("deleted session") }, "what was deleted while off is published")
        XCTAssertEqual(try batched!.tracker.store.meta(SyncEngine.publishedKey), SyncLayout(folder: directory + "/Sync-batched").root + " " + device)
    }

    func testJoiningInBatchesStoppedByACrashEndsAsOneUnbatchedRun() throws {
        // A device with a history publishes it; two copies of the folder are joined by a new device.
        let laptop = try home("laptop")
        try laptop.tracker.addCategory("Clients")
        try laptop.tracker.createProject(name: "Client A", color: "", category: "Clients")
        try laptop.tracker.createProject(name: "Client B", color: "", category: "")
        for day in 1...28 {
            _ = try laptop.tracker.addSession(project: ProjectID(day % 2 + 1), start: utc(2026, 4, day, 9), duration: "1h", note: "day \(day)")
        }
        let a = try SyncEngine(tracker: laptop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "laptop", wallMilliseconds: wall)
        try a.stop()
        let total = records(folder).count
        XCTAssertEqual(total, 1 + 1 + 2 + 28, "the device's name, the category, the projects, the sessions")
        for name in ["whole", "batched"] { try copy(folder, to: directory + "/Sync-" + name) }
        let joiner = SyncRecord.newID()
        let whole = try home("whole")
        let unbatched = try SyncEngine(tracker: whole.tracker, folder: directory + "/Sync-whole", device: joiner, deviceName: "desktop",
                                       wallMilliseconds: wall, batchLimit: .max)
        XCTAssertEqual(unbatched.largestBatch, total, "one change for every record")
        try unbatched.stop()

        var desktop: DataHome? = try home("batched")
        var engine: SyncEngine? = try SyncEngine(tracker: desktop!.tracker, folder: directory + "/Sync-batched", device: joiner,
                                                 deviceName: "desktop", wallMilliseconds: wall, deferringWork: true, batchLimit: 5)
        var steps = 0
        while engine!.publishing != nil { try engine!.step(wallMilliseconds: wall); steps += 1 }
        for _ in 0..<3 {
            XCTAssertTrue(try engine!.step(wallMilliseconds: wall))
            XCTAssertLessThanOrEqual(engine!.replica.sessionsInMemory, 5, "merged sessions leave memory with each batch")
        }
        XCTAssertEqual(engine!.mergedSinceStart, 15)
        XCTAssertEqual(engine!.largestBatch, 5, "at most 5 records per change")
        XCTAssertEqual(try desktop!.tracker.store.allSessions().count, 15 - 4, "the first batch held the device, the category and the projects")
        (engine, desktop) = (nil, nil)  // a crash in the middle of the join

        desktop = try home("batched")
        engine = try SyncEngine(tracker: desktop!.tracker, folder: directory + "/Sync-batched", device: joiner, deviceName: "desktop",
                                wallMilliseconds: wall, batchLimit: 5)
        XCTAssertEqual(engine!.readAtStart, total - 15, "a restart goes on where the last batch stopped")
        XCTAssertEqual(engine!.largestBatch, 5)
        try engine!.stop()

        XCTAssertEqual(try contents(desktop!.tracker), try contents(whole.tracker))
        XCTAssertEqual(try contents(desktop!.tracker).filter { $0.hasPrefix("session") }.count, 28)
        XCTAssertEqual(rebuilt(directory + "/Sync-batched"), rebuilt(directory + "/Sync-whole"))
        assertSame(records(directory + "/Sync-batched"), records(directory + "/Sync-whole"), "the same records")
    }

    /// A session whose project comes from another device's log, read in a later batch, is not
    /// left out of the store: it is placed once its project has a row, as in one unbatched merge.
    func testASessionWhoseProjectArrivesInALaterBatchIsPlacedThen() throws {
        let layout = SyncLayout(folder: folder)
        // Devices are read in the order of their ids: the session's device comes first.
        let first = try SyncLogWriter(layout: layout, device: "0" + String(SyncRecord.newID().dropFirst()))
        let second = try SyncLogWriter(layout: layout, device: "f" + String(SyncRecord.newID().dropFirst()))
        let project = SyncRecord.newID(), session = SyncRecord.newID()
        let start = utc(2026, 5, 4, 9)
        try second.append([SyncDraft(kind: .project, id: project, operation: .create, fields: [
            "name": .string("Shared"), "color": .string("#3465a4"), "category": .string(""), "archived": .bool(false)])],
            wallMilliseconds: wall)
        try first.append([SyncDraft(kind: .session, id: session, operation: .create, fields: [
            "project": .string(project), "start": .int(start), "end": .int(start + 3600), "note": .string("made on the first"),
            "segments": .array([.array([.int(start), .int(start + 3600)])]), "unrecorded": .int(0), "origin": .string(first.device)])],
            wallMilliseconds: wall + 1)
        let desktop = try home("desktop")
        let engine = try SyncEngine(tracker: desktop.tracker, folder: folder, device: SyncRecord.newID(), deviceName: "desktop",
                                    wallMilliseconds: wall, batchLimit: 1)
        XCTAssertGreaterThanOrEqual(engine.batches, 2, "the session and its project were merged apart")
        XCTAssertEqual(try desktop.tracker.store.allSessions().map(\.note), ["made on the first"])
        XCTAssertEqual(desktop.tracker.projects().map(\.name), ["Shared"])
        try engine.stop()
    }
}
