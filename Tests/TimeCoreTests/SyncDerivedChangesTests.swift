import Glibc
import XCTest
@testable import TimeCore

/// Invariant 9 of the design: what a device derives from other devices' records (a same-name
/// fold, a session re-pointed to the surviving project, a project uncategorized because its
/// category went) is never published as if the person had just written it. Each test makes two
/// devices converge, lets each do one thing a person does, and checks that after the exchange
/// every acknowledged change of each holds on both.
final class SyncDerivedChangesTests: SyncTestCase {
    private struct Device {
        let home: DataHome
        let engine: SyncEngine
        var tracker: Tracker { home.tracker }
    }

    private func device(_ name: String) throws -> Device {
        let home = try home(name)
        let engine = try SyncEngine(tracker: home.tracker, folder: folder, device: SyncRecord.newID(), deviceName: name, wallMilliseconds: wall)
        return Device(home: home, engine: engine)
    }

    private func exchange(_ devices: Device...) throws {
        for device in devices { try device.engine.merge(wallMilliseconds: wall) }
        for device in devices { try device.engine.merge(wallMilliseconds: wall) }
    }

    private func session(_ device: Device, note prefix: String) throws -> WorkSession {
        try XCTUnwrap(try device.tracker.store.allSessions().first { $0.note.hasPrefix(prefix) }, "no session \"\(prefix)…\" on a device")
    }

    private func projectName(_ device: Device, of session: WorkSession) -> String? { device.tracker.project(id: session.projectID)?.name }

    /// The report of issue 21: A's move of a session out of a folded project is lost to B's later
    /// note edit, because B's record carried the project B had re-pointed the session to.
    func testAMoveOutOfAFoldedProjectSurvivesANoteEditElsewhereWhenTheOtherCreationSurvives() throws {
        try moveOutOfAFoldedProject(firstCreation: "b")
    }

    /// The mirror image: the creation of the device that moves the session survives the fold.
    func testAMoveOutOfAFoldedProjectSurvivesANoteEditElsewhereWhenItsOwnCreationSurvives() throws {
        try moveOutOfAFoldedProject(firstCreation: "a")
    }

    private func moveOutOfAFoldedProject(firstCreation: String) throws {
        let a = try device("a")
        let b = try device("b")
        try exchange(a, b)
        // Before either sees the other's: both create the same name (the earlier creation survives).
        if firstCreation == "b" { try b.tracker.createProject(name: "fold-x ", color: "", category: "") }
        clock.advance(1)
        let foldA = try a.tracker.createProject(name: "Fold-X", color: "", category: "")
        _ = try a.tracker.addSession(project: foldA, start: utc(2026, 5, 30, 9), duration: "1h", note: "S")
        clock.advance(1)
        if firstCreation == "a" { try b.tracker.createProject(name: "fold-x ", color: "", category: "") }
        let target = try a.tracker.createProject(name: "Target", color: "", category: "")
        try exchange(a, b)
        XCTAssertEqual(a.tracker.projects().count, 2, "Fold-X and fold-x are one project")
        XCTAssertEqual(projectName(a, of: try session(a, note: "S")), projectName(b, of: try session(b, note: "S")))

        // A moves S to Target; a second later B changes only its note.
        clock.advance(10)
        try a.tracker.editSession(id: try session(a, note: "S").id, changes: SessionChanges(projectID: target))
        clock.advance(1)
        try b.tracker.setNote(session: try session(b, note: "S").id, note: "S, noted on b")
        try exchange(a, b)

        for (name, device) in [("a", a), ("b", b)] {
            let s = try session(device, note: "S")
            XCTAssertEqual(s.note, "S, noted on b", "B's note on \(name)")
            XCTAssertEqual(projectName(device, of: s), "Target", "A's move to Target on \(name)")
        }
    }

