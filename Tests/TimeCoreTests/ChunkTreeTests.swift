import Glibc
import XCTest
@testable import TimeCore

/// Payload v9's chunk tree (a chunk per day at every age, index chunks above) and the chunks
/// carried by the slots until a batch flush: what a change years back writes, what a power cut
/// that took unflushed chunk files leaves readable, and the v8 layout read and migrated forward.
final class ChunkTreeTests: FoldersTestCase {
    private func newestSlot(_ folder: Folder) throws -> SnapshotSlots.Body {
        let slots = try (0..<2).compactMap { try? SnapshotSlots.body(of: Files.read(folder.snapshots + "/slot-\($0).snapshot")) }
        return try XCTUnwrap(slots.max { $0.sequence < $1.sequence })
    }

    /// Years of history, eight sessions a day on some days: an edit years back writes its day's
    /// chunk and three small index chunks, never a month or a year of sessions.
    func testAnEditYearsBackRewritesItsDayAndTheIndexesAboveIt() throws {
        let folder = makeFolder()
        let home = try open(folder)
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        for day in stride(from: 3, to: 1500, by: 37) {
            for hour in 0..<3 {
                try home.tracker.addSession(project: 1, start: clock.time - Int64(day) * 86400 + Int64(hour) * 3600, duration: "30m", note: "")
            }
        }
        home.tracker.tidyUp()
        let before = Set(folder.chunks())
        let old = try XCTUnwrap(home.tracker.sessions(project: 1, from: 0, to: clock.time).first)
        try home.tracker.setNote(session: old.id, note: "years later")
        let written = Set(folder.chunks()).subtracting(before)
        XCTAssertEqual(written.count, 4, "the day, its month, its year and the root")
        var periods: [String] = []
        for name in written {
            let json = try JSON.parse(Files.read(folder.snapshots + "/" + name))
            periods.append(try XCTUnwrap(json["period"]?.stringValue))
            if let sessions = json["sessions"]?.arrayValue { XCTAssertEqual(sessions.count, 3, "one day's sessions") }
        }
        let day = CivilDate.utcDayKey(old.start)
        XCTAssertEqual(periods.sorted(), ["", String(day.prefix(4)), String(day.prefix(7)), day])
        let newest = try XCTUnwrap(home.keeper?.entries.last)
        XCTAssertEqual(try home.keeper!.state(of: newest), try DataState(store: home.tracker.store))
    }

    /// A power cut can take chunk files written without a flush: the slot carries them, the
    /// recovery reads them from there, and the start puts the files back.
    func testChunksAPowerCutTookAreReadFromTheSlotAndWrittenBackAtStart() throws {
        let folder = makeFolder()
        var expected: DataState
        do {
            let home = try open(folder)
            try home.tracker.createProject(name: "Writing", color: "", category: "")
            try home.tracker.addSession(project: 1, start: utc(2023, 3, 14, 9), duration: "1h", note: "years back")
            expected = try DataState(store: home.tracker.store)
            let slot = try newestSlot(folder)
            XCTAssertEqual(slot.carried.count, 4, "the new day, month, year and root travel in the slot")
            // What the power cut leaves: none of the chunk files, and a store without its last commit.
            for name in folder.chunks() { Files.remove(folder.snapshots + "/" + name) }
            XCTAssertEqual(try SnapshotKeeper.state(at: folder.snapshots + "/slot-\(slot.sequence % 2).snapshot"), expected)
            try home.tracker.store.database.execute(storeMarkInItsTable + "UPDATE snapshot_mark SET sequence = 1")
            try home.tracker.store.database.execute("DELETE FROM sessions")
        }
        let home = try open(folder)
        XCTAssertEqual(try DataState(store: home.tracker.store), expected, "rolled forward from the slot")
        XCTAssertEqual(folder.chunks().count, 4, "the carried chunks are files again")
        // Another change then reads well from its files alone.
        try home.tracker.setNote(session: 1, note: "after the power cut")
        let newest = try XCTUnwrap(home.keeper?.entries.last)
        XCTAssertEqual(try SnapshotKeeper.state(at: newest.path), try DataState(store: home.tracker.store))
    }

