import Glibc
import XCTest
@testable import TimeCore

/// Three real devices (a store each, with its change gate, snapshots and sync engine) on one
/// shared folder, clocks skewed by hours. A person on each device makes random changes through
/// the tracker, the way the agent's methods do: same-name creations, renames onto and away from
/// names others just created, edits of sessions and projects created elsewhere, category deletes
/// beside recategorizations, the timer. Devices merge when they like. At the end every device
/// holds the same data, and every field a value that `SyncClientOracle` expects from what the
/// clients wrote alone.
final class SyncClientWorld {
    final class WorldClock { var time: Int64 = 1_796_000_000 }  // 2026-12-01 (UTC)

    final class DeviceClock: Clock {
        let world: WorldClock
        let skew: Int64
        init(world: WorldClock, skew: Int64) { self.world = world; self.skew = skew }
        func now() -> Int64 { world.time + skew }
    }

    struct Device {
        let index: Int
        let home: DataHome
        let engine: SyncEngine
        var tracker: Tracker { home.tracker }
    }

    private(set) var random: SeededRandom
    let seed: UInt64
    let context: String
    private(set) var devices: [Device] = []
    private(set) var oracle = SyncClientOracle()
    private var step = 0
    private let world = WorldClock()
    private let projectNames = ["Fold-X", "fold-x ", "FOLD-X", "Alpha", "alpha", "Beta"]
    private let categoryNames = ["Billable", "billable ", "Internal", "Home"]

    /// `skews` (seconds, one per device) replaces the skews drawn from the seed (a scripted run).
    init(seed: UInt64, directory: String, skews given: [Int64]? = nil) throws {
        self.seed = seed
        context = "seed \(seed) (replay: TIME_SYNC_SEED=\(seed))"
        random = SeededRandom(seed: seed)
        // Global ids from the seed too (a stream of their own): a merge numbers the rows it adds
        // in global-id order and the person picks from rows in that order, so with the system's
        // random ids one seed made a different run each time.
        var ids = SeededRandom(seed: seed ^ 0x9d5e_1d5a_6c0f_ee77)
        SyncRecord.idSource = { SyncRecord.newID(using: &ids) }
        let skews: [Int64] = given ?? [0, -random.int64(1...9) * 3600, random.int64(1...9) * 3600]
        for (index, skew) in skews.enumerated() {
            let clock = DeviceClock(world: world, skew: skew)
            let home = try DataHome(directory: directory + "/device\(index)", clock: clock)
            let engine = try SyncEngine(tracker: home.tracker, folder: directory + "/Sync", device: SyncRecord.newID(using: &random),
                                        deviceName: "device \(index)", wallMilliseconds: clock.now() * 1000)
            devices.append(Device(index: index, home: home, engine: engine))
        }
    }

    deinit { SyncRecord.idSource = nil }

    func run(steps: Int) throws {
        for _ in 0..<steps {
            step += 1
            world.time += random.int64(1...900)
            let device = random.pick(devices)
            if random.chance(9) { try merge(device) } else { try change(device) }
            if step % 60 == 0 { try converge() }
        }
        try finish()
    }

    /// A scripted run's next call: one step on, a minute later.
    func advance() {
        step += 1
        world.time += 60
    }

    /// Every timer stopped (so that every session is in every store), then a full exchange, then the proof.
    func finish() throws {
        for device in devices where device.tracker.openSession != nil { try stopTimer(device) }
        try converge()
        try check()
    }

    func merge(_ device: Device) throws {
        step += 1
        try device.engine.merge(wallMilliseconds: device.tracker.clock.now() * 1000)
        oracle.merged(device: device.index, step: step)
    }

    private func converge() throws {
        for _ in 0..<2 { for device in devices { try merge(device) } }
    }

    // MARK: - A person's changes, recorded when acknowledged

    /// Runs a call; false when the tracker refused it (nothing was acknowledged, nothing is recorded).
    private func acknowledged(_ call: () throws -> Void) throws -> Bool {
        do { try call(); return true } catch let error as TrackerError {
            if case .storageFailure = error { throw error }
            return false
        }
    }

