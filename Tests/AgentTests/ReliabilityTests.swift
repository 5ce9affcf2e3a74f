import DBusKit
import Foundation
import TestSupport
import XCTest

/// The reliability suite: load, faults and hostile input against a real agent on a private bus.
/// `scripts/test.sh` runs it in its quick form (the defaults of `StressSizes`); `scripts/stress.sh`
/// exports long sizes. Each test ends with one `reliability: <part>: …` line of counts.
final class ReliabilityTests: XCTestCase {
    static let baseProjects = ["Alpha", "Beta", "Gamma"]

    // MARK: (a) Load

    /// Fifty clients, each on its own connection and thread, issue a mix of every kind of call;
    /// the final state is exactly what the acknowledged operations imply, before and after a restart.
    func testLoadFinalStateIsWhatTheAcknowledgedOperationsImply() throws {
        let calls = StressSizes.calls, clients = StressSizes.clients
        var generator = StressSizes.generator("load")
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        var base: [String: UInt64] = [:]
        for name in Self.baseProjects { base[name] = try agent.createProject(name) }
        try agent.start("Alpha")
        let ledger = Ledger(baseProjects: base)

        let started = Date()
        let done = runClients(clients, address: agent.bus.address, ledger: ledger,
                              calls: { calls / clients + ($0 < calls % clients ? 1 : 0) }, faultMode: false, seed: generator.next())
        for _ in 0..<clients {
            XCTAssertEqual(done.wait(timeout: .now() + 900), .success, "a client did not finish")
        }
        let seconds = Date().timeIntervalSince(started)
        XCTAssertEqual(ledger.unexpected, [], "every call was answered, and refused only with NoCurrentSession when idle")
        XCTAssertEqual(ledger.calls, calls, "every call was made and answered")
        agent.assertAlive("after the load")

        let first = try ledger.check(agent.client, "after the load", adopt: false)
        try agent.restart()
        let second = try ledger.check(agent.client, "after a restart", adopt: false)
        XCTAssertEqual(try agent.property("StorageState"), .string("ok"))
        agent.stopAgent()
        let integrity = try storeIntegrity(dataDirectory: agent.dataDirectory)
        XCTAssertEqual(integrity, "ok", "PRAGMA integrity_check after the load")
        let lost = first.lost + second.lost
        XCTAssertEqual(lost, [], "every acknowledged change is there, and nothing else")
        print("reliability: load: clients=\(clients) calls=\(ledger.calls) acknowledged_changes=\(ledger.acknowledgedChanges) "
              + "refused_as_idle=\(ledger.refusedAsIdle) changes_verified=\(first.verified) lost=\(lost.count) "
              + "integrity=\(integrity) seconds=\(String(format: "%.1f", seconds))")
    }

    // MARK: (b) Faults

