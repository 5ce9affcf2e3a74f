import DBusKit
import Foundation
import TestSupport
import XCTest

/// The agent as a process: one per data folder and per bus, D-Bus activation, crashes and
/// clean shutdowns, a running timer that survives kill -9, privacy of the data folder, and
/// no wake-ups while nothing happens.
final class ProcessTests: XCTestCase {
    private func waitForExit(_ process: Process, seconds: Double = 15) -> Bool {
        TestSupport.wait(seconds: seconds) { !process.isRunning }
    }

    func testSecondAgentOnTheSameDataFolderExitsOneSayingAlreadyRunning() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        // On another bus, so that only the data folder is shared.
        let otherBus = try PrivateBus()
        defer { otherBus.stop() }
        let second = try AgentProcess(bus: otherBus, dataDirectory: agent.dataDirectory, waitForName: false)
        defer { second.terminate() }
        XCTAssertTrue(waitForExit(second.process), "the second agent keeps running")
        XCTAssertEqual(second.process.terminationStatus, 1)
        XCTAssertTrue(second.logText.contains("already running"), second.logText)
        XCTAssertFalse(try otherBus.connect().nameHasOwner(AgentProcess.busName))
        agent.assertAlive("after a second agent tried its data folder")
    }

    func testSecondAgentOnTheSameBusExitsOneNamingTheBusName() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        let otherData = TemporaryDirectory("time-other")
        defer { otherData.remove() }
        let second = try AgentProcess(bus: agent.bus, dataDirectory: otherData.file("data"), waitForName: false)
        defer { second.terminate() }
        XCTAssertTrue(waitForExit(second.process), "the second agent keeps running")
        XCTAssertEqual(second.process.terminationStatus, 1)
        XCTAssertTrue(second.logText.contains(AgentProcess.busName), second.logText)
        agent.assertAlive("after a second agent tried its bus name")
        XCTAssertEqual(try agent.projects().count, 1, "the first agent still answers")
        let owner = try agent.client.getNameOwner(AgentProcess.busName)
        let pid = try agent.client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                        member: "GetConnectionUnixProcessID", arguments: [.string(owner)]).first?.uint32Value
        XCTAssertEqual(pid.map(Int32.init), agent.agent.pid, "the name stays with the first agent")
    }

    func testDBusActivationThroughTheServiceFileStartsTheAgentOnTheFirstCall() throws {
        // dbus-daemon reads activation files itself (dbus-broker hands activation to systemd).
        let bus = try PrivateBus(kind: .dbusDaemon)
        defer { bus.stop() }
        let data = TemporaryDirectory("time-activated")
        defer { data.remove() }
        // The checked-in activation file, with Exec= rewritten the way an installer does.
        let checkedIn = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("dbus/io.github.timetracker.Time1.service")
        let template = try String(contentsOf: checkedIn, encoding: .utf8)
        XCTAssertTrue(template.contains("Name=\(AgentProcess.busName)\n"))
        let exec = "Exec=\(Products.agent) --data-dir \(data.file("data")) --no-notifications"
        let service = template.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("Exec=") ? exec : String($0) }.joined(separator: "\n")
        try service.write(toFile: bus.serviceDirectory + "/\(AgentProcess.busName).service", atomically: true, encoding: .utf8)
        _ = try Command.run("dbus-send", ["--bus=\(bus.address)", "--dest=org.freedesktop.DBus", "--type=method_call",
                                          "/org/freedesktop/DBus", "org.freedesktop.DBus.ReloadConfig"])
        let client = try bus.connect()
        defer { client.close() }
        XCTAssertFalse(try client.nameHasOwner(AgentProcess.busName), "nothing runs before the first call")

        let status = try client.agent("GetStatus", timeout: 20_000)
        XCTAssertEqual(status.first?.variantDictionary?["state"], .string("idle"), "the first call is answered by the started agent")
        let owner = try client.getNameOwner(AgentProcess.busName)
        let pid = try XCTUnwrap(try client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus",
                                                interface: "org.freedesktop.DBus", member: "GetConnectionUnixProcessID",
                                                arguments: [.string(owner)]).first?.uint32Value)
        defer {
            kill(Int32(pid), SIGTERM)
            TestSupport.wait(seconds: 5) { kill(Int32(pid), 0) != 0 }
        }
        let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
        XCTAssertTrue(command.contains(data.file("data")), "started with the service file's arguments: \(command)")
        _ = try client.agent("CreateProject", [.string("Writing"), .string(""), .string("")])
        _ = try client.agent("StartProject", [.string("Writing")])
        XCTAssertTrue(FileManager.default.fileExists(atPath: data.file("data") + "/time.sqlite"), "the data went where Exec= said")

        // Stopped, it is activated again by the next call, with the timer still running.
        kill(Int32(pid), SIGTERM)
        XCTAssertTrue(TestSupport.wait(seconds: 10) { (try? client.nameHasOwner(AgentProcess.busName)) == false })
        let again = try client.agent("GetStatus", timeout: 20_000).first?.variantDictionary
        XCTAssertEqual(again?["state"], .string("running"))
        XCTAssertEqual(again?["project"], .string("Writing"))
        let secondOwner = try client.getNameOwner(AgentProcess.busName)
        if let secondPID = try client.call(destination: "org.freedesktop.DBus", path: "/org/freedesktop/DBus", interface: "org.freedesktop.DBus",
                                           member: "GetConnectionUnixProcessID", arguments: [.string(secondOwner)]).first?.uint32Value {
            kill(Int32(secondPID), SIGTERM)
            TestSupport.wait(seconds: 5) { kill(Int32(secondPID), 0) != 0 }
        }
    }

    func testKillNineWithARunningTimerKeepsItRunningAndCounting() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        let session = try agent.start("Writing")
        try agent.call("AddNote", [.string("before the crash")])
        let runningSince = try agent.property("RunningSince")
        usleep(2_000_000)
        let before = try XCTUnwrap(try agent.status()["elapsed"]?.uint64Value)
        XCTAssertGreaterThanOrEqual(before, 1)

        try agent.crashAndRestart()
        XCTAssertEqual(try agent.property("StorageState"), .string("ok"))
        let status = try agent.status()
        XCTAssertEqual(status["state"], .string("running"), "still running after kill -9")
        XCTAssertEqual(status["session"], .uint64(session), "the same session")
        XCTAssertEqual(status["note"], .string("before the crash"))
        XCTAssertEqual(try agent.property("RunningSince"), runningSince, "the open segment is in the store")
        XCTAssertGreaterThanOrEqual(status["elapsed"]!.uint64Value!, before, "time continues")
        usleep(1_100_000)
        XCTAssertGreaterThan(try agent.status()["elapsed"]!.uint64Value!, before, "and keeps counting")
        XCTAssertEqual(try agent.sessions().count, 1, "nothing was duplicated")

        // A crash while paused keeps it paused, with no time added.
        try agent.call("Pause")
        let paused = try XCTUnwrap(try agent.property("ActiveSeconds").uint64Value)
        try agent.crashAndRestart()
        XCTAssertEqual(try agent.property("State"), .string("paused"))
        usleep(1_100_000)
        XCTAssertEqual(try agent.status()["elapsed"], .uint64(paused))
    }

    func testSIGTERMAndSIGINTExitZeroAndSayStopped() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        try agent.start("Writing")
        kill(agent.agent.pid, SIGTERM)
        XCTAssertTrue(waitForExit(agent.agent.process, seconds: 10), "SIGTERM stops the agent")
        XCTAssertEqual(agent.agent.process.terminationReason, .exit)
        XCTAssertEqual(agent.agent.process.terminationStatus, 0)
        XCTAssertTrue(agent.agent.logText.contains("stopped"), agent.agent.logText)
        XCTAssertFalse(try agent.client.nameHasOwner(AgentProcess.busName))

        try agent.restart()
        XCTAssertEqual(try agent.state(), "running")
        kill(agent.agent.pid, SIGINT)
        XCTAssertTrue(waitForExit(agent.agent.process, seconds: 10), "SIGINT stops the agent")
        XCTAssertEqual(agent.agent.process.terminationStatus, 0)
        XCTAssertTrue(agent.agent.logText.contains("stopped"), agent.agent.logText)
    }

    func testLosingTheBusStopsTheAgentCleanly() throws {
        let bus = try PrivateBus()
        let data = TemporaryDirectory()
        defer { data.remove() }
        let agent = try AgentProcess(bus: bus, dataDirectory: data.file("data"))
        defer { agent.terminate() }
        bus.stop()
        XCTAssertTrue(waitForExit(agent.process, seconds: 10), "the agent outlives its bus")
        XCTAssertEqual(agent.process.terminationStatus, 0)
        XCTAssertTrue(agent.logText.contains("bus went away"), agent.logText)
    }

    func testDataFolderIsPrivate() throws {
        let agent = try AgentHarness()
        defer { agent.tearDown() }
        try agent.createProject("Writing")
        try agent.start("Writing")
        try agent.restart() // raw archives are made at launch
        try agent.call("Stop")
        var checked = 0
        let root = agent.dataDirectory
        var paths = [""]
        paths += (FileManager.default.enumerator(atPath: root)?.allObjects as? [String]) ?? []
        for relative in paths {
            let path = relative.isEmpty ? root : root + "/" + relative
            var info = stat()
            XCTAssertEqual(lstat(path, &info), 0, path)
            let mode = info.st_mode & 0o777
            if (info.st_mode & S_IFMT) == S_IFDIR {
                XCTAssertEqual(String(mode, radix: 8), "700", "folder \(relative.isEmpty ? "." : relative)")
            } else {
                XCTAssertEqual(String(mode, radix: 8), "600", "file \(relative)")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 4)
    }

    /// The design's "no idle wake-ups": over a quiet window, no thread of an idle agent, nor of
    /// one with a running timer (reminder due in an hour), is woken even once.
    func testIdleAndRunningAgentsMakeNoWakeUps() throws {
        let idle = try AgentHarness()
        defer { idle.tearDown() }
        let running = try AgentHarness()
        defer { running.tearDown() }
        try running.createProject("Writing")
        try running.start("Writing")
        XCTAssertEqual(try running.property("ReminderMinutes"), .uint32(60))
        usleep(500_000) // let the replies and the after-reply work settle

        let window: UInt32 = 10
        let idleBefore = voluntaryContextSwitches(of: idle.agent.pid)
        let runningBefore = voluntaryContextSwitches(of: running.agent.pid)
        sleep(window)
        let idleAfter = voluntaryContextSwitches(of: idle.agent.pid)
        let runningAfter = voluntaryContextSwitches(of: running.agent.pid)
        XCTAssertEqual(idleAfter.total, idleBefore.total,
                       "an idle agent woke up in \(window) s: before \(idleBefore.threads), after \(idleAfter.threads)")
        XCTAssertEqual(runningAfter.total, runningBefore.total,
                       "an agent with a running timer woke up in \(window) s: before \(runningBefore.threads), after \(runningAfter.threads)")
        XCTAssertTrue(idle.agent.process.isRunning && running.agent.process.isRunning)
    }
}
