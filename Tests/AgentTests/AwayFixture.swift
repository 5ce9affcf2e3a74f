import DBusKit
import Foundation
import Glibc
import TestSupport
import TimeCore
import XCTest

/// One away test's world: a private session bus, a second private bus used as the system bus
/// (DBUS_SYSTEM_BUS_ADDRESS), the fake logind + Mutter helper on them, and a real time-agent
/// whose data already holds a session of "Writing" running for `runningFor` seconds.
final class AwayWorld {
    private final class Then: TimeCore.Clock {
        let time: Int64
        init(_ time: Int64) { self.time = time }
        func now() -> Int64 { time }
    }

    let session: PrivateBus
    let system: PrivateBus
    let data: TemporaryDirectory
    private(set) var helper: Process?
    private(set) var agent: AgentProcess!
    let client: BusConnection
    let desk: BusConnection
    let sessionStart: Int64

    init(helperFirst: Bool = true, runningFor seconds: Int64 = 3600) throws {
        session = try PrivateBus()
        system = try PrivateBus()
        data = TemporaryDirectory("time-away")
        sessionStart = unixNow() - seconds
        do {
            let home = try DataHome(directory: data.file("data"), clock: Then(sessionStart))
            try home.tracker.createProject(name: "Writing", color: "", category: "")
            try home.tracker.startProject("Writing")
            home.tracker.tidyUp()
        }
        client = try session.connect()
        desk = try system.connect()
        if helperFirst { try startHelper() }
        try startAgent()
    }

    var environment: [String: String] { ["DBUS_SYSTEM_BUS_ADDRESS": system.address] }

    func startHelper() throws {
        helper = try Command.start(Products.fakeDesktop, [], environment: session.environment.merging(environment) { $1 },
                                   log: data.file("fake-desktop.log"))
        guard TestSupport.wait(seconds: 10, { (try? desk.nameHasOwner("io.github.timetracker.TestDesktop")) == true }) else {
            throw FixtureError("the fake desktop did not start: \((try? String(contentsOfFile: data.file("fake-desktop.log"), encoding: .utf8)) ?? "")")
        }
    }

    func startAgent() throws {
        agent = try AgentProcess(bus: session, dataDirectory: data.file("data"), environment: environment)
    }

    func kill9Agent() { agent.kill9() }

    func restartAgent() throws {
        agent.terminate()
        try startAgent()
    }

    func stop() {
        client.close()
        desk.close()
        agent?.terminate()
        if let helper { Command.stop(helper) }
        session.stop()
        system.stop()
        data.remove()
    }

    // MARK: Driving the fake desktop

    @discardableResult
    func fake(_ method: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] {
        try desk.call(destination: "io.github.timetracker.TestDesktop", path: "/io/github/timetracker/TestDesktop",
                      interface: "io.github.timetracker.TestDesktop", member: method, arguments: arguments,
                      timeoutMilliseconds: 10_000)
    }

    /// (inhibitors the agent holds now, Inhibit calls so far)
    func inhibitors() -> (held: UInt32, calls: UInt32) {
        guard let reply = try? fake("Inhibitors"), reply.count == 2 else { return (99, 99) }
        return (reply[0].uint32Value ?? 99, reply[1].uint32Value ?? 99)
    }

    func idleWatches() -> (intervals: [UInt64], active: UInt32) {
        guard let reply = try? fake("IdleWatches"), reply.count == 2 else { return ([], 99) }
        return (reply[0].arrayValue?.compactMap(\.uint64Value) ?? [], reply[1].uint32Value ?? 99)
    }

    // MARK: The agent

    @discardableResult
    func call(_ method: String, _ arguments: [DBusValue] = []) throws -> [DBusValue] { try client.agent(method, arguments) }

    func awaySince() -> Int64 { (try? client.agentProperty("AwaySince"))?.int64Value ?? -1 }

    /// PendingAway as (id, start, end, reason, project).
    func pending() -> [(id: UInt64, start: Int64, end: Int64, reason: String, project: String)] {
        guard let value = try? client.agentProperty("PendingAway"), let items = value.arrayValue else { return [] }
        return items.compactMap { item in
            guard case .structure(let f) = item, f.count == 5 else { return nil }
            return (f[0].uint64Value ?? 0, f[1].int64Value ?? 0, f[2].int64Value ?? 0, f[3].stringValue ?? "", f[4].stringValue ?? "")
        }
    }

    /// The session's segments as ListSessions gives them.
    func segments() throws -> [[Int64]] {
        let reply = try call("ListSessions", [.uint64(0), .int64(0), .int64(Int64.max)])
        guard let first = reply.first?.arrayValue?.first?.variantDictionary,
              let list = first["segments"]?.arrayValue else { return [] }
        return list.compactMap { item in
            guard case .structure(let f) = item else { return nil }
            return f.compactMap(\.int64Value)
        }
    }

    func sessionEnd() throws -> Int64 {
        let reply = try call("ListSessions", [.uint64(0), .int64(0), .int64(Int64.max)])
        return reply.first?.arrayValue?.first?.variantDictionary?["end"]?.int64Value ?? -1
    }

    /// The lasting spans in the agent's store, read from the file itself (no agent involved).
    func lastingSpansInTheStore() throws -> [String] {
        let database = try SQLiteDatabase(path: data.file("data") + "/time.sqlite", mode: .readOnly)
        return try database.query("SELECT reason FROM away_spans WHERE end IS NULL") { $0.string(0) }
    }
}
