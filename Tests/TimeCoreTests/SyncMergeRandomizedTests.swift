import Glibc
import XCTest
@testable import TimeCore

/// Two worlds. In the first, three simulated devices with clocks skewed by hours make random
/// changes as records; their change files reach each other in random orders, duplicated, cut
/// mid-record, corrupted on the way, beside Syncthing's temporary files and conflict copies.
/// After full delivery every device holds the same history, record for record, and no
/// acknowledged change is missing. In the second, three real devices (stores, change gates,
/// sync engines) take a person's calls, and an oracle that knows only those calls and their
/// order says what each field must hold (SyncClientWorld, SyncClientOracle).
///
/// Replay a failure with TIME_SYNC_SEED=<seed printed> swift test --filter SyncMergeRandomizedTests;
/// TIME_SYNC_ROUNDS sets how many seeds one run tries (scripts/stress.sh uses more).
final class SyncMergeRandomizedTests: XCTestCase {
    private func seeds(_ label: String, rounds defaultRounds: Int) -> [UInt64] {
        let fixed = getenv("TIME_SYNC_SEED").flatMap { UInt64(String(cString: $0)) }
        let rounds = fixed != nil ? 1 : (getenv("TIME_SYNC_ROUNDS").flatMap { Int(String(cString: $0)) } ?? defaultRounds)
        var seeder = SystemRandomNumberGenerator()
        return (0..<rounds).map { _ in
            let seed = fixed ?? (seeder.next() as UInt64) % 1_000_000_000
            print("\(label) seed \(seed) (replay: TIME_SYNC_SEED=\(seed))")
            return seed
        }
    }

    func testThreeDevicesConvergeWhateverTheDelivery() throws {
        for seed in seeds("sync merge", rounds: 4) {
            let directory = try makeTemporaryDirectory()
            defer { Files.remove(directory) }
            var world = try SyncWorld(seed: seed, directory: directory)
            try world.run(steps: 400)
        }
    }

    /// Same-name creations on several devices, then edits of their sessions and projects on
    /// others; renames onto and away from names other devices just created; category deletes
    /// beside recategorizations: every field ends as the clients wrote it.
    func testEveryFieldHoldsWhatTheClientsWrote() throws {
        setenv("TZ", "UTC", 1)
        tzset()
        for seed in seeds("sync clients", rounds: 3) {
            let directory = try makeTemporaryDirectory()
            defer { Files.remove(directory) }
            let world = try SyncClientWorld(seed: seed, directory: directory)
            try world.run(steps: 240)
        }
    }
}

/// One simulated device: its own copy of the shared folder, its log, its merged state.
final class SimulatedDevice {
    let id: String
    let layout: SyncLayout
    var writer: SyncLogWriter
    var reader: SyncLogReader
    var replica = SyncReplica()
    let skewMilliseconds: Int64
    var acknowledged: [SyncRecord] = []

    init(id: String, folder: String, skewHours: Int64) throws {
        self.id = id
        layout = SyncLayout(folder: folder)
        writer = try SyncLogWriter(layout: layout, device: id, rotationBytes: 3000)
        reader = SyncLogReader(layout: layout)
        skewMilliseconds = skewHours * 3_600_000
    }

    /// A local change: written and fsynced first (that is the acknowledgement), then merged here.
    func change(_ drafts: [SyncDraft], at globalMilliseconds: Int64) throws {
        let before = replica.newest
        let records = try writer.append(drafts, wallMilliseconds: globalMilliseconds + skewMilliseconds)
        for record in records {
            // The clock never goes back, and a change comes after everything this device has seen.
            if let before { XCTAssertGreaterThan(record.hlc, before, "device \(id) stamped a change before what it had seen") }
        }
        acknowledged += records
        replica.apply(records)
    }

    @discardableResult
    func merge() -> Int {
        let (records, _) = reader.readNew(except: id)
        let before = replica.recordCount
        replica.apply(records)
        if let newest = replica.newest { writer.observe(newest) }
        return replica.recordCount - before
    }

