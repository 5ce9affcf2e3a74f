import DBusKit
import Foundation
import TestSupport
import XCTest

/// What fifty clients were told, collected across their threads.
private final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var createdProjects: [String: UInt64] = [:]
    private(set) var addedSessions: [UInt64: String] = [:]
    private(set) var returnedSessions: Set<UInt64> = []
    private(set) var unexpected: [String] = []
    private(set) var calls = 0
    private(set) var refusedAsIdle = 0

    func record(_ body: (Tally) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body(self)
    }

    func created(_ name: String, _ id: UInt64) { createdProjects[name] = id }
    func added(_ id: UInt64, note: String) { addedSessions[id] = note }
    func returned(_ id: UInt64) { returnedSessions.insert(id) }
    func failed(_ what: String) { unexpected.append(what) }
    func called() { calls += 1 }
    func idle() { refusedAsIdle += 1 }
}

/// Fifty clients at once, each on its own connection and thread, a few thousand mixed calls:
/// every acknowledged change is there afterwards, the timer's invariant holds, and all of it
/// survives kill -9.
final class ConcurrencyTests: XCTestCase {
    static let clients = 50
    static let callsPerClient = 60
    static let baseProjects = ["Alpha", "Beta", "Gamma"]

    func testFiftyConcurrentClientsLeaveAConsistentDurableState() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        var baseIDs: [UInt64] = []
        for name in Self.baseProjects { baseIDs.append(try agent.createProject(name)) }
        try agent.start("Alpha")
        let address = agent.bus.address
        let tally = Tally()
        let done = DispatchSemaphore(value: 0)
        let base = unixNow() - 400 * 86_400
        let projectForSessions = baseIDs[1]

        let started = Date()
        for client in 0..<Self.clients {
            let thread = Thread {
                defer { done.signal() }
                let connection: BusConnection
                do {
                    connection = try BusConnection(address: address)
                } catch {
                    tally.record { $0.failed("client \(client) could not connect: \(error)") }
                    return
                }
                defer { connection.close() }
                for step in 0..<Self.callsPerClient {
                    let label = "c\(client)-\(step)"
                    do {
                        switch (client + step) % 10 {
                        case 0:
                            let id = try connection.agent("StartProject", [.string(Self.baseProjects[(client + step) % 3])], timeout: 60_000)
                            if let id = id.first?.uint64Value { tally.record { $0.returned(id) } }
                        case 1: try connection.agent("Pause", timeout: 60_000)
                        case 2: try connection.agent("Resume", timeout: 60_000)
                        case 3:
                            let state = try connection.agent("Toggle", timeout: 60_000).first?.stringValue ?? ""
                            if !["running", "paused"].contains(state) { tally.record { $0.failed("\(label): Toggle answered \(state)") } }
                        case 4: try connection.agent("AddNote", [.string(label)], timeout: 60_000)
                        case 5:
                            let status = try connection.agent("GetStatus", timeout: 60_000).first?.variantDictionary ?? [:]
                            if !["idle", "running", "paused"].contains(status["state"]?.stringValue ?? "") {
                                tally.record { $0.failed("\(label): GetStatus answered \(status)") }
                            }
                        case 6:
                            let name = "Project \(label)"
                            let id = try connection.agent("CreateProject", [.string(name), .string(""), .string("")], timeout: 60_000)
                            if let id = id.first?.uint64Value { tally.record { $0.created(name, id) } }
                        case 7:
                            let start = base + Int64(client * Self.callsPerClient + step) * 600
                            let id = try connection.agent("AddSession", [.uint64(projectForSessions), .int64(start), .string("1m"), .string(label)],
                                                          timeout: 60_000)
                            if let id = id.first?.uint64Value { tally.record { $0.added(id, note: label) } }
                        case 8:
                            let id = try connection.agent("Stop", timeout: 60_000)
                            if let id = id.first?.uint64Value { tally.record { $0.returned(id) } }
                        default:
                            _ = try connection.agentProperty("State")
                        }
                        tally.record { $0.called() }
                    } catch let error as BusError where error.name == ContractError.noCurrentSession {
                        tally.record { $0.called(); $0.idle() }
                    } catch {
                        tally.record { $0.failed("\(label): \(error)") }
                    }
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        for _ in 0..<Self.clients {
            XCTAssertEqual(done.wait(timeout: .now() + 180), .success, "a client did not finish")
        }
        let seconds = Date().timeIntervalSince(started)
        print("ConcurrencyTests: \(tally.calls) calls from \(Self.clients) clients in \(String(format: "%.1f", seconds)) s, \(tally.refusedAsIdle) refused as idle")

        XCTAssertEqual(tally.unexpected, [], "every call was answered, and only with NoCurrentSession when idle")
        XCTAssertEqual(tally.calls, Self.clients * Self.callsPerClient)
        XCTAssertEqual(tally.createdProjects.count, Self.clients * Self.callsPerClient / 10)
        XCTAssertEqual(tally.addedSessions.count, Self.clients * Self.callsPerClient / 10)
        agent.assertAlive("after fifty concurrent clients")

        let expectedProjects = Dictionary(uniqueKeysWithValues: zip(Self.baseProjects, baseIDs)).merging(tally.createdProjects) { $1 }
        func check(_ when: String) throws -> [String] {
            let projects = try agent.projects()
            XCTAssertEqual(projects.count, expectedProjects.count, "\(when): exactly the created projects")
            XCTAssertEqual(Dictionary(uniqueKeysWithValues: projects.map { ($0["name"]?.stringValue ?? "", $0["id"]?.uint64Value ?? 0) }),
                           expectedProjects, "\(when): every acknowledged CreateProject, with its id")
            let sessions = try agent.sessions()
            let byID = Dictionary(uniqueKeysWithValues: sessions.map { ($0["id"]?.uint64Value ?? 0, $0) })
            XCTAssertEqual(byID.count, sessions.count, "\(when): session ids are unique")
            for (id, note) in tally.addedSessions {
                XCTAssertEqual(byID[id]?["note"], .string(note), "\(when): AddSession \(id) (\(note)) is there")
                XCTAssertEqual(byID[id]?["active"], .uint64(60), "\(when): AddSession \(id) is one minute")
            }
            let missing = tally.returnedSessions.filter { byID[$0] == nil }
            XCTAssertEqual(missing, [], "\(when): every session id a client was given exists")
            let open = sessions.filter { $0["end"] == .int64(0) }
            XCTAssertLessThanOrEqual(open.count, 1, "\(when): at most one open session")
            let state = try agent.property("State").stringValue ?? ""
            if state == "idle" {
                XCTAssertEqual(open.count, 0, "\(when): idle, yet a session is open")
            } else {
                XCTAssertEqual(open.first?["id"], try agent.property("SessionId"), "\(when): the open session is the timer's")
                XCTAssertEqual(open.first?["state"], .string(state))
            }
            return [canonical(try agent.allProperties().filter { $0.key != "ActiveSeconds" && $0.key != "DataRevision" })]
                + projects.map(canonical) + sessions.map { session in var s = session; s["active"] = nil; return canonical(s) }
        }
        let before = try check("after the clients")
        try agent.crashAndRestart()
        XCTAssertEqual(try check("after kill -9 and a restart"), before, "everything acknowledged survived, nothing else appeared")
    }
}