    /// kill -9 of the agent at random moments while several clients write; after every restart each
    /// acknowledged change is there, the storage is "ok", and the store passes integrity_check.
    func testKillNineUnderLoadLosesNoAcknowledgedChange() throws {
        let kills = StressSizes.kills, clients = StressSizes.faultClients
        var generator = StressSizes.generator("faults")
        let bus = try PrivateBus()
        defer { bus.stop() }
        let folder = TemporaryDirectory("time-faults")
        defer { folder.remove() }
        let data = folder.file("data")

        var agent = try AgentProcess(bus: bus, dataDirectory: data)
        var client = try bus.connect()
        var base: [String: UInt64] = [:]
        for name in Self.baseProjects {
            base[name] = try client.agent("CreateProject", [.string(name), .string(""), .string("")]).first?.uint64Value
        }
        // Toggle from idle with no session ever started is rightly NoSuchProject; one start first
        // gives Toggle a last project, as the load test does.
        try client.agent("StartProject", [.string("Alpha")])
        let ledger = Ledger(baseProjects: base)
        var checks = 0, lost: [String] = [], integrityFailures: [String] = []
        let started = Date()

        for round in 0...kills {
            if round > 0 {
                agent = try AgentProcess(bus: bus, dataDirectory: data)
                client = try bus.connect()
                XCTAssertEqual(try client.agentProperty("StorageState"), .string("ok"), "round \(round): \(agent.logText)")
                let result = try ledger.check(client, "after kill \(round)", adopt: true)
                checks += result.verified
                lost += result.lost
            }
            if round == kills { break }

            let stop = StopFlag()
            let done = runClients(clients, address: bus.address, ledger: ledger, calls: { _ in Int.max }, faultMode: true,
                                  seed: generator.next(), shouldStop: { stop.isSet })
            usleep(UInt32.random(in: 50_000...600_000, using: &generator))
            agent.kill9()
            stop.set()
            for _ in 0..<clients {
                XCTAssertEqual(done.wait(timeout: .now() + 120), .success, "round \(round): a client did not end after the kill")
            }
            client.close()
            let integrity = try storeIntegrity(dataDirectory: data)
            if integrity != "ok" { integrityFailures.append("after kill \(round + 1): \(integrity)") }
        }
        XCTAssertEqual(ledger.unexpected, [], "no call was refused except as idle")
        XCTAssertEqual(lost, [], "every acknowledged change survived every kill -9")
        XCTAssertEqual(integrityFailures, [], "the store passes integrity_check after every kill -9")
        agent.assertAliveOnBus(client)
        client.close()
        agent.terminate()
        let finalIntegrity = try storeIntegrity(dataDirectory: data)
        XCTAssertEqual(finalIntegrity, "ok")
        XCTAssertGreaterThan(ledger.acknowledgedChanges, kills * 5, "enough changes were made between the kills to mean something")
        print("reliability: faults: kills=\(kills) clients=\(clients) calls=\(ledger.calls) acknowledged_changes=\(ledger.acknowledgedChanges) "
              + "unanswered_at_kill=\(ledger.uncertain) changes_verified=\(checks) lost=\(lost.count) "
              + "integrity=\(integrityFailures.isEmpty && finalIntegrity == "ok" ? "ok" : "FAILED") seconds=\(String(format: "%.1f", Date().timeIntervalSince(started)))")
    }