    /// A crash in the middle of an append: half a line at the end of its own file, then a restart.
    func crashMidAppendAndRestart() throws {
        let numbers = layout.changeFiles(of: id)
        if let last = numbers.last {
            let path = layout.deviceFolder(id) + "/" + SyncLayout.changeFileName(last)
            appendBytes(Array("{\"dev\":\"\(id)\",\"fields\":{\"na".utf8), to: path)
        }
        writer = try SyncLogWriter(layout: layout, device: id, rotationBytes: 3000)
        reader = SyncLogReader(layout: layout)  // forgets its offsets: reading everything again
        let (records, _) = reader.readNew(except: id)
        let fresh = Set(records.filter { !replica.contains(device: $0.device, sequence: $0.sequence) }.map { "\($0.device)/\($0.sequence)" })
        let before = replica.recordCount
        replica.apply(records)
        if let newest = replica.newest { writer.observe(newest) }  // the store remembers what it merged
        XCTAssertEqual(replica.recordCount, before + fresh.count, "re-reading after a restart of \(id) applied a record twice")
        XCTAssertEqual(writer.nextSequence, Int64(acknowledged.count) + 1, "the restart of \(id) lost its sequence")
    }
}

struct SyncWorld {
    var random: SeededRandom
    let seed: UInt64
    let directory: String
    var devices: [SimulatedDevice] = []
    var now: Int64 = 1_780_000_000_000
    let names = ["Client A", "client a ", "Ops", "Writing", "Admin", "Research"]

    init(seed: UInt64, directory: String) throws {
        self.seed = seed
        self.directory = directory
        random = SeededRandom(seed: seed)
        let skews: [Int64] = [0, -random.int64(1...9), random.int64(1...9)]
        for index in 0..<3 {
            let id = SyncRecord.newID(using: &random)
            devices.append(try SimulatedDevice(id: id, folder: directory + "/device\(index)", skewHours: skews[index]))
        }
    }

    mutating func run(steps: Int) throws {
        for device in devices {
            try device.change([SyncDraft(kind: .device, id: device.id, operation: .create, fields: ["name": .string("machine \(device.id.prefix(4))")])], at: now)
        }
        for _ in 0..<steps {
            now += random.int64(1_000...900_000)
            let device = random.pick(devices)
            switch random.int(0...99) {
            case 0..<55: try localChange(device)
            case 55..<80: try deliver(to: device, full: false)
            case 80..<93: device.merge()
            case 93..<97: try deliverNoise(to: device)
            default: try device.crashMidAppendAndRestart()
            }
        }
        // Full delivery, then every device merges.
        for device in devices { try deliver(to: device, full: true) }
        for device in devices { device.merge() }
        try check()
    }

    // MARK: - Changes a person makes