    /// A category deleted on one device uncategorizes its projects there; that is derived, not a
    /// write of each project's category: another device's concurrent recategorization holds.
    func testACategoryDeleteDoesNotOverwriteAConcurrentRecategorization() throws {
        let a = try device("a")
        let b = try device("b")
        try a.tracker.addCategory("Old")
        try a.tracker.addCategory("New")
        try a.tracker.createProject(name: "Blog", color: "", category: "Old")
        try exchange(a, b)
        // B moves Blog to New; later, not having seen it, A deletes Old (Blog's category there).
        clock.advance(10)
        let blog = try XCTUnwrap(b.tracker.projects().first { $0.name == "Blog" })
        try b.tracker.updateProject(id: blog.id, changes: ProjectChanges(category: "New"))
        clock.advance(10)
        try a.tracker.deleteCategory("Old")
        try exchange(a, b)
        for device in [a, b] {
            let project = try XCTUnwrap(device.tracker.projects().first { $0.name == "Blog" })
            XCTAssertEqual(device.tracker.categoryName(of: project), "New")
            XCTAssertEqual(device.tracker.categories().map(\.name), ["New"])
        }
    }

    /// A fold of two same-name categories moves the alias's projects on each device by itself:
    /// a later edit of such a project elsewhere carries only what that edit changed.
    func testAFoldedCategoryIsNotPublishedWithAProjectsLaterEdit() throws {
        let a = try device("a")
        let b = try device("b")
        try a.tracker.addCategory("Work")
        clock.advance(1)
        try b.tracker.addCategory("work")
        try b.tracker.createProject(name: "Blog", color: "#112233", category: "work")
        try a.tracker.addCategory("Home")
        try exchange(a, b)
        // A moves Blog to Home; later B changes only its color.
        clock.advance(10)
        let blogA = try XCTUnwrap(a.tracker.projects().first { $0.name == "Blog" })
        try a.tracker.updateProject(id: blogA.id, changes: ProjectChanges(category: "Home"))
        clock.advance(1)
        let blogB = try XCTUnwrap(b.tracker.projects().first { $0.name == "Blog" })
        try b.tracker.updateProject(id: blogB.id, changes: ProjectChanges(color: "#445566"))
        try exchange(a, b)
        for device in [a, b] {
            let project = try XCTUnwrap(device.tracker.projects().first { $0.name == "Blog" })
            XCTAssertEqual(device.tracker.categoryName(of: project), "Home")
            XCTAssertEqual(project.color, "#445566")
        }
    }

    /// A same-name group that splits again (one member renamed away by a device that never saw
    /// the other) takes its sessions apart as their records say, on every device: the device that
    /// had folded the rows places them again, and its note edit of such a session in between did
    /// not publish the project it had re-pointed the session to.
    func testASplitGroupsSessionsFollowTheirOwnProjectOnEveryDevice() throws {
        for editedBetween in [false, true] {
            tearDown()
            try setUpWithError()
            let a = try device("a")
            let b = try device("b")
            try exchange(a, b)
            try b.tracker.createProject(name: "fold-x", color: "", category: "")
            clock.advance(1)
            let foldA = try a.tracker.createProject(name: "Fold-X", color: "", category: "")
            _ = try a.tracker.addSession(project: foldA, start: utc(2026, 5, 30, 9), duration: "1h", note: "S")
            try b.engine.merge(wallMilliseconds: wall)  // b folds A's Fold-X into its fold-x
            XCTAssertEqual(projectName(b, of: try session(b, note: "S")), "fold-x")
            clock.advance(10)
            if editedBetween { try b.tracker.setNote(session: try session(b, note: "S").id, note: "S, noted on b") }
            clock.advance(1)
            try a.tracker.updateProject(id: foldA, changes: ProjectChanges(name: "Split"))  // a knows only its own
            try exchange(a, b)
            for (name, device) in [("a", a), ("b", b)] {
                let s = try session(device, note: "S")
                XCTAssertEqual(projectName(device, of: s), "Split", "S follows its own project on \(name) (edited between: \(editedBetween))")
                XCTAssertEqual(s.note, editedBetween ? "S, noted on b" : "S")
            }
            XCTAssertEqual(Set(a.tracker.projects().map(\.name)), ["Split", "fold-x"])
        }
    }

