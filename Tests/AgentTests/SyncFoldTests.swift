import DBusKit
import Foundation
import TestSupport
import XCTest

/// Issue 21's report, with two real agents (each on its own bus, with its own data and its own
/// copy of the sync folder, exchanged the way Syncthing does it: a temporary file, then a rename).
/// A and B converge; before either sees the other's, A makes `Fold-X` with a session S in it and
/// B makes `fold-x `; after an exchange they are one project. A moves S to `Target`; a second
/// later B changes only S's note. After the next exchange both hold A's move and B's note.
final class SyncFoldTests: XCTestCase {
    private var a: AgentHarness!
    private var b: AgentHarness!
    private var folders: TemporaryDirectory!
    /// Each side's own device id: the one folder its agent writes.
    private var own: [String: String] = [:]

    override func setUpWithError() throws {
        folders = TemporaryDirectory("time-sync-fold")
        a = try AgentHarness()
        b = try AgentHarness()
        try a.call("EnableSync", [.string(folders.file("a")), .string("laptop")])
        try b.call("EnableSync", [.string(folders.file("b")), .string("desktop")])
        for side in ["a", "b"] {
            own[side] = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folders.file(side + "/time-tracker")).first)
        }
        try exchange()
        XCTAssertTrue(try waitFor { try devices(a) == 2 && devices(b) == 2 }, "the two devices see each other")
    }

    override func tearDown() {
        a?.tearDown()
        b?.tearDown()
        folders?.remove()
    }

    private func devices(_ agent: AgentHarness) throws -> Int { try agent.property("Devices").arrayValue?.count ?? 0 }

    private func waitFor(_ condition: () throws -> Bool) throws -> Bool { try TestSupport.wait(seconds: 10, interval: 0.05, condition) }

    /// Copies each device's files into the other's folder: a temporary name first, then a rename.
    private func exchange() throws {
        let manager = FileManager.default
        for (from, to) in [("a", "b"), ("b", "a")] {
            let source = folders.file(from + "/time-tracker/" + own[from]!)
            let copy = folders.file(to + "/time-tracker/" + own[from]!)
            try manager.createDirectory(atPath: copy, withIntermediateDirectories: true)
            for name in try manager.contentsOfDirectory(atPath: source) where !name.hasPrefix(".") {
                let temporary = copy + "/.syncthing." + name + ".tmp"
                try? manager.removeItem(atPath: temporary)
                try manager.copyItem(atPath: source + "/" + name, toPath: temporary)
                XCTAssertEqual(rename(temporary, copy + "/" + name), 0)
            }
        }
    }

    private func session(_ agent: AgentHarness, note prefix: String) throws -> [String: DBusValue]? {
        try agent.sessions().first { ($0["note"]?.stringValue ?? "").hasPrefix(prefix) }
    }

    private func addSession(_ agent: AgentHarness, project: UInt64, note: String) throws {
        let start = unixNow() - 86400
        try agent.call("AddSession", [.uint64(project), .int64(start), .string("1h"), .string(note)])
    }

    func testAMoveOutOfAFoldedProjectSurvivesANoteEditWhenTheOtherCreationSurvives() throws {
        try scenario(firstCreation: "b")
    }

    func testAMoveOutOfAFoldedProjectSurvivesANoteEditWhenItsOwnCreationSurvives() throws {
        try scenario(firstCreation: "a")
    }

    private func scenario(firstCreation: String) throws {
        if firstCreation == "b" { try b.createProject("fold-x ") }
        Thread.sleep(forTimeInterval: 1.1)  // the earlier creation survives the fold: one second apart on the clocks
        let foldX = try a.createProject("Fold-X")
        try addSession(a, project: foldX, note: "S")
        if firstCreation == "a" {
            Thread.sleep(forTimeInterval: 1.1)
            try b.createProject("fold-x ")
        }
        let target = try a.createProject("Target")
        try exchange()
        XCTAssertTrue(try waitFor { try a.projects().count == 2 && b.projects().count == 2 && session(b, note: "S") != nil },
                      "Fold-X and fold-x are one, Target is on both, S reached B")
        let survivor = firstCreation == "b" ? "fold-x" : "Fold-X"
        for agent in [a!, b!] { XCTAssertEqual(try session(agent, note: "S")?["project"]?.stringValue, survivor) }

        let onA = try XCTUnwrap(try session(a, note: "S")?["id"]?.uint64Value)
        try a.call("EditSession", [.uint64(onA), .vardict(["project": .uint64(target)])])
        Thread.sleep(forTimeInterval: 1)
        let onB = try XCTUnwrap(try session(b, note: "S")?["id"]?.uint64Value)
        try b.call("SetNote", [.uint64(onB), .string("S, noted on the desktop")])
        try exchange()
        XCTAssertTrue(try waitFor {
            try [a!, b!].allSatisfy { try session($0, note: "S")?["note"]?.stringValue == "S, noted on the desktop" }
        }, "B's note reached A")
        for (name, agent) in [("A", a!), ("B", b!)] {
            XCTAssertEqual(try session(agent, note: "S")?["project"]?.stringValue, "Target", "A's move to Target holds on \(name)")
        }
        a.assertAlive()
        b.assertAlive()
    }
}