    /// The agent WITH notifications, while the notification server works, dies (kill -9), is gone,
    /// comes back, and is replaced by one that takes calls and never answers: every reply of ours
    /// comes in under a second and the timer's state is always what the calls made it.
    func testDyingAndHungNotificationServersNeverDelayAReply() throws {
        let perPhase = StressSizes.notificationCalls
        var generator = StressSizes.generator("notifications")
        let bus = try PrivateBus()
        defer { bus.stop() }
        let desktop = try NotificationDesktop(bus: bus)
        defer { desktop.stop() }
        let folder = TemporaryDirectory("time-notify-faults")
        defer { folder.remove() }
        let agent = try AgentProcess(bus: bus, dataDirectory: folder.file("data"), arguments: [], environment: ["DISPLAY": desktop.display])
        defer { agent.terminate() }
        let client = try bus.connect()
        defer { client.close() }
        try client.agent("CreateProject", [.string("Writing"), .string(""), .string("")])
        try client.agent("CreateProject", [.string("Reading <b>&amp;</b>"), .string(""), .string("")])

        try client.agent("StartProject", [.string("Writing")])   // so that Toggle always has a project
        var calls = 0, faults = 0, slowest = 0.0
        var slow: [String] = []
        var expectedState = "running"
        func phase(_ name: String, during: (() throws -> Void)? = nil) throws {
            for index in 0..<perPhase {
                if index == perPhase / 2, let during { try during() }
                let method = generator.pick(["StartProject", "StartProject", "Pause", "Resume", "Toggle", "AddNote", "Stop", "ShowWeeklyReport"])
                var arguments: [DBusValue] = []
                switch method {
                case "StartProject": arguments = [.string(generator.pick(["Writing", "Reading <b>&amp;</b>"]))]
                case "AddNote": arguments = [.string("note <i>\(index)</i> & more")]
                case "ShowWeeklyReport": arguments = [.string("")]
                default: break
                }
                let begun = Date()
                var outcome = "ok"
                do {
                    let reply = try client.agent(method, arguments, timeout: 30_000)
                    switch method {
                    case "StartProject", "Resume": expectedState = "running"
                    case "Pause": expectedState = "paused"
                    case "Stop": expectedState = "idle"
                    case "Toggle": expectedState = reply.first?.stringValue ?? "?"
                    default: break
                    }
                } catch let error as BusError where error.name == ContractError.noCurrentSession && expectedState == "idle" {
                    outcome = "idle"
                }
                let seconds = Date().timeIntervalSince(begun)
                calls += 1
                slowest = max(slowest, seconds)
                if seconds >= 1.0 { slow.append("\(name): \(method) took \(String(format: "%.2f", seconds)) s (\(outcome))") }
                XCTAssertEqual(try client.agentProperty("State").stringValue, expectedState, "\(name): after \(method)")
            }
            XCTAssertTrue(agent.process.isRunning, "\(name): the agent died; its log: \(agent.logText)")
        }

        try phase("server alive")
        try phase("server killed mid-run") {
            kill(try ownerPID(of: "org.freedesktop.Notifications", client: client), SIGKILL)
            desktop.stopDunst()
            faults += 1
        }
        try phase("no server")
        try desktop.startDunst()
        try phase("server back")
        desktop.stopDunst()
        let hung = try HungNotificationServer(bus: bus)
        faults += 1
        defer { hung.stop() }
        try phase("hung server")

        XCTAssertEqual(slow, [], "no reply waited for the notification server")
        // Even with the hung server still there, SIGTERM stops the agent cleanly.
        let stopping = Date()
        agent.terminate()
        let shutdown = Date().timeIntervalSince(stopping)
        XCTAssertEqual(agent.process.terminationReason, .exit, agent.logText)
        XCTAssertEqual(agent.process.terminationStatus, 0, agent.logText)
        XCTAssertLessThan(shutdown, 5.0, "shutting down behind a hung notification server")
        print("reliability: notifications: calls=\(calls) faults=\(faults) slowest_reply=\(String(format: "%.3f", slowest))s "
              + "over_1s=\(slow.count) shutdown=\(String(format: "%.2f", shutdown))s deaths=0")
    }

    /// The session bus goes away under the agent: it exits with status 0 saying so; a new bus
    /// with the activation file starts it again on the next call, with the running timer intact.
    func testSessionBusRestartEndsTheAgentCleanlyAndActivationBringsItBack() throws {
        let restarts = StressSizes.busRestarts
        let folder = TemporaryDirectory("time-bus-restart")
        defer { folder.remove() }
        let data = folder.file("data"), activatedLog = folder.file("activated.log")
        // Activation from a service file: dbus-daemon's (dbus-broker hands it to systemd).
        var bus = try PrivateBus(kind: .dbusDaemon)
        let agent = try AgentProcess(bus: bus, dataDirectory: data)
        defer { agent.terminate() }
        var client = try bus.connect()
        try client.agent("CreateProject", [.string("Writing"), .string(""), .string("")])
        let session = try XCTUnwrap(client.agent("StartProject", [.string("Writing")]).first?.uint64Value)
        try client.agent("AddNote", [.string("before the bus went away")])
        let runningSince = try client.agentProperty("RunningSince")
        var pid = agent.pid
        var reactivated = 0

        for round in 1...restarts {
            client.close()
            bus.stop()
            // The agent started by the test (round 1) reports its exit status; later ones were
            // started by the bus, so their log says how they ended.
            if round == 1 {
                XCTAssertTrue(TestSupport.wait(seconds: 10) { !agent.process.isRunning }, "the agent outlives its bus")
                XCTAssertEqual(agent.process.terminationReason, .exit)
                XCTAssertEqual(agent.process.terminationStatus, 0, agent.logText)
                XCTAssertTrue(agent.logText.contains("bus went away"), agent.logText)
            } else {
                XCTAssertTrue(TestSupport.wait(seconds: 10) { processIsGone(pid) }, "round \(round): the activated agent outlives its bus")
                let log = (try? String(contentsOfFile: activatedLog, encoding: .utf8)) ?? ""
                XCTAssertEqual(log.components(separatedBy: "bus went away").count - 1, round - 1, log)
                XCTAssertEqual(log.components(separatedBy: "stopped; the store was closed cleanly").count - 1, round - 1, log)
            }

            bus = try PrivateBus(kind: .dbusDaemon)
            try bus.installService(name: AgentProcess.busName,
                                   exec: "/bin/sh -c 'exec \(Products.agent) --data-dir \(data) --no-notifications >>\(activatedLog) 2>&1'")
            client = try bus.connect()
            XCTAssertFalse(try client.nameHasOwner(AgentProcess.busName), "nothing runs before the first call")
            let status = try XCTUnwrap(client.agent("GetStatus", timeout: 20_000).first?.variantDictionary)
            XCTAssertEqual(status["state"], .string("running"), "round \(round): the timer still runs")
            XCTAssertEqual(status["session"], .uint64(session), "round \(round): the same session")
            XCTAssertEqual(status["project"], .string("Writing"))
            XCTAssertEqual(status["note"], .string("before the bus went away"))
            XCTAssertEqual(try client.agentProperty("RunningSince"), runningSince, "round \(round): the same running stretch")
            XCTAssertEqual(try client.agentProperty("StorageState"), .string("ok"))
            pid = try ownerPID(of: AgentProcess.busName, client: client)
            reactivated += 1
        }
        client.close()
        bus.stop()
        XCTAssertTrue(TestSupport.wait(seconds: 10) { processIsGone(pid) }, "the last activated agent outlives its bus")
        XCTAssertEqual(try storeIntegrity(dataDirectory: data), "ok")
        print("reliability: bus-restart: restarts=\(restarts) clean_exits=\(restarts) reactivated=\(reactivated) state_intact=\(reactivated)")
    }