    mutating func localChange(_ device: SimulatedDevice) throws {
        let replica = device.replica
        let projects = replica.live(.project)
        let sessions = replica.live(.session)
        let representatives = replica.representatives(.project)
        let mine = sessions.first { $0["origin"]?.stringValue == device.id && $0["end"]?.isNull == true }
        let seconds = (now + device.skewMilliseconds) / 1000
        var drafts: [SyncDraft] = []
        switch random.int(0...99) {
        case 0..<12:  // create a project, reusing the id of a known one with the same name
            let name = random.pick(names)
            if !projects.contains(where: { SyncReplica.nameKey($0["name"]?.stringValue ?? "") == SyncReplica.nameKey(name) }) {
                drafts.append(SyncDraft(kind: .project, id: SyncRecord.newID(using: &random), operation: .create, fields: [
                    "name": .string(name), "color": .string("#3465a4"), "category": .string(""), "archived": .bool(false)]))
            }
        case 12..<17:  // a category, and a project put into it
            let name = random.pick(["Billable", "billable", "Internal"])
            let known = replica.live(.category).first { SyncReplica.nameKey($0["name"]?.stringValue ?? "") == SyncReplica.nameKey(name) }
            let id = known?.id ?? SyncRecord.newID(using: &random)
            if known == nil { drafts.append(SyncDraft(kind: .category, id: id, operation: .create, fields: ["name": .string(name)])) }
            if let project = projects.isEmpty ? nil : random.pick(projects) {
                drafts.append(SyncDraft(kind: .project, id: project.id, operation: .set, fields: ["category": .string(id)]))
            }
        case 17..<25:  // rename a project: every member of its same-name group
            guard let project = projects.isEmpty ? nil : random.pick(projects) else { break }
            let group = projects.filter { representatives[$0.id] == representatives[project.id] }
            let name = random.pick(names + ["Renamed \(random.int(1...3))"])
            for member in group { drafts.append(SyncDraft(kind: .project, id: member.id, operation: .set, fields: ["name": .string(name)])) }
        case 25..<29:
            guard let project = projects.isEmpty ? nil : random.pick(projects) else { break }
            drafts.append(SyncDraft(kind: .project, id: project.id, operation: .set,
                                    fields: random.chance(50) ? ["archived": .bool(random.chance(50))] : ["color": .string(random.pick(["#ff0000", "#00ff00"]))]))
        case 29..<55:  // the timer: only this device's own session
            if let mine {
                var segments = mine["segments"]?.arrayValue ?? []
                let running = segments.last.flatMap { $0.arrayValue?.last?.isNull } == true
                if running, let last = segments.last?.arrayValue { segments[segments.count - 1] = .array([last[0], .int(max(seconds, last[0].intValue ?? 0))]) }
                switch random.int(0...2) {
                case 0 where running:
                    drafts.append(SyncDraft(kind: .session, id: mine.id, operation: .set, fields: ["segments": .array(segments)]))
                case 1 where !running:
                    segments.append(.array([.int(seconds), .null]))
                    drafts.append(SyncDraft(kind: .session, id: mine.id, operation: .set, fields: ["segments": .array(segments)]))
                default:
                    drafts.append(SyncDraft(kind: .session, id: mine.id, operation: .set, fields: ["segments": .array(segments), "end": .int(seconds)]))
                }
            } else if let project = projects.isEmpty ? nil : random.pick(projects) {
                drafts.append(SyncDraft(kind: .session, id: SyncRecord.newID(using: &random), operation: .create, fields: [
                    "project": .string(representatives[project.id] ?? project.id), "start": .int(seconds), "end": .null,
                    "note": .string(""), "segments": .array([.array([.int(seconds), .null])]), "unrecorded": .int(0),
                    "origin": .string(device.id)]))
            }
        case 55..<80:  // edit any session, this device's or another's
            guard let session = sessions.isEmpty ? nil : random.pick(sessions) else { break }
            var fields: [String: JSON] = [:]
            if random.chance(60) { fields["note"] = .string("note \(random.int(1...99)) from \(device.id.prefix(4))") }
            if random.chance(30), let project = projects.isEmpty ? nil : random.pick(projects) { fields["project"] = .string(project.id) }
            if random.chance(20) { fields["unrecorded"] = .int(random.int64(0...3600)) }
            if !fields.isEmpty { drafts.append(SyncDraft(kind: .session, id: session.id, operation: .set, fields: fields)) }
        case 80..<92:  // delete a session, whoever's it is
            guard let session = sessions.isEmpty ? nil : random.pick(sessions) else { break }
            drafts.append(SyncDraft(kind: .session, id: session.id, operation: .delete))
        case 92..<95:
            guard let project = projects.isEmpty ? nil : random.pick(projects) else { break }
            drafts.append(SyncDraft(kind: .project, id: project.id, operation: .delete))
        default:
            drafts.append(SyncDraft(kind: .device, id: device.id, operation: .set, fields: ["name": .string("renamed \(random.int(1...9))")]))
        }
        try device.change(drafts, at: now)
    }

    // MARK: - What the sync engine does

