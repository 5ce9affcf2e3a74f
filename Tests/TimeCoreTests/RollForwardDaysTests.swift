import Glibc
import XCTest
@testable import TimeCore

/// Rolling forward only the days the lost commits touched (SnapshotKeeper+RollForwardDays): the
/// store comes back exactly as the newest snapshot holds it, for changes of every kind.
final class RollForwardDaysTests: XCTestCase {
    private var folder: Folder!
    private let clock = SafetyClock()

    override func setUp() { folder = Folder() }
    override func tearDown() { folder.remove() }

    private func open() throws -> DataHome { try DataHome(directory: folder.path, clock: clock) }

    func testTheDaysTheLostCommitsTouchedAreRolledForward() throws {
        do {
            let home = try open()
            try home.tracker.addCategory("Work")
            try home.tracker.addCategory("Leisure")
            try home.tracker.createProject(name: "Writing", color: "", category: "Work")
            try home.tracker.createProject(name: "Reading", color: "", category: "Leisure")
            for day in stride(from: 2, to: 900, by: 11) {
                try home.tracker.addSession(project: day % 2 == 0 ? 1 : 2, start: clock.time - Int64(day) * 86400, duration: "45m", note: "day \(day)")
            }
            try home.tracker.startProject("Writing")
        }
        let before = try Files.read(folder.store)
        let expected: DataState
        do {
            let home = try open()
            clock.time += 60
            // Changes of every kind the power cut then takes: an edit and a delete years back, a
            // new session on an empty day, a rename, a removed category, the timer.
            try home.tracker.setNote(session: 40, note: "edited two years later")
            try home.tracker.deleteSession(id: 70)
            try home.tracker.addSession(project: 2, start: clock.time - 1000 * 86400, duration: "1h", note: "new, long ago")
            try home.tracker.updateProject(id: 2, changes: ProjectChanges(name: "Studying"))
            try home.tracker.deleteCategory("Leisure")
            clock.time += 60
            try home.tracker.startProject("Studying")
            expected = try DataState(store: home.tracker.store)
        }
        try Files.writeDurably(before, to: folder.store)
        for suffix in ["-wal", "-shm"] { Files.remove(folder.store + suffix) }

        let home = try open()
        XCTAssertEqual(home.status.state, .ok)
        XCTAssertTrue(home.warnings.contains { $0.contains("the days they touched were rolled forward") }, "\(home.warnings)")
        XCTAssertEqual(try DataState(store: home.tracker.store).differences(from: expected), [])
        XCTAssertEqual(try home.tracker.history(count: 10), [], "the undo history is cleared")
        try home.tracker.pause()
        let newest = try XCTUnwrap(home.keeper?.entries.last)
        XCTAssertEqual(try home.keeper!.state(of: newest), try DataState(store: home.tracker.store))
    }
}