    /// A category deleted long ago does not come back for its projects when a category of the
    /// same name is made later: that is a new category (rule 3 only joins what lived at once).
    func testACategoryMadeAgainAfterADeleteDoesNotTakeTheOldOnesProjects() throws {
        let a = try device("a")
        let b = try device("b")
        try a.tracker.addCategory("Internal")
        try a.tracker.createProject(name: "Blog", color: "", category: "Internal")
        try exchange(a, b)
        clock.advance(10)
        try a.tracker.deleteCategory("Internal")
        try exchange(a, b)
        clock.advance(10)
        try b.tracker.addCategory("internal")
        try b.tracker.createProject(name: "Ops", color: "", category: "internal")
        try exchange(a, b)
        for device in [a, b] {
            let categoryOf = Dictionary(device.tracker.projects().map { ($0.name, device.tracker.categoryName(of: $0)) }, uniquingKeysWith: { x, _ in x })
            XCTAssertEqual(categoryOf, ["Blog": "", "Ops": "internal"])
        }
    }

    /// Undo of a delete that other devices have merged: a delete wins for good (rule 2), so the
    /// session comes back as a new one, on every device; redo deletes it again, and undo once more
    /// brings it back. An undo whose step another device's edit touched since is refused whole.
    func testUndoingADeleteBringsTheSessionBackEverywhereAndRedoDeletesItAgain() throws {
        let a = try device("a")
        let b = try device("b")
        let project = try a.tracker.createProject(name: "Client A", color: "", category: "")
        _ = try a.tracker.addSession(project: project, start: utc(2026, 5, 30, 9), duration: "1h", note: "S")
        try exchange(a, b)
        clock.advance(10)
        try a.tracker.deleteSession(id: try session(a, note: "S").id)
        try exchange(a, b)
        XCTAssertEqual(try b.tracker.store.allSessions().count, 0)

        clock.advance(10)
        XCTAssertEqual(try a.tracker.undo(), try XCTUnwrap(a.tracker.history(count: 1).first).description)
        // The session came back under a new global id: the snapshot holds it as the store does.
        let newest = try XCTUnwrap(a.home.keeper?.entries.last)
        XCTAssertEqual(try a.home.keeper?.state(of: newest).differences(from: DataState(store: a.tracker.store)), [])
        try exchange(a, b)
        for device in [a, b] {
            let back = try session(device, note: "S")
            XCTAssertEqual([back.start, back.end], [utc(2026, 5, 30, 9), utc(2026, 5, 30, 10)])
        }
        XCTAssertEqual(try session(a, note: "S").globalID, try session(b, note: "S").globalID, "one session, a new one")

        clock.advance(10)
        try a.tracker.redo()
        try exchange(a, b)
        XCTAssertEqual(try a.tracker.store.allSessions().count + b.tracker.store.allSessions().count, 0, "deleted again")
        clock.advance(10)
        try a.tracker.undo()
        try exchange(a, b)
        XCTAssertEqual(try b.tracker.store.allSessions().map(\.note), ["S"], "back again")

        // An edit made elsewhere since the step: undoing it would overwrite that edit, so it is refused.
        clock.advance(10)
        try a.tracker.setNote(session: try session(a, note: "S").id, note: "S, noted on a")
        try exchange(a, b)
        clock.advance(10)
        try b.tracker.setNote(session: try session(b, note: "S").id, note: "S, noted on b")
        try exchange(a, b)
        XCTAssertTrue(assertTrackerError("NothingToUndo", try a.tracker.undo()).contains("was changed since"))
        XCTAssertEqual(try session(a, note: "S").note, "S, noted on b")
    }