    /// Copies another device's change file into this device's folder: the whole file, or cut at a
    /// random byte (mid-record), sometimes with one byte damaged on the way (a later delivery of
    /// the whole file repairs it).
    mutating func deliver(to destination: SimulatedDevice, full: Bool) throws {
        for source in devices where source !== destination {
            let numbers = source.layout.changeFiles(of: source.id)
            let chosen = full ? numbers : (numbers.isEmpty ? [] : [random.pick(numbers)])
            for number in chosen {
                let from = source.layout.deviceFolder(source.id) + "/" + SyncLayout.changeFileName(number)
                var bytes = try Files.read(from)
                if !full && random.chance(50) && !bytes.isEmpty { bytes = Array(bytes[0..<random.int(0...bytes.count - 1)]) }
                if !full && random.chance(10) && bytes.count > 10 {
                    let at = random.int(0...bytes.count - 2)
                    bytes[at] = bytes[at] == 65 ? 66 : 65
                }
                let folder = destination.layout.deviceFolder(source.id)
                try Files.makePrivateDirectory(folder)
                writeBytes(bytes, to: folder + "/" + SyncLayout.changeFileName(number))
            }
            if !full { break }
        }
    }

    /// Files the reader must never read: Syncthing's temporary files and conflict copies with
    /// records in them that were never acknowledged, and a folder that is not a device.
    mutating func deliverNoise(to destination: SimulatedDevice) throws {
        let source = random.pick(devices.filter { $0 !== destination })
        let folder = destination.layout.deviceFolder(source.id)
        try Files.makePrivateDirectory(folder)
        let fake = SyncRecord(device: source.id, sequence: 1, hlc: HLC(time: 1, counter: 0), kind: .session,
                              id: SyncRecord.newID(using: &random), operation: .delete, fields: [:])
        let names = ["changes-000001.sync-conflict-20261201-101010-ABCDEFG.jsonl",
                     ".syncthing.changes-000002.jsonl.tmp", "~syncthing~changes-000003.jsonl.tmp", "changes-1.jsonl"]
        writeBytes(Array(fake.line.utf8), to: folder + "/" + random.pick(names))
        try Files.makePrivateDirectory(destination.layout.root + "/not-a-device")
    }

    // MARK: - The proof

    func check() throws {
        let all = devices.flatMap(\.acknowledged)
        let context = "seed \(seed)"
        var reference = SyncReplica()
        reference.apply(all.sorted { $0.stamp < $1.stamp })
        var backwards = SyncReplica()
        backwards.apply((all + all).sorted { $1.stamp < $0.stamp })
        XCTAssertEqual(backwards.view(), reference.view(), context)
        for device in devices {
            XCTAssertEqual(device.replica.recordCount, all.count, "\(context): device \(device.id) misses records")
            XCTAssertEqual(device.replica.view(), reference.view(), "\(context): device \(device.id) differs")
            XCTAssertEqual(device.replica.view().count, reference.view().count)
        }
        XCTAssertEqual(devices[0].replica.view(), devices[1].replica.view(), context)
        XCTAssertEqual(devices[1].replica.view(), devices[2].replica.view(), context)
        // No acknowledged change is missing: every field written is either the value kept or was
        // overwritten by a later writer; every delete holds.
        for record in all {
            guard let entity = reference.entity(record.kind, record.id) else { XCTFail("\(context): lost \(record.id)"); continue }
            if record.operation == .delete { XCTAssertNotNil(entity.deleted, context) }
            if record.operation == .create { XCTAssertNotNil(entity.created, context) }
            for (key, value) in record.fields {
                guard let kept = entity.fields[key] else { XCTFail("\(context): field \(key) lost"); continue }
                if kept.stamp == record.stamp { XCTAssertEqual(kept.value, value, context) } else { XCTAssertGreaterThan(kept.stamp, record.stamp, context) }
            }
        }
        // The history is not empty and the clocks skewed by hours did not block anything.
        XCTAssertGreaterThan(reference.live(.session).count + reference.view().filter { $0.hasPrefix("deleted session") }.count, 5, context)
    }
}

func writeBytes(_ bytes: [UInt8], to path: String) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return XCTFail("cannot write \(path)") }
    defer { close(fd) }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

func appendBytes(_ bytes: [UInt8], to path: String) {
    let fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC, 0o600)
    guard fd >= 0 else { return XCTFail("cannot append to \(path)") }
    defer { close(fd) }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

extension SeededRandom: RandomNumberGenerator {}