    // MARK: (c) Hostile input

    /// Random and boundary values for every method of the interface (from the checked-in XML) and
    /// every property: each call succeeds (and round-trips) or answers a named error; the agent
    /// never dies; the store always passes integrity_check.
    func testFuzzEveryMethodAndPropertyWithHostileValues() throws {
        var fuzzer = try Fuzzer(calls: StressSizes.fuzzCalls, generator: StressSizes.generator("fuzz"))
        defer { fuzzer.tearDown() }
        try fuzzer.run()
        XCTAssertEqual(fuzzer.failures, [], "every call answered success or a named error")
        XCTAssertEqual(fuzzer.roundTripFailures, [], "every success round-tripped")
        XCTAssertEqual(fuzzer.deaths, 0)
        XCTAssertEqual(fuzzer.integrityFailures, [], "the store always passes integrity_check")
        XCTAssertTrue(fuzzer.successes > 0 && fuzzer.namedErrors > 0, "both successes and refusals were reached")
        XCTAssertEqual(Set(fuzzer.methodsCalled), Set(fuzzer.interface.methods.map(\.name) + ["Properties.Set", "Properties.Get", "unknown method"]),
                       "every method and property was fuzzed")
        print("reliability: fuzz: calls=\(fuzzer.calls) named_errors=\(fuzzer.namedErrors) successes=\(fuzzer.successes) "
              + "round_trips=\(fuzzer.roundTrips) deaths=\(fuzzer.deaths) integrity_checks=\(fuzzer.integrityChecks) "
              + "unsendable=\(fuzzer.unsendable) "
              + "integrity=\(fuzzer.integrityFailures.isEmpty ? "ok" : "FAILED")")
    }
}

/// A flag set by one thread and read by others.
final class StopFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.lock(); defer { lock.unlock() }; return value }
    func set() { lock.lock(); value = true; lock.unlock() }
}

extension AgentProcess {
    /// Alive and answering Ping on `client`'s bus.
    func assertAliveOnBus(_ client: BusConnection, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertTrue(process.isRunning, "time-agent died; its log: \(logText)", file: file, line: line)
        XCTAssertNoThrow(try client.call(destination: AgentProcess.busName, path: AgentProcess.path, interface: "org.freedesktop.DBus.Peer",
                                         member: "Ping", arguments: [], timeoutMilliseconds: 5_000), file: file, line: line)
    }
}