    /// The same undo while the merged state is rebuilt from the folder (its file was lost):
    /// nothing is published meanwhile, so the session is inserted again under its old global id.
    /// The start's publish after the rebuild, one change of the gate (SyncEngine.finishStart),
    /// gives it a new one; that change's snapshot holds the new id, as the store does
    /// (SyncPublisher.resurrect marks the session, whose day the keeper writes again), and the
    /// other device gets the session. (Published outside the gate, it kept the deleted id: the
    /// other device never showed it.)
    func testADeleteUndoneWhileTheMergedStateIsRebuiltComesBackUnderANewIDInTheSnapshotToo() throws {
        let deviceID = SyncRecord.newID()
        var a: DataHome? = try home("a")
        var engine: SyncEngine? = try SyncEngine(tracker: a!.tracker, folder: folder, device: deviceID, deviceName: "a", wallMilliseconds: wall)
        let project = try a!.tracker.createProject(name: "Client A", color: "", category: "")
        _ = try a!.tracker.addSession(project: project, start: utc(2026, 5, 30, 9), duration: "1h", note: "S")
        try engine!.merge(wallMilliseconds: wall)
        let oldID = try XCTUnwrap(a!.tracker.store.allSessions().first).globalID
        clock.advance(10)
        try a!.tracker.deleteSession(id: try XCTUnwrap(a!.tracker.store.allSessions().first).id)
        try engine!.merge(wallMilliseconds: wall)
        try engine!.stop()
        (engine, a) = (nil, nil)
        for suffix in ["", "-wal", "-shm"] { Files.remove(directory + "/a/time-sync.sqlite" + suffix) }

        a = try home("a")
        engine = try SyncEngine(tracker: a!.tracker, folder: folder, device: deviceID, deviceName: "a", wallMilliseconds: wall,
                                deferringWork: true, batchLimit: 1)
        XCTAssertNotNil(engine!.rebuilding, "the merged state's file is gone: it is rebuilt from the folder")
        clock.advance(10)
        try a!.tracker.undo()
        XCTAssertEqual(try a!.tracker.store.allSessions().map(\.globalID), [oldID], "not published while the merged state is rebuilt")
        while try engine!.step(wallMilliseconds: wall) {}
        let back = try XCTUnwrap(a!.tracker.store.allSessions().first)
        XCTAssertNotEqual(back.globalID, oldID, "a delete wins for good: the session comes back as a new one")
        let newest = try XCTUnwrap(a!.keeper?.entries.last)
        XCTAssertEqual(try a!.keeper?.state(of: newest).differences(from: DataState(store: a!.tracker.store)), [])
        try engine!.flushLog()
        let b = try device("b")
        try b.engine.merge(wallMilliseconds: wall)
        XCTAssertEqual(try b.tracker.store.allSessions().map(\.globalID), [back.globalID], "the other device has the session back")
        XCTAssertEqual(try b.tracker.store.allSessions().map(\.note), ["S"])
        try engine!.stop()
    }

    /// The start publishes what was noted in a change of the gate; when that change is refused
    /// (editing is locked), sync does not start, and the tracker is left without the gate of an
    /// engine that is gone: its next change is recorded as without sync, the note still waiting.
    func testAStartWhosePublishIsRefusedLeavesTheTrackerAsItWas() throws {
        let deviceID = SyncRecord.newID()
        var a: DataHome? = try home("a")
        var engine: SyncEngine? = try SyncEngine(tracker: a!.tracker, folder: folder, device: deviceID, deviceName: "a", wallMilliseconds: wall)
        let project = try a!.tracker.createProject(name: "Client A", color: "", category: "")
        try engine!.stop()
        (engine, a) = (nil, nil)
        a = try home("a")
        let tracker = a!.tracker
        // Noted and not published (as after a crash before its change's records were stamped).
        try tracker.store.database.run("INSERT INTO sync_dirty(kind, gid, field) VALUES('project', ?, 'name')",
                                       .text(try XCTUnwrap(tracker.project(id: project)).globalID))
        tracker.readOnlyReason = "locked for the test"
        XCTAssertThrowsError(try SyncEngine(tracker: tracker, folder: folder, device: deviceID, deviceName: "a", wallMilliseconds: wall)) {
            XCTAssertEqual(($0 as? TrackerError)?.name, "ReadOnly")
        }
        XCTAssertFalse(tracker.recorder is SyncGate, "no gate is left of the engine that did not start")
        XCTAssertTrue(tracker.recorder === a!.keeper)
        tracker.readOnlyReason = nil
        try tracker.addCategory("After")
        let newest = try XCTUnwrap(a!.keeper?.entries.last)
        XCTAssertEqual(try a!.keeper?.state(of: newest).differences(from: DataState(store: tracker.store)), [])
        XCTAssertEqual(try tracker.store.database.queryFirst("SELECT count(*) FROM sync_dirty WHERE kind = 'project'") { $0.int(0) }, 1,
                       "the note waits for the next start")
    }
}