    /// Chunks written on many days travel in the slots only until the batch flush: the slot
    /// stays small, and after the flush it carries nothing until the next chunk is written.
    func testCarriedChunksAreFlushedInABatch() throws {
        let folder = makeFolder()
        let home = try open(folder)
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        var sawEmpty = false
        for day in 0..<(SnapshotKeeper.carriedChanges + 4) {
            try home.tracker.addSession(project: 1, start: utc(2022, 5, 1, 9) + Int64(day) * 86400, duration: "1h", note: "")
            let slot = try newestSlot(folder)
            let size = slot.carried.values.reduce(0) { $0 + $1.count }
            XCTAssertLessThanOrEqual(size, SnapshotKeeper.carriedLimit, "after day \(day)")
            if slot.carried.isEmpty { sawEmpty = true }
        }
        XCTAssertTrue(sawEmpty, "a batch flush emptied the slot")
        // Timer changes carry no chunk of history once the batch is flushed.
        try home.tracker.startProject("Writing")
        for _ in 0..<(SnapshotKeeper.carriedChanges + 1) {
            clock.time += 60
            if try home.tracker.status().state == .running { try home.tracker.pause() } else { try home.tracker.resume() }
        }
        XCTAssertEqual(try newestSlot(folder).carried.count, 0)
    }

    /// A start reads every index chunk with a reader of the canonical form alone; whatever it does
    /// not recognise goes to the JSON parser, so both always give the same parts.
    func testIndexChunksReadTheSameWithTheCanonicalReaderAndTheParser() throws {
        let hash = String(repeating: "ab", count: 32)
        let lists: [[SnapshotFormat.ChunkReference]] = [
            [],
            [SnapshotFormat.ChunkReference(period: "2024-03-15", sha256: hash, sessions: 0)],
            (1...12).map { SnapshotFormat.ChunkReference(period: "2024-\($0 < 10 ? "0" : "")\($0)", sha256: hash, sessions: $0 * 1000) },
            [SnapshotFormat.ChunkReference(period: "odd \"quoted\" \\", sha256: hash, sessions: 7)],
        ]
        for (index, parts) in lists.enumerated() {
            let bytes = SnapshotFormat.indexChunk(period: "2024", parts: parts)
            XCTAssertEqual(SnapshotFormat.indexParts(bytes), parts, "list \(index)")
            // Byte for byte the compact JSON of the same object, its keys in order (the chunk's
            // name is the hash of these bytes: a writer that changed them would rewrite them all).
            let object = JSON.object([
                ("parts", .array(parts.map { .object([("period", .string($0.period)), ("sessions", .int(Int64($0.sessions))), ("sha256", .string($0.sha256))]) })),
                ("period", .string("2024")),
            ])
            XCTAssertEqual(String(decoding: bytes, as: UTF8.self), object.serialized, "list \(index)")
            if index < 3 { XCTAssertEqual(SnapshotFormat.canonicalIndexContents(bytes)?.parts, parts, "list \(index) is canonical") }
        }
        // The same chunk laid out otherwise: not canonical, still read by the parser.
        let spaced = Array("{ \"parts\": [{\"sha256\": \"\(hash)\", \"period\": \"2024-01\", \"sessions\": 3}], \"period\": \"2024\" }".utf8)
        XCTAssertNil(SnapshotFormat.canonicalIndexContents(spaced))
        XCTAssertEqual(SnapshotFormat.indexParts(spaced), [SnapshotFormat.ChunkReference(period: "2024-01", sha256: hash, sessions: 3)])
        // Cut, or a day's chunk: no parts at all.
        let whole = SnapshotFormat.indexChunk(period: "2024", parts: lists[2])
        XCTAssertNil(SnapshotFormat.indexParts(Array(whole.dropLast(2))))
        XCTAssertNil(SnapshotFormat.indexParts(Array("{\"period\":\"2024-03-15\",\"sessions\":[]}".utf8)))
    }

