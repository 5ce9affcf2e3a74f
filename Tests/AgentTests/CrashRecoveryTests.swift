import DBusKit
import Foundation
import TestSupport
import XCTest

/// kill -9 of the writer at random moments: whatever was acknowledged is there after a restart.
final class CrashRecoveryTests: XCTestCase {
    /// One client issues changes as fast as it can and records each acknowledgement; the agent is
    /// killed with SIGKILL at a random moment, restarted, and checked. Repeated over a few hundred changes.
    func testEveryAcknowledgedChangeSurvivesKillNine() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        let data = folder.file("data")
        var generator = SystemRandomNumberGenerator()

        var acknowledgedProjects: Set<UInt64> = []
        var acknowledgedSessions: Set<UInt64> = []
        var acknowledgedNotes: [UInt64: String] = [:]
        var changes = 0
        var kills = 0
        let now = Int64(Date().timeIntervalSince1970)

        for round in 0...12 {
            let agent = try AgentProcess(bus: bus, dataDirectory: data)
            let client = try bus.connect()
            // What the restarted agent must show: every change acknowledged before.
            let projects = try client.agent("ListProjects").first?.arrayValue ?? []
            let projectIDs = Set(projects.compactMap { $0.variantDictionary?["id"]?.uint64Value })
            XCTAssertTrue(acknowledgedProjects.isSubset(of: projectIDs), "round \(round): an acknowledged project was lost")
            let sessions = try client.agent("ListSessions", [.uint64(0), .int64(0), .int64(now + 86400)]).first?.arrayValue ?? []
            let byID = Dictionary(sessions.compactMap { entry -> (UInt64, [String: DBusValue])? in
                guard let fields = entry.variantDictionary, let id = fields["id"]?.uint64Value else { return nil }
                return (id, fields)
            }, uniquingKeysWith: { a, _ in a })
            XCTAssertTrue(acknowledgedSessions.isSubset(of: Set(byID.keys)), "round \(round): an acknowledged session was lost")
            for (id, note) in acknowledgedNotes {
                XCTAssertEqual(byID[id]?["note"]?.stringValue, note, "round \(round): the acknowledged note of session \(id)")
            }
            XCTAssertEqual(try client.agentProperty("StorageState").stringValue, "ok", agent.logText)
            if round == 12 {
                // The last restart was only for checking.
                client.close()
                agent.terminate()
                break
            }

            // A writer in this process, killed from here after a random delay.
            let deadline = Date().addingTimeInterval(Double.random(in: 0.05...0.4, using: &generator))
            var projectForSessions = acknowledgedProjects.first
            // At least ten changes a round, however slow a loaded machine makes each one: the
            // count that makes the test meaningful must not depend on speed.
            let roundStart = changes
            while Date() < deadline || changes - roundStart < 10 {
                do {
                    switch changes % 4 {
                    case 0:
                        if let id = try client.agent("CreateProject", [.string("P\(round)-\(changes)"), .string(""), .string("")]).first?.uint64Value {
                            acknowledgedProjects.insert(id)
                            projectForSessions = projectForSessions ?? id
                        }
                    case 1, 2:
                        guard let project = projectForSessions else { break }
                        let start = now - 86400 * 400 + Int64(changes) * 600
                        if let id = try client.agent("AddSession", [.uint64(project), .int64(start), .string("5m"), .string("")]).first?.uint64Value {
                            acknowledgedSessions.insert(id)
                        }
                    default:
                        guard let id = acknowledgedSessions.randomElement(using: &generator) else { break }
                        let note = "note \(changes)"
                        try client.agent("SetNote", [.uint64(id), .string(note)])
                        acknowledgedNotes[id] = note
                    }
                    changes += 1
                } catch {
                    XCTFail("round \(round): a change failed before the kill: \(error)")
                }
            }
            client.close()
            agent.kill9()
            kills += 1
        }
        XCTAssertGreaterThan(changes, 100, "enough changes were made to mean something")
        print("crash recovery: \(changes) acknowledged changes, \(kills) kill -9, lost 0")
    }

    /// kill -9 while the timer runs: after the restart it still runs and the time goes on.
    func testARunningTimerSurvivesKillNine() throws {
        let bus = try PrivateBus()
        defer { bus.stop() }
        let folder = TemporaryDirectory()
        defer { folder.remove() }
        var agent = try AgentProcess(bus: bus, dataDirectory: folder.file("data"))
        var client = try bus.connect()
        try client.agent("CreateProject", [.string("Writing"), .string(""), .string("")])
        let session = try client.agent("StartProject", [.string("Writing")]).first?.uint64Value
        let started = try client.agentProperty("RunningSince").int64Value ?? 0
        sleep(2)
        client.close()
        agent.kill9()
        agent = try AgentProcess(bus: bus, dataDirectory: folder.file("data"))
        defer { agent.terminate() }
        client = try bus.connect()
        defer { client.close() }
        XCTAssertEqual(try client.agentProperty("State").stringValue, "running")
        XCTAssertEqual(try client.agentProperty("SessionId").uint64Value, session)
        XCTAssertEqual(try client.agentProperty("RunningSince").int64Value, started)
        let status = try XCTUnwrap(client.agent("GetStatus").first?.variantDictionary)
        XCTAssertGreaterThanOrEqual(status["elapsed"]?.uint64Value ?? 0, 2, "the time went on counting across the crash")
    }
}
