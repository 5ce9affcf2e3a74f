import XCTest
@testable import TimeCore

/// The harness of `SyncMergeRandomizedTests`' second world, held to what its failures need: one
/// seed is one run (so that a failure can be replayed), and its oracle counts every write a
/// person's call makes.
final class SyncClientWorldTests: XCTestCase {
    override func setUp() {
        setenv("TZ", "UTC", 1)
        tzset()
    }

    /// Two runs of one seed make the same calls and end with the same data, global ids included.
    /// (With global ids from the system's random source, the rows a merge added were numbered in
    /// a different order each run, the person picked other projects and sessions from the same
    /// draws, and `TIME_SYNC_SEED` replayed a different run: seed 226408327 failed one run in three.)
    /// Both runs share this process's hash seed; that no order of a hashed collection changes the
    /// run shows across processes (`SWIFT_DETERMINISTIC_HASHING=1` against the default).
    func testOneSeedIsOneRun() throws {
        var runs: [[String]] = []
        for _ in 0..<2 {
            let directory = try makeTemporaryDirectory()
            defer { Files.remove(directory) }
            let world = try SyncClientWorld(seed: 226_408_327, directory: directory)
            try world.run(steps: 120)
            var lines: [String] = []
            for (entity, fields) in world.oracle.writes {
                for (field, writes) in fields {
                    lines += writes.map { "call \($0.step) on \($0.device): \(entity) \(field) = \($0.value)" }
                }
            }
            for device in world.devices { lines += try world.view(device).map { "device \(device.index) shows \($0)" } }
            runs.append(lines.sorted())
        }
        let first = zip(runs[0], runs[1]).first { $0 != $1 }
        XCTAssertTrue(first == nil, "one seed made two runs: \(first.map { "\($0.0) | \($0.1)" } ?? "")")
        XCTAssertEqual(runs[0].count, runs[1].count, "one seed made two runs")
    }

    /// A rename of a project shown as one of a same-name group is a write of every member's name
    /// (rule 3). Here device 1 renames a group it knows as three creations; device 2, which knows
    /// only two of them, renames those two later, so device 1's own creation leaves the group with
    /// the name device 1's person gave it. The oracle once counted the rename for the
    /// representative only and expected that creation's first name: a false failure, which the
    /// randomized run met with seed 226408327 whenever the ids made it rename that way.
    func testARenameOfAGroupNamesEveryMemberTheDeviceKnows() throws {
        let directory = try makeTemporaryDirectory()
        defer { Files.remove(directory) }
        let world = try SyncClientWorld(seed: 1, directory: directory, skews: [0, 0, 0])
        let (first, second, third) = (world.devices[0], world.devices[1], world.devices[2])
        world.advance()
        let representative = try XCTUnwrap(world.createProject(first, "Fold-X"))
        world.advance()
        _ = try XCTUnwrap(world.createProject(third, "fold-x "))
        try world.merge(third)  // the third device knows two creations: one project
        world.advance()
        let own = try XCTUnwrap(world.createProject(second, "FOLD-X"))
        try world.merge(second)  // the second knows all three: one project
        world.advance()
        try world.renameProject(second, try shown(representative, on: second), to: "Renamed 1")
        world.advance()
        try world.renameProject(third, try shown(representative, on: third), to: "Renamed 2")
        // Sessions on each side, so that what the proof reads is a history; the second device
        // first merges the third's rename, which splits its own creation off.
        try world.merge(second)
        for (index, device) in world.devices.enumerated() {
            world.advance()
            let project = try shown(index == 1 ? own : representative, on: device)
            try world.addSession(device, project, start: device.tracker.clock.now() - Int64(index + 2) * 86_400, duration: "1h")
            try world.addSession(device, project, start: device.tracker.clock.now() - Int64(index + 5) * 86_400, duration: "45m")
        }
        try world.finish()

        // The second device's creation left the group with the name its person gave the group.
        let store = world.devices[0].tracker.store
        XCTAssertEqual(try store.projects().first { $0.globalID == own }?.name, "Renamed 1")
        XCTAssertEqual(try store.projects().first { $0.globalID == representative }?.name, "Renamed 2")
    }

    /// A call that leaves the row as it was writes nothing. Here device 0 sees a session made on
    /// device 1 in device 1's creation, folded into device 0's same-name project, and puts it in
    /// the project it is shown in: the tracker changes nothing and nothing is published. Device 1,
    /// which never saw the fold, renames its creation, the group splits, and the session follows
    /// its own project (rule 3), as device 1's records say. The oracle once counted the call as a
    /// write of device 0's project and expected the session there: a false failure that 600
    /// seeds met 3 times (534370330 and 478013366 with a session's project, 910184279 with a
    /// project's category).
    func testACallThatChangesNothingWritesNothing() throws {
        let directory = try makeTemporaryDirectory()
        defer { Files.remove(directory) }
        let world = try SyncClientWorld(seed: 1, directory: directory, skews: [0, 0, 0])
        let (first, second) = (world.devices[0], world.devices[1])
        world.advance()
        let representative = try XCTUnwrap(world.createProject(first, "Fold-X"))
        world.advance()
        let own = try XCTUnwrap(world.createProject(second, "fold-x "))
        for days: Int64 in [2, 3, 4, 5] {
            world.advance()
            try world.addSession(second, try shown(own, on: second), start: second.tracker.clock.now() - days * 86_400, duration: "1h")
        }
        try world.merge(first)  // device 0 shows the sessions in its own project
        world.advance()
        let session = try XCTUnwrap(first.tracker.store.allSessions().first)
        let before = session.projectID
        try world.moveSession(first, session, to: try shown(representative, on: first))
        XCTAssertEqual(try first.tracker.session(id: session.id).projectID, before, "the call changed nothing")
        world.advance()
        try world.renameProject(second, try shown(own, on: second), to: "Renamed 1")
        try world.finish()

        let store = world.devices[0].tracker.store
        let project = try XCTUnwrap(store.projects().first { $0.globalID == own })
        XCTAssertEqual(project.name, "Renamed 1")
        XCTAssertEqual(try store.allSessions().first { $0.globalID == session.globalID }?.projectID, project.id)
    }

    private func shown(_ gid: String, on device: SyncClientWorld.Device) throws -> Project {
        try XCTUnwrap(device.tracker.projects().first { $0.globalID == gid }, "project \(gid) is not shown")
    }
}