    /// After a batch flush, an edit years back carries its day whole and its three index chunks
    /// as patches against the flushed ones: the slot does not grow with the history. A power cut
    /// that takes every chunk file written since the flush still leaves the newest state
    /// readable, also after more changes than snapshots are kept (the base is never pruned).
    func testIndexChunksTravelAsPatchesAgainstTheFlushedTree() throws {
        let folder = makeFolder()
        let home = try open(folder)
        try home.tracker.createProject(name: "Writing", color: "", category: "")
        // Five years of history, a session every third day, so that the indexes list enough for
        // a patch to be the smaller form.
        for day in stride(from: 3, to: 1800, by: 3) {
            try home.tracker.addSession(project: 1, start: clock.time - Int64(day) * 86400, duration: "30m", note: "")
        }
        let keeper = try XCTUnwrap(home.keeper)
        try keeper.flushChunks()
        let flushed = Set(folder.chunks())
        let sessions = try home.tracker.sessions(project: 1, from: 0, to: clock.time)
        for (round, session) in sessions.dropFirst(sessions.count / 2).prefix(SnapshotKeeper.keptStates + 5).enumerated() {
            try home.tracker.setNote(session: session.id, note: "round \(round)")
            let slot = try newestSlot(folder)
            let whole = SnapshotSlots.carried(at: folder.snapshots + "/slot-\(slot.sequence % 2).snapshot")
            let patches = slot.carried.filter { IndexPatch.isPatch($0.value) }
            // The root, a year and a month at the first edit; then every index touched since the flush.
            XCTAssertGreaterThanOrEqual(patches.count, 3, "round \(round): index chunks travel as patches")
            if round == 0 { XCTAssertEqual(patches.count, 3) }
            for (hash, patch) in patches {
                // A line per part changed since the flush: one, at the first edit.
                if round == 0 { XCTAssertLessThan(patch.count, 200) }
                let chunk = try XCTUnwrap(whole[hash], "round \(round): the patch expands")
                XCTAssertEqual(SHA256.hex(chunk), hash)
                XCTAssertLessThan(patch.count, chunk.count, "round \(round)")
            }
        }
        home.tracker.tidyUp()
        let expected = try DataState(store: home.tracker.store)
        let slot = try newestSlot(folder)
        // What a power cut may leave: the flushed chunks only.
        for name in folder.chunks() where !flushed.contains(name) { Files.remove(folder.snapshots + "/" + name) }
        XCTAssertEqual(try SnapshotKeeper.state(at: folder.snapshots + "/slot-\(slot.sequence % 2).snapshot"), expected)
    }

    /// A patch names a base that must be whole: a torn or missing base gives no chunk at all,
    /// never a wrong one.
    func testAPatchWithoutItsBaseExpandsToNothing() throws {
        let part = SnapshotFormat.ChunkReference(period: "2024-03", sha256: String(repeating: "a", count: 64), sessions: 2)
        let base = SnapshotFormat.indexChunk(period: "2024", parts: [part])
        let baseHash = SHA256.hex(base)
        let changed = SnapshotFormat.ChunkReference(period: "2024-04", sha256: String(repeating: "b", count: 64), sessions: 1)
        let patch = try XCTUnwrap(IndexPatch.make(base: baseHash, baseParts: ["2024-03": part],
                                                  parts: ["2024-03": part, "2024-04": changed], wholeSize: 10_000))
        XCTAssertEqual(IndexPatch.apply(patch) { $0 == baseHash ? base : nil },
                       SnapshotFormat.indexChunk(period: "2024", parts: [part, changed]))
        XCTAssertNil(IndexPatch.apply(patch) { _ in nil }, "no base")
        XCTAssertNil(IndexPatch.apply(patch) { _ in Array(base.dropLast()) }, "a torn base")
        XCTAssertNil(IndexPatch.apply(Array(patch.dropLast(3))) { _ in base }, "a cut patch")
        let removal = try XCTUnwrap(IndexPatch.make(base: baseHash, baseParts: ["2024-03": part], parts: ["2024-04": changed],
                                                    wholeSize: 10_000))
        XCTAssertEqual(IndexPatch.apply(removal) { _ in base }, SnapshotFormat.indexChunk(period: "2024", parts: [changed]))
    }

    /// A slot written before slots carried chunks (four header fields) reads as its snapshot.
    /// The hand-written chunk list must be the canonical JSON byte for byte: chunks are named by
    /// the hash of their bytes, and a changed byte would make every index chunk new.
    func testTheChunkListIsTheCanonicalJSON() {
        let references = [
            SnapshotFormat.ChunkReference(period: "", sha256: String(repeating: "f", count: 64), sessions: 0),
            SnapshotFormat.ChunkReference(period: "2024-03-15", sha256: String(repeating: "0", count: 64), sessions: 123_456),
            SnapshotFormat.ChunkReference(period: "odd \"quoted\" \\ \n\u{2028}", sha256: "x", sessions: -1),
        ]
        for count in 0...references.count {
            let list = Array(references.prefix(count))
            let canonical = JSON.array(list.map {
                .sortedObject(["period": .string($0.period), "sha256": .string($0.sha256), "sessions": .int(Int64($0.sessions))])
            }).serialized
            XCTAssertEqual(SnapshotFormat.chunkList(list), canonical)
        }
    }

