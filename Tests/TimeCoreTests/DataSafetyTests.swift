import Glibc
import XCTest
@testable import TimeCore

/// A clock the data-safety tests set by hand.
final class SafetyClock: Clock {
    var time: Int64 = 1_795_000_000
    func now() -> Int64 { time }
}

/// A data folder for one test.
final class Folder {
    let path: String
    init() {
        var template = Array("/tmp/time-safety-XXXXXX".utf8CString)
        path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) } + "/data"
    }
    var store: String { path + "/time.sqlite" }
    var snapshots: String { path + "/snapshots" }
    var archives: String { path + "/archives" }
    var quarantine: String { path + "/quarantine" }
    func states() -> [String] { Files.list(snapshots).filter { $0.hasPrefix("state-") } }
    func chunks() -> [String] { Files.list(snapshots).filter { $0.hasPrefix("chunk-") } }
    /// Snapshot and chunk files (not the temporary files prepared for the next change).
    func kept() -> [String] { states() + chunks() }
    func remove() { Files.remove(Files.directoryName(path)) }
}

/// Every data-safety invariant of shared/design.md, against real files on disk.
final class DataSafetyTests: XCTestCase {
    private var folder: Folder!
    private var clock: SafetyClock!

    override func setUp() {
        folder = Folder()
        clock = SafetyClock()
        Files.injectedWriteFailure = nil
    }

    override func tearDown() {
        Files.injectedWriteFailure = nil
        folder.remove()
    }

    /// Opens the folder as the agent does; the lock is released when the home is released.
    private func open() throws -> DataHome { try DataHome(directory: folder.path, clock: clock) }

    private func newestState(_ home: DataHome) throws -> DataState {
        try XCTUnwrap(home.keeper).state(of: XCTUnwrap(home.keeper?.entries.last))
    }

    /// Fills a tracker with a little of everything.
    private func populate(_ tracker: Tracker) throws {
        try tracker.addCategory("Work")
        try tracker.createProject(name: "Writing", color: "#3366cc", category: "Work")
        try tracker.createProject(name: "Écriture", color: "", category: "")
        try tracker.addSession(project: 1, start: clock.time - 90 * 86400, duration: "1h30m", note: "old")
        try tracker.addSession(project: 2, start: clock.time - 3 * 86400, duration: "45m", note: "")
        try tracker.startProject("writing")
        clock.time += 600
        try tracker.pause()
        clock.time += 60
        try tracker.resume()
        try tracker.addNote("running note")
    }

    // MARK: Invariant 1 and 2: a verified snapshot of every acknowledged state

    func testEveryAcknowledgedChangeHasAVerifiedSnapshotOfExactlyThatState() throws {
        let home = try open()
        let tracker = home.tracker
        let operations: [() throws -> Void] = [
            { try tracker.addCategory("Work") },
            { try tracker.createProject(name: "Writing", color: "", category: "Work") },
            { try tracker.startProject("Writing") },
            { self.clock.time += 125; try tracker.pause() },
            { self.clock.time += 5; try tracker.resume() },
            { try tracker.addNote("first line") },
            { self.clock.time += 40; try tracker.stop() },
            { try tracker.addSession(project: 1, start: self.clock.time - 40 * 86400, duration: "2h", note: "past") },
            { try tracker.setNote(session: 2, note: "edited") },
            { try tracker.editSession(id: 2, changes: SessionChanges(start: self.clock.time - 41 * 86400)) },
            { try tracker.deleteCategory("Work") },
            { try tracker.deleteSession(id: 2) },
            { try tracker.setReminderMinutes(25) },
        ]
        for (index, operation) in operations.enumerated() {
            try operation()
            XCTAssertEqual(try newestState(home), try DataState(store: tracker.store), "after operation \(index)")
        }
        for entry in folder.kept() where entry.hasPrefix("state-") {
            let bytes = try Files.read(folder.snapshots + "/" + entry)
            XCTAssertNoThrow(try SnapshotFormat.read(bytes), "every kept snapshot verifies")
        }
    }

