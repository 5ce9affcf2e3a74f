import Foundation
import TestSupport
import XCTest

/// `timectl watch` against the real agent: changes from other clients, agent restarts, the minute
/// tick only while running, and no wake-ups otherwise.
final class WatchTests: XCTestCase {
    var bus: TestBus!

    override func setUpWithError() throws {
        bus = try TestBus()
        XCTAssertEqual(try bus.runArray(["projects", "add", "Writing", "--color", "#3366cc"], env: [:]).status, 0)
    }

    override func tearDown() {
        bus?.stop()
        bus = nil
    }

    func timectl(_ arguments: String...) throws {
        let result = try bus.runArray(arguments, env: [:])
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)")
    }

    /// Time until line `index` arrives.
    func waitLine(_ watch: LineReader, _ index: Int, within seconds: TimeInterval = 1,
                  file: StaticString = #filePath, line: UInt = #line) -> String? {
        let start = Date()
        let text = watch.line(index, timeout: seconds)
        XCTAssertNotNil(text, "no line \(index) within \(seconds) s; lines: \(watch.lines)", file: file, line: line)
        XCTAssertLessThanOrEqual(Date().timeIntervalSince(start), seconds, file: file, line: line)
        return text
    }

    func testWatchSeesChangesFromAnotherClient() throws {
        try timectl("start", "Writing")
        let watch = try LineReader(["watch"], environment: bus.environment())
        defer { watch.stop() }
        let first = waybar(waitLine(watch, 0, within: 5))
        XCTAssertEqual(first["class"] as? String, "running")
        XCTAssertEqual(first["text"] as? String, "Writing 0:00")

        try timectl("pause")
        let paused = waybar(waitLine(watch, 1))
        XCTAssertEqual(paused["class"] as? String, "paused")
        XCTAssertEqual(paused["alt"] as? String, "paused")
        XCTAssertEqual(paused["text"] as? String, "Writing 0:00 (paused)")

        try timectl("note", "from another client")
        let noted = waybar(waitLine(watch, 2))
        XCTAssertTrue((noted["tooltip"] as? String ?? "").contains("from another client"))

        try timectl("stop")
        var lastClass = ""
        let deadline = Date().addingTimeInterval(1)
        while Date() < deadline {
            lastClass = waybar(watch.lines.last)["class"] as? String ?? ""
            if lastClass == "idle" { break }
            usleep(10_000)
        }
        XCTAssertEqual(lastClass, "idle")

        // json and plain formats.
        let json = try LineReader(["watch", "--format", "json"], environment: bus.environment())
        defer { json.stop() }
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data((waitLine(json, 0, within: 5) ?? "").utf8)) as? [String: Any])
        XCTAssertEqual(object["state"] as? String, "idle")
        XCTAssertEqual(object["agent"] as? Bool, true)
        let plain = try LineReader(["watch", "--format", "plain"], environment: bus.environment())
        defer { plain.stop() }
        XCTAssertEqual(waitLine(plain, 0, within: 5), "idle")
        try timectl("start", "Writing")
        XCTAssertEqual(waitLine(plain, 1), "Writing 0:00")
    }

    func testWatchSurvivesAgentRestart() throws {
        try timectl("start", "Writing")
        let watch = try LineReader(["watch"], environment: bus.environment())
        defer { watch.stop() }
        XCTAssertEqual(waybar(waitLine(watch, 0, within: 5))["class"] as? String, "running")

        bus.stopAgent()
        XCTAssertNil(bus.agentPID())
        var last = ""
        let deadline = Date().addingTimeInterval(1)
        while Date() < deadline {
            last = waybar(watch.lines.last)["class"] as? String ?? ""
            if last == "offline" { break }
            usleep(10_000)
        }
        XCTAssertEqual(last, "offline", "\(watch.lines)")
        XCTAssertTrue(watch.process.isRunning)
        let count = watch.lines.count

        // Any client brings the agent back through activation; the open session survived.
        try timectl("status")
        let back = waybar(waitLine(watch, count))
        XCTAssertEqual(back["class"] as? String, "running")
        XCTAssertEqual(back["text"] as? String, "Writing 0:00")
        try timectl("pause")
        XCTAssertEqual(waybar(waitLine(watch, count + 1))["class"] as? String, "paused")
    }

    /// While running, one line when the elapsed time reaches the next whole minute. The test
    /// moves watch's clock 58.6 s ahead so the minute comes in about 1.4 s.
    func testMinuteTickWhileRunning() throws {
        try timectl("start", "Writing")
        let watch = try LineReader(["watch", "--format", "plain"], environment: bus.environment(["TIMECTL_CLOCK_OFFSET": "58.6"]))
        defer { watch.stop() }
        XCTAssertEqual(waitLine(watch, 0, within: 5), "Writing 0:00")
        XCTAssertEqual(waitLine(watch, 1, within: 2.5), "Writing 0:01")
        usleep(500_000)
        XCTAssertEqual(watch.lines.count, 2, "one line per minute: \(watch.lines)")
    }

    /// Paused or idle: the minute timer is removed and watch sleeps (no polling).
    func testNoTickAndNoWakeUpsWhenPaused() throws {
        try timectl("start", "Writing")
        let watch = try LineReader(["watch", "--format", "plain"], environment: bus.environment(["TIMECTL_CLOCK_OFFSET": "58.0"]))
        defer { watch.stop() }
        XCTAssertEqual(waitLine(watch, 0, within: 5), "Writing 0:00")
        try timectl("pause")
        XCTAssertEqual(waitLine(watch, 1), "Writing 0:00 (paused)")
        let before = contextSwitches(watch.process.processIdentifier)
        usleep(2_800_000)   // the minute tick would have come after about 2 s
        let after = contextSwitches(watch.process.processIdentifier)
        XCTAssertEqual(watch.lines.count, 2, "\(watch.lines)")
        XCTAssertLessThanOrEqual(after - before, 2, "watch woke up while paused")

        try timectl("stop")
        XCTAssertEqual(waitLine(watch, 2), "idle")
        let idleBefore = contextSwitches(watch.process.processIdentifier)
        usleep(1_500_000)
        XCTAssertLessThanOrEqual(contextSwitches(watch.process.processIdentifier) - idleBefore, 2, "watch woke up while idle")
        XCTAssertEqual(watch.lines.count, 3)
    }

    /// Voluntary context switches of every thread of a process.
    func contextSwitches(_ pid: Int32) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        var total = 0
        for task in tasks {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8) else { continue }
            for line in status.split(separator: "\n") where line.hasPrefix("voluntary_ctxt_switches:") {
                total += Int(line.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        return total
    }
}