    private func change(_ device: Device) throws {
        let tracker = device.tracker
        let projects = tracker.projects()
        let categories = tracker.categories()
        let sessions = try tracker.store.allSessions().filter { !$0.isOpen }
        let me = device.index
        switch random.int(0...99) {
        case 0..<12:
            let name = random.pick(projectNames)
            let category = categories.isEmpty || random.chance(50) ? "" : random.pick(categories).name
            try createProject(device, name, category: category)
        case 12..<22:
            guard let project = projects.isEmpty ? nil : random.pick(projects) else { return }
            let name = random.chance(60) ? random.pick(projectNames) : "Renamed \(random.int(1...4))"
            try renameProject(device, project, to: name)
        case 22..<27:
            guard let project = projects.isEmpty ? nil : random.pick(projects) else { return }
            if random.chance(50) {
                let color = random.pick(["#ff0000", "#00ff00", "#0000ff"])
                guard try acknowledged({ try tracker.updateProject(id: project.id, changes: ProjectChanges(color: color)) }) else { return }
                oracle.write(.project, project.globalID, ["color": color], device: me, step: step)
            } else {
                let archived = random.chance(50)
                guard try acknowledged({ try tracker.updateProject(id: project.id, changes: ProjectChanges(archived: archived)) }) else { return }
                oracle.write(.project, project.globalID, ["archived": String(archived)], device: me, step: step)
            }
        case 27..<33:
            let name = random.pick(categoryNames)
            guard try acknowledged({ try tracker.addCategory(name) }) else { return }
            let category = try XCTUnwrap(tracker.categories().first { TextInput.nameKey($0.name) == TextInput.nameKey(name) })
            oracle.create(.category, category.globalID, ["name": category.name], device: me, step: step)
        case 33..<41:
            guard let project = projects.isEmpty ? nil : random.pick(projects) else { return }
            let category = categories.isEmpty || random.chance(20) ? nil : random.pick(categories)
            guard try acknowledged({ try tracker.updateProject(id: project.id, changes: ProjectChanges(category: category?.name ?? "")) }) else { return }
            guard try XCTUnwrap(tracker.project(id: project.id)).categoryID != project.categoryID else { return }  // see `unchanged`
            oracle.write(.project, project.globalID, ["category": category?.globalID ?? ""], device: me, step: step)
        case 41..<45:
            guard let category = categories.isEmpty ? nil : random.pick(categories) else { return }
            guard try acknowledged({ try tracker.deleteCategory(category.name) }) else { return }
            oracle.delete(.category, category.globalID)
        case 45..<57:
            guard let project = projects.isEmpty ? nil : random.pick(projects) else { return }
            let start = tracker.clock.now() - random.int64(2...60) * 86_400
            try addSession(device, project, start: start, duration: random.pick(["1h", "45m", "1:30"]))
        case 57..<67:
            guard let session = sessions.isEmpty ? nil : random.pick(sessions), let project = projects.isEmpty ? nil : random.pick(projects) else { return }
            try moveSession(device, session, to: project)
        case 67..<77:
            guard let session = sessions.isEmpty ? nil : random.pick(sessions) else { return }
            let note = "note \(random.int(1...99)) on \(me)"
            guard try acknowledged({ try tracker.setNote(session: session.id, note: note) }) else { return }
            oracle.write(.session, session.globalID, ["note": note], device: me, step: step)
        case 77..<82:
            guard let session = sessions.isEmpty ? nil : random.pick(sessions) else { return }
            let changes = random.chance(50) ? SessionChanges(start: session.start - random.int64(1...7200)) : SessionChanges(duration: random.pick(["20m", "2h"]))
            guard try acknowledged({ try tracker.editSession(id: session.id, changes: changes) }) else { return }
            oracle.write(.session, session.globalID, sessionTimes(try tracker.session(id: session.id)), device: me, step: step)
        case 82..<86:
            guard let session = sessions.isEmpty ? nil : random.pick(sessions) else { return }
            guard try acknowledged({ try tracker.deleteSession(id: session.id) }) else { return }
            oracle.delete(.session, session.globalID)
        case 86..<91:
            try plan(device)
        default:
            try timer(device)
        }
    }

    /// What a person plans and bills by: a project's rate or weekly target, the currency, the
    /// overall weekly target (they travel as every other field does, issue 30).
    private func plan(_ device: Device) throws {
        let tracker = device.tracker
        let me = device.index
        switch random.int(0...3) {
        case 0, 1:
            guard let project = tracker.projects().isEmpty ? nil : random.pick(tracker.projects()) else { return }
            let rate = random.chance(50)
            let changes = rate ? ProjectChanges(rate: random.pick(["", "80", "120.50"])) : ProjectChanges(weeklyTarget: random.pick([0, 3600, 36_000]))
            guard try acknowledged({ try tracker.updateProject(id: project.id, changes: changes) }) else { return }
            let after = try XCTUnwrap(tracker.project(id: project.id))
            guard after != project else { return }  // see `unchanged`
            let fields = planFields(after)
            oracle.write(.project, project.globalID, rate ? ["rate": fields["rate"]!] : ["weekly_target": fields["weekly_target"]!], device: me, step: step)
        case 2:
            let currency = random.pick(["", "EUR", "USD"])
            guard currency != tracker.planSettings.currency, try acknowledged({ try tracker.setCurrency(currency) }) else { return }
            oracle.write(.device, SyncClientWorld.settings, ["currency": currency], device: me, step: step)
        default:
            let target = random.pick([Int64(0), 72_000, 144_000])
            guard target != tracker.planSettings.weeklyTarget, try acknowledged({ try tracker.setWeeklyTarget(target) }) else { return }
            oracle.write(.device, SyncClientWorld.settings, ["weekly_target": String(target)], device: me, step: step)
        }
    }

    /// The oracle's name for the shared settings (one entity of its own, whatever sync writes them as).
    static let settings = "shared settings"