    func testASlotOfTheEarlierFormatStillReads() throws {
        let snapshot = Array("{\"a snapshot\":1}".utf8)
        var header = Array("\(SnapshotSlots.wholeBodyMagic) 7 \(snapshot.count) \(SHA256.hex(snapshot))".utf8)
        header += [UInt8](repeating: UInt8(ascii: " "), count: SnapshotSlots.headerSize - 1 - header.count) + [UInt8(ascii: "\n")]
        let body = try SnapshotSlots.body(of: header + snapshot + Array("stale bytes of a longer slot".utf8))
        XCTAssertEqual(body.sequence, 7)
        XCTAssertEqual(body.bytes, snapshot)
        XCTAssertEqual(body.carried.count, 0)
    }

    /// A folder written by v8 (a flat chunk list: a past year's chunk, this year's month chunks,
    /// today's sessions inline) restores and migrates forward: the first change writes v9.
    func testTheV8LayoutIsReadAndMigratesForward() throws {
        let folder = makeFolder()
        try Files.makePrivateDirectory(folder.path)
        try Files.makePrivateDirectory(folder.snapshots)
        let project = Project(id: 1, name: "Writing", color: "#3366cc", categoryID: nil, archived: false)
        func session(_ id: Int64, _ start: Int64) -> WorkSession {
            WorkSession(id: id, projectID: 1, start: start, end: start + 1800, unrecordedSeconds: 0, note: "v8 \(id)",
                        segments: [Segment(start: start, end: start + 1800)])
        }
        let year = [session(1, utc(2024, 2, 3, 9)), session(2, utc(2024, 7, 8, 9))]
        let month = [session(3, utc(2026, 11, 2, 9))]
        let today = [session(4, utc(2026, 11, 28, 7))]
        var references: [SnapshotFormat.ChunkReference] = []
        for (period, sessions) in [("2024", year), ("2026-11", month)] {
            let bytes = SnapshotFormat.chunk(period: period, sessions: sessions)
            let hash = SHA256.hex(bytes)
            try Files.writeDurably(bytes, to: folder.snapshots + "/chunk-\(hash).json")
            references.append(SnapshotFormat.ChunkReference(period: period, sha256: hash, sessions: sessions.count))
        }
        let payload = SnapshotFormat.payload(categories: [], projects: [project], reminderMinutes: 25, openSession: nil,
                                             chunkList: SnapshotFormat.chunkList(references),
                                             todaysSessions: SnapshotFormat.sessionList(today),
                                             away: "{\"lastId\":0,\"minutes\":0,\"spans\":[]}", dataID: "0123456789abcdef")
        let (bytes, hash) = SnapshotFormat.file(payload: payload, version: 8, createdAt: clock.time)
        try Files.writeDurably(bytes, to: folder.snapshots + "/" + SnapshotKeeper.fileName(sequence: 1, stateHash: hash))

        let home = try open(folder)
        XCTAssertEqual(home.status.state, .restored, home.status.message)
        XCTAssertEqual(try home.tracker.store.allSessions().map(\.id), [1, 2, 3, 4])
        XCTAssertEqual(try home.tracker.store.allSessions().map(\.note), ["v8 1", "v8 2", "v8 3", "v8 4"])

        try home.tracker.setNote(session: 2, note: "edited after the upgrade")
        let newest = try XCTUnwrap(home.keeper?.entries.last)
        let header = try SnapshotFormat.read(Files.read(newest.path))
        XCTAssertEqual(header.version, SnapshotFormat.currentVersion, "written in the current layout")
        let tree = try ChunkTreeContents(snapshot: newest.path)
        XCTAssertEqual(tree.sessionsByPeriod.keys.sorted(), ["2024-02-03", "2024-07-08", "2026-11-02"])
        XCTAssertEqual(tree.indexPeriods, ["", "2024", "2024-02", "2024-07", "2026", "2026-11"])
        XCTAssertEqual(try SnapshotKeeper.state(at: newest.path), try DataState(store: home.tracker.store))
        // The v8 snapshot stays readable beside it.
        XCTAssertEqual(try SnapshotKeeper.state(at: try XCTUnwrap(home.keeper?.entries.first).path).sessions.count, 4)
    }
}