    func testAnUnchangedStateWritesNothingNew() throws {
        let home = try open()
        try populate(home.tracker)
        let before = folder.kept()
        try home.tracker.resume()                       // already running
        try home.tracker.setNote(session: 3, note: "running note")
        try home.tracker.updateProject(id: 1, changes: ProjectChanges(name: "Writing"))
        try home.tracker.setReminderMinutes(60)
        try home.tracker.recordCurrentState()
        XCTAssertEqual(folder.kept(), before)

        // A state equal to an older kept one becomes the newest by a rename, not by new content.
        try home.tracker.updateProject(id: 1, changes: ProjectChanges(name: "Draft"))
        let afterRename = Set(folder.kept())
        try home.tracker.updateProject(id: 1, changes: ProjectChanges(name: "Writing"))
        XCTAssertEqual(folder.kept().count, afterRename.count, "no new file for a repeated state")
        XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store))
    }

    func testKeepsTheNewestTwentyDistinctStatesAndOnlyTheChunksTheyUse() throws {
        let home = try open()
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        for day in 0..<30 {
            try home.tracker.addSession(project: 1, start: clock.time - Int64(day + 1) * 31 * 86400, duration: "1h", note: "day \(day)")
        }
        XCTAssertLessThanOrEqual(folder.states().count, SnapshotKeeper.keptStates + 1, "at most one more until the tidy-up after the reply")
        home.tracker.tidyUp()
        XCTAssertEqual(folder.states().count, SnapshotKeeper.keptStates)
        var referenced = Set<String>()
        for name in folder.states() {
            let state = try SnapshotKeeper.state(at: folder.snapshots + "/" + name)   // complete and verifiable
            XCTAssertFalse(state.projects.isEmpty)
            referenced.formUnion(try ChunkTreeContents(snapshot: folder.snapshots + "/" + name).files)
        }
        XCTAssertEqual(Set(folder.chunks()), referenced, "chunks no kept snapshot uses are removed")
        XCTAssertEqual(try newestState(home).sessions.count, 30)
    }

    /// The payload is the canonical form its checksum stands for: its own keys in their fixed
    /// order (the parts a change rewrites least first, the open session last), keys in byte order
    /// at every level below, records by id, no white space; awkward text is escaped and reads
    /// back the same.
    func testThePayloadIsCanonicalWhateverTheNames() throws {
        let categories = [Category(id: 2, name: "Zürich \"office\""), Category(id: 1, name: "a\\b\u{2028}\u{7f}")]
        let projects = [Project(id: 3, name: "עברית 🚀", color: "#00ff00", categoryID: nil, archived: true),
                        Project(id: 1, name: "<b>&amp;</b>", color: "#112233", categoryID: 2, archived: false)]
        let open = WorkSession(id: 9, projectID: 1, start: 100, end: nil, unrecordedSeconds: 0, note: "line\nline",
                               segments: [Segment(start: 100, end: 160), Segment(start: 200, end: nil)])
        let chunkList = SnapshotFormat.chunkList([SnapshotFormat.ChunkReference(period: "2025", sha256: String(repeating: "a", count: 64), sessions: 3)])
        let payload = SnapshotFormat.payload(categories: categories, projects: projects, reminderMinutes: 45,
                                             openSession: open, chunkList: chunkList)
        func canonical(_ value: JSON) -> JSON {
            switch value {
            case .array(let items): return .array(items.map(canonical))
            case .object(let members):
                return .object(members.map { ($0.0, canonical($0.1)) }.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) })
            default: return value
            }
        }
        let payloadOrder = ["categories", "projects", "settings", "away", "chunks", "sessions", "focus", "openSession"]
        let parsed = try JSON.parse(payload)
        guard case .object(let members) = parsed else { return XCTFail("the payload is not an object") }
        let ordered = JSON.object(members.map { ($0.0, canonical($0.1)) }.sorted {
            (payloadOrder.firstIndex(of: $0.0) ?? payloadOrder.count) < (payloadOrder.firstIndex(of: $1.0) ?? payloadOrder.count)
        })
        XCTAssertEqual(members.map(\.0), ["categories", "projects", "settings", "chunks", "openSession"])
        XCTAssertEqual(ordered.serialized, payload)
        XCTAssertEqual(parsed["categories"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, ["a\\b\u{2028}\u{7f}", "Zürich \"office\""])
        XCTAssertEqual(parsed["projects"]?.arrayValue?.compactMap { $0["name"]?.stringValue }, ["<b>&amp;</b>", "עברית 🚀"])
        XCTAssertEqual(parsed["projects"]?.arrayValue?.last?["categoryId"], .null)
        XCTAssertEqual(parsed["projects"]?.arrayValue?.last?["archived"], .bool(true))
        XCTAssertEqual(parsed["settings"]?["reminderMinutes"], .int(45))
        XCTAssertEqual(parsed["openSession"]?["note"], .string("line\nline"))
    }

    /// Pruned snapshots become the next temporary file; whatever their length, the snapshot
    /// written into one is exactly the new state, and no temporary file is ever taken for a snapshot.
    func testRecycledFilesHoldExactlyTheNewSnapshot() throws {
        let home = try open()
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        // Names of very different lengths make each snapshot shorter or longer than the one it reuses.
        for round in 0..<(SnapshotKeeper.keptStates * 2) {
            let name = round % 2 == 0 ? "W\(round)" : String(repeating: "long name ", count: 5 + round % 13) + "\(round)"
            try home.tracker.updateProject(id: 1, changes: ProjectChanges(name: name))
            home.tracker.tidyUp()
            XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store), "round \(round)")
        }
        XCTAssertEqual(folder.states().count, SnapshotKeeper.keptStates)
        for name in folder.states() {
            XCTAssertNoThrow(try SnapshotKeeper.state(at: folder.snapshots + "/" + name), name)
        }
    }

    /// Invariant 8: a pause or resume rewrites no chunk, whatever the history; a past edit rewrites
    /// its day's chunk and the three index chunks above it (month, year, root).
    func testTheCostOfAChangeDoesNotGrowWithHistory() throws {
        let home = try open()
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        for month in 0..<60 {
            try home.tracker.addSession(project: 1, start: clock.time - Int64(month) * 30 * 86400 - 86400, duration: "1h", note: "")
        }
        try home.tracker.startProject("Writing")
        let chunksBefore = Set(folder.chunks())
        clock.time += 30
        try home.tracker.pause()
        clock.time += 30
        try home.tracker.resume()
        XCTAssertEqual(Set(folder.chunks()).subtracting(chunksBefore), [], "timer changes write no chunk of history")
        let chunksBeforeEdit = Set(folder.chunks())
        try home.tracker.setNote(session: 10, note: "one past session")
        XCTAssertEqual(Set(folder.chunks()).subtracting(chunksBeforeEdit).count, 4, "a past edit rewrites its day and the indexes above")
        // Years of history still make a short snapshot: it names the root index chunk alone.
        let newest = folder.snapshots + "/" + folder.states().last!
        let header = try SnapshotFormat.read(Files.read(newest))
        let periods = try XCTUnwrap(header.payload["chunks"]?.arrayValue).compactMap { $0["period"]?.stringValue }
        XCTAssertEqual(periods, [""])
        let tree = try ChunkTreeContents(snapshot: newest)
        XCTAssertEqual(tree.sessionsByPeriod.count, 60, "one chunk per day, at every age")
        XCTAssertTrue(tree.sessionsByPeriod.keys.allSatisfy { $0.count == 10 }, "\(tree.sessionsByPeriod.keys.sorted())")
        XCTAssertEqual(tree.indexPeriods.filter { $0.count == 4 }, ["2022", "2023", "2024", "2025", "2026"], "sessions go back to January 2022")
    }

    /// The newest snapshot's own sessions (`sessions`) and the sessions of its chunks, by id.
    private func layout() throws -> (inline: [Int64], chunked: [Int64]) {
        let header = try SnapshotFormat.read(Files.read(folder.snapshots + "/" + folder.states().last!))
        let inline = (header.payload["sessions"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
        let chunked = try ChunkTreeContents(snapshot: folder.snapshots + "/" + folder.states().last!).sessionIDs
        return (inline.sorted(), chunked)
    }

    /// Starting, switching and stopping the timer writes no chunk: the sessions finished today
    /// are in the snapshot itself, and in no chunk.
    func testTheTimersChangesWriteNoChunkAndTodaysSessionsAreInTheSnapshotItself() throws {
        clock.time = 1_795_910_400 + 9 * 3600         // 2026-11-28 09:00 UTC
        let home = try open()
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        try home.tracker.createProject(name: "Reading", color: "", category: "")
        try home.tracker.addSession(project: 1, start: clock.time - 5 * 86400, duration: "1h", note: "earlier this month")
        try home.tracker.startProject("Writing")      // a change after the day was first seen
        let chunksBefore = Set(folder.chunks())
        for step in 0..<6 {
            clock.time += 600
            switch step % 3 {
            case 0: try home.tracker.startProject("Reading")   // a switch finishes the running session
            case 1: try home.tracker.stop()
            default: try home.tracker.startProject("Writing")
            }
            home.tracker.tidyUp()
            XCTAssertEqual(Set(folder.chunks()), chunksBefore, "step \(step) wrote no chunk")
            XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store), "step \(step)")
        }
        let (inline, chunked) = try layout()
        XCTAssertEqual(inline, [2, 3, 4, 5], "today's finished sessions, in the snapshot")
        XCTAssertEqual(chunked, [1], "only the earlier day's session is in a chunk")
    }

    /// A busy day keeps a short payload: today's sessions join the month's chunk in whole blocks,
    /// so only every 32nd finished session writes a chunk; deleting one shifts the blocks and
    /// every snapshot is still exactly the state.
    func testABusyDaysSessionsJoinTheChunkInWholeBlocks() throws {
        clock.time = 1_795_910_400 + 3600             // 2026-11-28 01:00 UTC
        let home = try open()
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        let block = SnapshotKeeper.inlineBlock
        var chunkWrites = 0
        for session in 1...(2 * block + 6) {
            let chunksBefore = Set(folder.chunks())
            try home.tracker.startProject("Writing")
            clock.time += 60
            try home.tracker.stop()
            home.tracker.tidyUp()
            if Set(folder.chunks()) != chunksBefore { chunkWrites += 1 }
            XCTAssertEqual(try layout().inline.count, session % block, "after session \(session)")
        }
        XCTAssertEqual(chunkWrites, 2, "a chunk was written at the 32nd and the 64th session only")
        XCTAssertEqual(try layout().chunked.count, 2 * block)
        XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store))

        try home.tracker.deleteSession(id: 3)
        XCTAssertEqual(try layout().inline.count, (2 * block + 5) % block)
        XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store))
    }

    /// Today's sessions move into their month's chunk with the first change of another day, in
    /// both directions of the clock and across a month's end; every snapshot stays a whole state.
    func testTodaysSessionsMoveIntoTheirChunkWhenTheDayChanges() throws {
        clock.time = 1_796_083_200 - 2 * 3600         // 2026-11-30 22:00 UTC
        do {
            let home = try open()
            try home.tracker.createProject(name: "Writing", color: "", category: "")
            try home.tracker.addSession(project: 1, start: clock.time - 3600, duration: "30m", note: "november 30")
            XCTAssertEqual(try layout().inline, [1])

            clock.time += 4 * 3600                        // 2026-12-01 02:00
            try home.tracker.addSession(project: 1, start: clock.time - 3600, duration: "30m", note: "december 1")
            XCTAssertEqual(try layout().inline, [2])
            XCTAssertEqual(try layout().chunked, [1], "november 30th went into November's chunk")
            XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store))

            clock.time -= 4 * 3600                        // back to November 30th
            try home.tracker.setNote(session: 2, note: "edited when the clock went back")
            XCTAssertEqual(try layout().inline, [1])
            XCTAssertEqual(try layout().chunked, [2])
            XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store))
        }
        // A restart on a later day finds the day the snapshot kept, and moves it out at the first change.
        clock.time += 3 * 86400
        let reopened = try open()
        try reopened.tracker.setReminderMinutes(30)
        XCTAssertEqual(try layout().inline, [])
        XCTAssertEqual(try layout().chunked, [1, 2])
        XCTAssertEqual(try newestState(reopened), try DataState(store: reopened.tracker.store))
    }

    /// Random changes with a clock that jumps by minutes to months, forwards and back across a
    /// year end, with restarts: after every change the newest snapshot is exactly the store's state.
    func testRandomChangesWithAJumpingClockAlwaysLeaveAnExactSnapshot() throws {
        clock.time = 1_798_675_200 - 3 * 86400      // 2026-12-28 00:00 UTC
        var generator = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 1...UInt64.max, using: &generator)
        if let text = getenv("TIME_SAFETY_SEED").map({ String(cString: $0) }), let value = UInt64(text) { seed = value }
        print("DataSafetyTests: random changes with seed \(seed) (replay with TIME_SAFETY_SEED=\(seed))")
        var state = seed
        func next(_ bound: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(bound))
        }
        var home: DataHome? = try open()
        try home!.tracker.createProject(name: "Writing", color: "", category: "")
        try home!.tracker.createProject(name: "Reading", color: "", category: "")
        var sessionIDs: [SessionID] = []
        for step in 0..<1200 {
            // Now and then a change fails part way (the disk is full): it must leave no trace.
            let failing = next(25) == 0
            Files.injectedWriteFailure = failing ? ENOSPC : nil
            defer { Files.injectedWriteFailure = nil }
            // Not held across a restart: the old tracker goes with its folder's lock.
            var tracker: Tracker { home!.tracker }
            switch next(16) {
            case 0: try? tracker.startProject(next(2) == 0 ? "Writing" : "Reading")
            case 1: try? tracker.pause()
            case 2: try? tracker.resume()
            case 3, 4: try? tracker.stop()
            case 5, 6:
                // Today, earlier today, days or months back, or tomorrow.
                let offset = [-600, -3 * 3600, -2 * 86400, -40 * 86400, -400 * 86400, 86400][next(6)]
                if let id = try? tracker.addSession(project: Int64(1 + next(2)), start: clock.time + Int64(offset), duration: "10m", note: "") {
                    sessionIDs.append(id)
                }
            case 7 where !sessionIDs.isEmpty:
                let moved = clock.time + Int64([-86400, -3600, -35 * 86400, 0][next(4)])
                let changes = next(2) == 0 ? SessionChanges(start: moved) : SessionChanges(projectID: Int64(1 + next(2)), note: "edit \(step)")
                try? tracker.editSession(id: sessionIDs[next(sessionIDs.count)], changes: changes)
            case 8 where !sessionIDs.isEmpty:
                try? tracker.deleteSession(id: sessionIDs.remove(at: next(sessionIDs.count)))
            case 9 where !sessionIDs.isEmpty:
                try? tracker.setNote(session: sessionIDs[next(sessionIDs.count)], note: "note \(step)")
            case 10: try? tracker.updateProject(id: 1, changes: ProjectChanges(name: "Writing \(step)"))
            case 11: try? tracker.addNote("line \(step)")
            case 14 where next(3) == 0:
                // A busy stretch: enough sessions today to fill blocks of 32 (each its own change).
                for minute in 0..<12 {
                    if let id = try? tracker.addSession(project: 1, start: clock.time - Int64(7200 + minute * 60), duration: "30s", note: "") {
                        sessionIDs.append(id)
                    }
                }
            case 12:
                // The clock jumps: minutes, hours, a day, a month, forwards or back.
                clock.time += Int64([60, 3600, 86400, -86400, -3600, 31 * 86400, -31 * 86400][next(7)])
            case 13 where next(8) == 0 && !failing:
                home = nil                                  // a restart, maybe on another day
                clock.time += Int64(next(2) * 86400)
                home = try open()
            default:
                clock.time += Int64(next(600))
            }
            if next(3) == 0 { home!.tracker.tidyUp() }
            let stored = try DataState(store: home!.tracker.store)
            guard let keeper = home!.keeper, let newest = keeper.entries.last else { continue }
            let snapshot = try keeper.state(of: newest)
            XCTAssertEqual(snapshot.differences(from: stored), [], "step \(step), seed \(seed)")
            XCTAssertEqual(snapshot, stored, "step \(step), seed \(seed)")
            if snapshot != stored { break }
        }
        // A restart right after a change (before its tidy-up) may find 21 files; the next change
        // and its tidy-up bring them back to 20.
        try home!.tracker.setReminderMinutes(home!.tracker.reminderMinutes == 45 ? 50 : 45)
        home!.tracker.tidyUp()
        XCTAssertEqual(folder.states().count, SnapshotKeeper.keptStates)
    }

    /// The chunks follow the days of the sessions alone, not the clock: across the year end, and
    /// with a clock that goes back across it, every snapshot is a complete state.
    func testChunksFollowTheYearEndInBothDirections() throws {
        clock.time = 1_798_675_200 + 3600          // 2026-12-31 01:00 UTC
        let home = try open()
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        try home.tracker.addSession(project: 1, start: clock.time - 40 * 86400, duration: "1h", note: "november")
        // December 30th: an earlier day than the clock's, so in a chunk (today's sessions are in the payload).
        try home.tracker.addSession(project: 1, start: clock.time - 86400 - 3600, duration: "30m", note: "december")
        func days() throws -> [String] {
            try ChunkTreeContents(snapshot: folder.snapshots + "/" + folder.states().last!).sessionsByPeriod.keys.sorted()
        }
        XCTAssertEqual(try days(), ["2026-11-21", "2026-12-30"])

        clock.time += 2 * 86400                       // 2027-01-02
        try home.tracker.setNote(session: 2, note: "december, edited in January")
        XCTAssertEqual(try days(), ["2026-11-21", "2026-12-30"])
        XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store))

        clock.time -= 2 * 86400                       // back to 2026-12-31
        try home.tracker.setNote(session: 1, note: "november, edited after the clock went back")
        XCTAssertEqual(try days(), ["2026-11-21", "2026-12-30"])
        XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store))
        try home.tracker.setReminderMinutes(20)
        XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store))
    }

    func testAChangeWhoseSnapshotCannotBeWrittenIsRefusedAndChangesNothing() throws {
        let home = try open()
        try populate(home.tracker)
        let before = try DataState(store: home.tracker.store)
        let files = folder.kept()
        Files.injectedWriteFailure = ENOSPC
        XCTAssertThrowsError(try home.tracker.createProject(name: "New", color: "", category: "")) { error in
            XCTAssertEqual((error as? TrackerError)?.name, "StorageFailure")
            XCTAssertTrue((error as? TrackerError)?.message.contains("nothing was changed") == true)
        }
        XCTAssertThrowsError(try home.tracker.stop())
        XCTAssertThrowsError(try home.tracker.addSession(project: 1, start: clock.time - 86400 * 200, duration: "1h", note: ""))
        XCTAssertEqual(try DataState(store: home.tracker.store), before, "the store is unchanged")
        XCTAssertEqual(folder.kept(), files, "no partial snapshot is left behind")
        XCTAssertEqual(Files.list(folder.snapshots).filter { $0.hasSuffix(".json.tmp") }, [], "no half-written file either")
        XCTAssertEqual(try home.tracker.status().state, .running)
        Files.injectedWriteFailure = nil
        try home.tracker.stop()
        XCTAssertEqual(try newestState(home), try DataState(store: home.tracker.store))
    }

    /// The disk really full: a small tmpfs as the data folder (root only; the injected failure above covers the rest).
    func testAFullDiskRefusesTheChangeAndLosesNothing() throws {
        let mountPoint = folder.path
        try Files.makePrivateDirectory(mountPoint)
        guard getuid() == 0, system("mount -t tmpfs -o size=600k tmpfs '\(mountPoint)' 2>/dev/null") == 0 else {
            throw XCTSkip("mounting a tmpfs needs root; the injected ENOSPC test covers this case")
        }
        defer { _ = system("umount -l '\(mountPoint)'") }
        var acknowledged: [SessionID] = []
        var refusal: TrackerError?
        do {
            let home = try open()
            try home.tracker.createProject(name: "Writing", color: "", category: "")
            for index in 0..<5000 {
                do {
                    acknowledged.append(try home.tracker.addSession(project: 1, start: clock.time - Int64(index + 1) * 7 * 86400,
                                                                    duration: "1h", note: String(repeating: "n", count: 300)))
                } catch let error as TrackerError {
                    refusal = error
                    break
                }
            }
            XCTAssertEqual(refusal?.name, "StorageFailure", "a full disk is reported as StorageFailure")
            XCTAssertEqual(try home.tracker.sessions(project: 0, from: 0, to: clock.time + 1).map(\.id).sorted(), acknowledged.sorted())
        }
        // Restarted while the disk is still full: no verified backup can be made, so editing is
        // locked, but everything acknowledged is there to read.
        do {
            let home = try open()
            XCTAssertEqual(home.status.state, .readOnly)
            XCTAssertTrue(home.status.message.contains("Free some disk space"), home.status.message)
            XCTAssertEqual(try home.tracker.sessions(project: 0, from: 0, to: clock.time + 1).map(\.id).sorted(), acknowledged.sorted())
        }
        // With space again, the agent starts normally and every acknowledged session is there.
        XCTAssertEqual(system("mount -o remount,size=8m '\(mountPoint)'"), 0)
        let home = try open()
        XCTAssertEqual(home.status, .ok, home.status.message)
        XCTAssertEqual(try home.tracker.sessions(project: 0, from: 0, to: clock.time + 1).map(\.id).sorted(), acknowledged.sorted())
        try home.tracker.createProject(name: "After", color: "", category: "")
    }

    // MARK: Invariant 3: raw archives

    func testRawArchivesAreVerifiedCopiesOfEveryFileAndTheNewestFiveDistinctAreKept() throws {
        do { try populate(open().tracker) }
        // A WAL that was not checkpointed, as after a crash: copy the live files aside first.
        let originals = RawArchiver.sidecarSuffixes.compactMap { suffix -> (String, [UInt8])? in
            (try? Files.read(folder.store + suffix)).map { (suffix, $0) }
        }
        XCTAssertTrue(originals.contains { $0.0 == "" })
        let archive = try XCTUnwrap(RawArchiver.archive(store: folder.store, into: folder.archives))
        for (suffix, bytes) in originals {
            XCTAssertEqual(try Files.read(archive + "/time.sqlite" + suffix), bytes, "archived \(suffix) is byte-identical")
        }
        let count = RawArchiver.list(folder.archives).count
        XCTAssertEqual(try RawArchiver.archive(store: folder.store, into: folder.archives), archive, "unchanged files: no new archive")
        XCTAssertEqual(RawArchiver.list(folder.archives).count, count)
        for round in 0..<7 {
            clock.time += 10
            do { try open().tracker.createProject(name: "P\(round)", color: "", category: "") }
        }
        XCTAssertEqual(RawArchiver.list(folder.archives).count, RawArchiver.keptArchives)
    }

    // MARK: Invariant 4: quarantine and recovery

    private func damageAndReopen(_ damage: () throws -> Void) throws -> (DataHome, DataState) {
        var expected: DataState
        do {
            let home = try open()
            try populate(home.tracker)
            expected = try DataState(store: home.tracker.store)
        }
        try damage()
        let home = try open()
        return (home, expected)
    }

    private func assertRestored(_ home: DataHome, _ expected: DataState, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(home.status.state, .restored, home.status.message, file: file, line: line)
        XCTAssertTrue(home.status.message.contains("restored from the snapshot"), file: file, line: line)
        XCTAssertEqual(try DataState(store: home.tracker.store), expected, file: file, line: line)
        XCTAssertEqual(try home.tracker.status().state, .running, "the running timer survives", file: file, line: line)
        XCTAssertEqual(Files.list(folder.quarantine).count, 1, file: file, line: line)
        try home.tracker.addNote("works after restore")
    }

    func testAStoreOverwrittenWithGarbageIsQuarantinedAndRestored() throws {
        let garbage = [UInt8](repeating: 0x5a, count: 8192)
        let (home, expected) = try damageAndReopen {
            for suffix in ["-wal", "-shm"] { Files.remove(folder.store + suffix) }
            try Files.writeDurably(garbage, to: folder.store)
        }
        try assertRestored(home, expected)
        let quarantined = folder.quarantine + "/" + Files.list(folder.quarantine)[0]
        XCTAssertEqual(try Files.read(quarantined + "/time.sqlite"), garbage, "the damaged file is kept as it was")
    }

    func testATruncatedStoreIsRestored() throws {
        let (home, expected) = try damageAndReopen {
            let bytes = try Files.read(folder.store)
            for suffix in ["-wal", "-shm"] { Files.remove(folder.store + suffix) }
            try Files.writeDurably(Array(bytes.prefix(3000)), to: folder.store)
        }
        try assertRestored(home, expected)
    }

    func testAStoreReplacedByADirectoryIsRestored() throws {
        let (home, expected) = try damageAndReopen {
            for suffix in RawArchiver.sidecarSuffixes { Files.remove(folder.store + suffix) }
            mkdir(folder.store, 0o700)
        }
        try assertRestored(home, expected)
    }

    func testAnUnreadableStoreIsRestored() throws {
        let (home, expected) = try damageAndReopen {
            for suffix in RawArchiver.sidecarSuffixes { Files.remove(folder.store + suffix) }
            if getuid() == 0 {
                // root reads any file, so make it unreadable the way root cannot: a link that loops.
                symlink(folder.store, folder.store)
            } else {
                try Files.writeDurably(Array("x".utf8), to: folder.store)
                chmod(folder.store, 0)
            }
        }
        try assertRestored(home, expected)
    }

    func testADeletedStoreIsRestoredFromItsSnapshots() throws {
        let (home, expected) = try damageAndReopen {
            for suffix in RawArchiver.sidecarSuffixes { Files.remove(folder.store + suffix) }
        }
        XCTAssertEqual(home.status.state, .restored)
        XCTAssertEqual(try DataState(store: home.tracker.store), expected)
    }

    func testASnapshotWithOneFlippedByteIsSkippedAndTheOlderOneIsUsed() throws {
        var older: DataState
        do {
            let home = try open()
            try populate(home.tracker)
            older = try DataState(store: home.tracker.store)
            try home.tracker.addNote("this state's snapshot will be damaged")
        }
        let newest = folder.snapshots + "/" + folder.states().last!
        var bytes = try Files.read(newest)
        bytes[bytes.count / 2] ^= 0x01
        try Files.writeDurably(bytes, to: newest)
        XCTAssertThrowsError(try SnapshotKeeper.state(at: newest))
        // The slots hold the newest state too (the durable record of each change): gone as well.
        for index in 0..<2 { Files.remove(folder.snapshots + "/slot-\(index).snapshot") }
        try Files.writeDurably([UInt8](repeating: 1, count: 4096), to: folder.store)
        for suffix in ["-wal", "-shm"] { Files.remove(folder.store + suffix) }
        let home = try open()
        XCTAssertEqual(home.status.state, .restored)
        XCTAssertEqual(try DataState(store: home.tracker.store), older)
    }

    func testADamagedChunkMakesItsSnapshotInvalid() throws {
        do { try populate(open().tracker) }
        for name in folder.chunks() {
            var bytes = try Files.read(folder.snapshots + "/" + name)
            bytes[10] ^= 0x20
            try Files.writeDurably(bytes, to: folder.snapshots + "/" + name)
        }
        let newest = folder.snapshots + "/" + folder.states().last!
        XCTAssertThrowsError(try SnapshotKeeper.state(at: newest)) { error in
            guard case SnapshotFormat.Failure.missingChunk = error else { return XCTFail("\(error)") }
        }
    }

    func testWhenNothingCanBeRestoredTheFilesStayUntouchedAndEditingIsLocked() throws {
        try Files.makePrivateDirectory(folder.path)
        let garbage = Array("this is not a database, and there is no snapshot".utf8) + [UInt8](repeating: 3, count: 5000)
        try Files.writeDurably(garbage, to: folder.store)
        try Files.writeDurably(Array("junk wal".utf8), to: folder.store + "-wal")
        do {
            let home = try open()
            XCTAssertEqual(home.status.state, .readOnly)
            XCTAssertTrue(home.status.message.contains("editing is locked"), home.status.message)
            XCTAssertThrowsError(try home.tracker.createProject(name: "X", color: "", category: "")) {
                XCTAssertEqual(($0 as? TrackerError)?.name, "ReadOnly")
            }
            XCTAssertThrowsError(try home.tracker.setReminderMinutes(5)) { XCTAssertEqual(($0 as? TrackerError)?.name, "ReadOnly") }
            XCTAssertEqual(try home.tracker.status().state, .idle)
            XCTAssertNoThrow(try home.tracker.weeklyReport(week: "", format: "json"), "reads still work")
        }
        XCTAssertEqual(try Files.read(folder.store), garbage, "the original store is byte for byte as it was")
        XCTAssertEqual(try Files.read(folder.store + "-wal"), Array("junk wal".utf8))
        XCTAssertFalse(Files.exists(folder.store + "-shm"))
        XCTAssertFalse(Files.exists(folder.quarantine), "nothing is quarantined when nothing could replace it")
    }

    // MARK: Invariant 5: never downgraded

    func testANewerStoreIsLeftAloneAndEditingIsLocked() throws {
        do { try populate(open().tracker) }
        let database = try SQLiteDatabase(path: folder.store, mode: .readWrite)
        try database.execute("PRAGMA user_version = \(Schema.currentVersion + 1); PRAGMA wal_checkpoint(TRUNCATE);")
        let bytes = try Files.read(folder.store)
        let home = try open()
        XCTAssertEqual(home.status.state, .readOnly)
        XCTAssertTrue(home.status.message.contains("newer version"), home.status.message)
        XCTAssertThrowsError(try home.tracker.addCategory("X")) { XCTAssertEqual(($0 as? TrackerError)?.name, "ReadOnly") }
        XCTAssertEqual(try Files.read(folder.store), bytes)
    }

    func testADamagedStoreWithANewerSnapshotIsNotRestoredFromAnOlderOne() throws {
        do { try populate(open().tracker) }
        let newest = folder.snapshots + "/" + folder.states().last!
        let text = String(decoding: try Files.read(newest), as: UTF8.self).replacingOccurrences(
            of: "\"schemaVersion\":\(SnapshotFormat.currentVersion)", with: "\"schemaVersion\":\(SnapshotFormat.currentVersion + 1)")
        try Files.writeDurably(Array(text.utf8), to: newest)
        // The slots hold the newest state too (the durable record of each change): gone as well.
        for index in 0..<2 { Files.remove(folder.snapshots + "/slot-\(index).snapshot") }
        try Files.writeDurably([UInt8](repeating: 9, count: 4096), to: folder.store)
        for suffix in ["-wal", "-shm"] { Files.remove(folder.store + suffix) }
        let home = try open()
        XCTAssertEqual(home.status.state, .readOnly)
        XCTAssertTrue(home.status.message.contains("newer version"), home.status.message)
    }

    // MARK: Invariant 6: every older snapshot version stays readable

    private func fixture(_ name: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/\(name)").path
    }

    func testVersion2To4SnapshotsRestoreIntoTheCurrentStore() throws {
        for (version, notes) in [(2, false), (3, true), (4, true)] {
            folder.remove()
            folder = Folder()
            try Files.makePrivateDirectory(folder.snapshots)
            let name = SnapshotKeeper.fileName(sequence: 1, stateHash: "fixture")
            try Files.writeDurably(try Files.read(fixture("snapshot-v\(version).json")), to: folder.snapshots + "/" + name)
            let home = try open()
            XCTAssertEqual(home.status.state, .restored, "v\(version): \(home.status.message)")
            let tracker = home.tracker
            XCTAssertEqual(tracker.categories().map(\.name), ["Work"])
            XCTAssertEqual(tracker.projects().map(\.name), ["Writing", "Reading"])
            XCTAssertEqual(tracker.projects().map { tracker.categoryName(of: $0) }, ["Work", ""])
            let sessions = try tracker.sessions(project: 0, from: 0, to: 2_000_000_000)
            XCTAssertEqual(sessions.map(\.id), [1, 2, 3])
            XCTAssertEqual(sessions.map(\.unrecordedSeconds), [5400, 1800, 600])
            XCTAssertTrue(sessions.allSatisfy { $0.segments.filter { $0.end != nil }.isEmpty }, "no recorded segments")
            XCTAssertEqual(sessions.map(\.note), notes ? ["drafting", "", "open"] : ["", "", ""])
            XCTAssertEqual(try tracker.status().state, .running, "the open v\(version) session is still running")
            XCTAssertEqual(try tracker.status().session?.segments, [Segment(start: 1_794_990_000, end: nil)])
            XCTAssertEqual(tracker.reminderMinutes, 45)
            XCTAssertEqual(try tracker.history(count: 100), [], "a restored store starts with an empty undo history")
            try tracker.setNote(session: 1, note: "written after migration")
            XCTAssertEqual(try tracker.session(id: 1).note, "written after migration")
            XCTAssertEqual(try tracker.undo(), "Changed the note of Writing on \(LocalTime.date(of: 1_794_000_000))")
            XCTAssertEqual(try tracker.session(id: 1).note, notes ? "drafting" : "")
        }
    }

    // MARK: Record loss detection

    func testRestoreComparesEveryRecordAndRelationship() throws {
        let home = try open()
        try populate(home.tracker)
        var state = try DataState(store: home.tracker.store)
        XCTAssertEqual(state.differences(from: state), [])
        var lost = state
        lost.sessions.removeLast()
        XCTAssertFalse(lost.differences(from: state).isEmpty, "a lost session is detected")
        var changed = state
        changed.sessions[0].segments[0].end! += 1
        XCTAssertEqual(changed.differences(from: state), ["session 1 differs"])
        state.sessions[0].projectID = 99
        let scratch = try Store(path: ":memory:", create: true)
        XCTAssertThrowsError(try SnapshotKeeper.restore(state, into: scratch, stateHash: nil)) { error in
            XCTAssertTrue("\(error)".contains("missing project 99"), "\(error)")
        }
    }

    func testADeletedSessionsIDIsNeverGivenToAnotherSession() throws {
        do {
            let home = try open()
            try home.tracker.createProject(name: "Writing", color: "", category: "")
            let first = try home.tracker.addSession(project: 1, start: clock.time - 7200, duration: "30m", note: "")
            let second = try home.tracker.addSession(project: 1, start: clock.time - 3600, duration: "30m", note: "")
            try home.tracker.deleteSession(id: second)
            let third = try home.tracker.startProject("Writing")
            XCTAssertEqual([first, second, third], [1, 2, 3])
            try home.tracker.stop()
            try home.tracker.deleteSession(id: third)
        }
        let home = try open()
        XCTAssertEqual(try home.tracker.addSession(project: 1, start: clock.time - 600, duration: "5m", note: ""), 4,
                       "not reused after a restart either")
    }

    // MARK: Invariant 7 and the lock

    func testTheDataFolderIsPrivate() throws {
        do { try populate(open().tracker) }
        do { _ = try open() }   // a second start makes a raw archive
        var info = stat()
        stat(folder.path, &info)
        XCTAssertEqual(info.st_mode & 0o777, 0o700)
        func check(_ directory: String) {
            for name in Files.list(directory) {
                let path = directory + "/" + name
                var entry = stat()
                lstat(path, &entry)
                if Files.kind(path) == .directory {
                    XCTAssertEqual(entry.st_mode & 0o777, 0o700, path)
                    check(path)
                } else {
                    XCTAssertEqual(entry.st_mode & 0o077, 0, "\(path) is readable by others")
                }
            }
        }
        check(folder.path)
        XCTAssertFalse(RawArchiver.list(folder.archives).isEmpty)
    }

    func testASecondOpenOfTheSameFolderIsRefusedWhileTheFirstRuns() throws {
        let first = try open()
        XCTAssertThrowsError(try open()) { error in
            XCTAssertTrue("\(error)".contains("already running"), "\(error)")
        }
        _ = first
    }

    func testTheDataFolderFollowsTheEnvironment() {
        XCTAssertEqual(DataDirectory.resolve(explicit: "/x", environment: ["TIME_TRACKER_DATA_DIR": "/y"]), "/x")
        XCTAssertEqual(DataDirectory.resolve(environment: ["TIME_TRACKER_DATA_DIR": "/y", "XDG_DATA_HOME": "/d"]), "/y")
        XCTAssertEqual(DataDirectory.resolve(environment: ["XDG_DATA_HOME": "/d", "HOME": "/h"]), "/d/time-tracker")
        XCTAssertEqual(DataDirectory.resolve(environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]), "/h/.local/share/time-tracker")
        XCTAssertEqual(DataDirectory.resolve(environment: ["HOME": "/h"]), "/h/.local/share/time-tracker")
    }
}