    func planFields(_ project: Project) -> [String: String] {
        ["rate": project.rateCents.map(String.init) ?? "none", "weekly_target": String(project.weeklyTarget)]
    }

    // `unchanged`: a call that leaves the row as it was is not a write. The tracker writes
    // nothing then (an edit equal to the row returns before its change), so nothing is published;
    // and the row may show a same-name representative where the records name another member (a
    // session made in a project that was folded since): counting the call as a write of the
    // representative would expect a value that no device ever wrote, once the group splits again
    // and the member's sessions follow it (rule 3).

    /// Creates a project; its global id, nil when the tracker refused (the name is taken here).
    @discardableResult
    func createProject(_ device: Device, _ name: String, category: String = "") throws -> String? {
        var id: ProjectID = 0
        guard try acknowledged({ id = try device.tracker.createProject(name: name, color: "", category: category) }) else { return nil }
        let project = try XCTUnwrap(device.tracker.project(id: id))
        oracle.create(.project, project.globalID, try projectFields(project, of: device.tracker), device: device.index, step: step)
        return project.globalID
    }

    /// Adds a session to a project.
    func addSession(_ device: Device, _ project: Project, start: Int64, duration: String) throws {
        var id: SessionID = 0
        guard try acknowledged({
            id = try device.tracker.addSession(project: project.id, start: start, duration: duration, note: "added on \(device.index)")
        }) else { return }
        let session = try device.tracker.session(id: id)
        var fields = sessionTimes(session)
        fields["project"] = project.globalID
        fields["note"] = session.note
        oracle.create(.session, session.globalID, fields, device: device.index, step: step)
    }

    /// Puts a session in a project.
    func moveSession(_ device: Device, _ session: WorkSession, to project: Project) throws {
        guard try acknowledged({ try device.tracker.editSession(id: session.id, changes: SessionChanges(projectID: project.id)) }) else { return }
        guard try device.tracker.session(id: session.id).projectID != session.projectID else { return }  // see `unchanged`
        oracle.write(.session, session.globalID, ["project": project.globalID], device: device.index, step: step)
    }

    /// Renames the project a person sees. Where that is a same-name group, the person names the
    /// whole group as this device shows it, and the device writes the name to every member it
    /// knows (rule 3): each member's name is written by this call, and a member that later leaves
    /// the group (renamed elsewhere by a device that never saw it) keeps it. Which ids are one
    /// group is, as in `check()`, the one thing taken from the merged state; the value is the call's.
    func renameProject(_ device: Device, _ project: Project, to name: String) throws {
        let replica = device.engine.replica
        let members = replica.representatives(.project).filter { $0.value == project.globalID && replica.entity(.project, $0.key)?.isLive == true }
        guard try acknowledged({ try device.tracker.updateProject(id: project.id, changes: ProjectChanges(name: name)) }) else { return }
        let renamed = try XCTUnwrap(device.tracker.project(id: project.id)).name
        guard renamed != project.name else { return }  // see `unchanged`
        for gid in Set(members.keys).union([project.globalID]).sorted() { oracle.write(.project, gid, ["name": renamed], device: device.index, step: step) }
    }

    /// The timer of this device: start or switch, pause, resume, stop.
    private func timer(_ device: Device) throws {
        let tracker = device.tracker
        guard let open = tracker.openSession else {
            guard let project = tracker.projects().isEmpty ? nil : random.pick(tracker.projects()) else { return }
            var id: SessionID = 0
            guard try acknowledged({ id = try tracker.startProject("#\(project.id)") }) else { return }
            let session = try tracker.session(id: id)
            var fields = sessionTimes(session)
            fields["project"] = project.globalID
            fields["note"] = ""
            oracle.create(.session, session.globalID, fields, device: device.index, step: step)
            return
        }
        switch random.int(0...2) {
        case 0: guard try acknowledged({ try tracker.pause() }) else { return }
        case 1: guard try acknowledged({ try tracker.resume() }) else { return }
        default: return try stopTimer(device)
        }
        oracle.write(.session, open.globalID, sessionTimes(try tracker.session(id: open.id)), device: device.index, step: step)
    }

    private func stopTimer(_ device: Device) throws {
        step += 1
        let open = try XCTUnwrap(device.tracker.openSession)
        _ = try device.tracker.stop()
        oracle.write(.session, open.globalID, sessionTimes(try device.tracker.session(id: open.id)), device: device.index, step: step)
    }

    // MARK: - Fields as a person sees them (plain strings, independent of sync's encoding)

    private func projectFields(_ project: Project, of tracker: Tracker) throws -> [String: String] {
        let category = try project.categoryID.flatMap { try tracker.store.category(id: $0)?.globalID } ?? ""
        return ["name": project.name, "color": project.color, "archived": String(project.archived), "category": category]
            .merging(planFields(project)) { a, _ in a }
    }

    func sessionTimes(_ session: WorkSession) -> [String: String] {
        ["start": String(session.start), "end": session.end.map(String.init) ?? "open",
         "segments": session.segments.map { "\($0.start)-\($0.end.map(String.init) ?? "open")" }.joined(separator: ",")]
    }
}
