import Foundation
import TestSupport
import XCTest

/// `timectl start|pause|resume|stop --at`, `--adjust`, `edit current`, the Overlap refusal with
/// its `--adjust` line, and the warnings and listing of sessions typed by hand that overlap,
/// against the real agent on a private bus (TZ Europe/Berlin). Times are given relative to now
/// ('-90m', '60 minutes ago') or as full local dates, so no test depends on the hour it runs.
final class CorrectionCommandTests: XCTestCase {
    var bus: TestBus!

    override func setUpWithError() throws { bus = try TestBus() }
    override func tearDown() {
        bus?.stop()
        bus = nil
    }

    @discardableResult
    private func ok(_ arguments: String..., file: StaticString = #filePath, line: UInt = #line) throws -> String {
        try bus.succeeded(arguments, file: file, line: line)
    }

    private func run(_ arguments: String...) throws -> CommandResult { try bus.runArray(arguments, env: [:]) }

    /// `YYYY-MM-DD HH:MM` in the agent's zone, `seconds` before now.
    private func local(_ secondsAgo: Int64) -> String {
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: TestBus.timeZone)
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: Date(timeIntervalSinceNow: -Double(secondsAgo)))
    }

    private func status() throws -> [String: Any] {
        try XCTUnwrap(try run("status", "--json").json() as? [String: Any])
    }

    private func sessions(_ extra: String...) throws -> [[String: Any]] {
        let result = try bus.runArray(["sessions", "--json", "--from", local(3 * 86_400 + 7200)] + extra, env: [:])
        return try XCTUnwrap(try result.json() as? [[String: Any]])
    }

    private func segments(_ session: [String: Any]?) -> [[Int64]] {
        ((session?["segments"] as? [[Any]]) ?? []).map { $0.compactMap { ($0 as? NSNumber)?.int64Value } }
    }

    func testStartPauseResumeAndStopAtTheTimesPeopleType() throws {
        try ok("projects", "add", "Writing")
        try ok("projects", "add", "Email")
        let now = Int64(Date().timeIntervalSince1970)
        let started = try ok("start", "Writing", "--at", "-90m")
        XCTAssertTrue(started.hasPrefix("Started Writing at ") && started.hasSuffix("(session 1).\n"), started)
        let start = try XCTUnwrap((try status()["session_start"] as? NSNumber)?.int64Value)
        XCTAssertTrue((now - 5400 - 2)...(now - 5400 + 2) ~= start, "started 90 minutes back: \(start) vs \(now)")

        XCTAssertTrue(try ok("pause", "--at", "60 minutes ago").hasPrefix("Paused at "))
        XCTAssertEqual(try status()["state"] as? String, "paused")
        XCTAssertTrue(try ok("resume", "--at", local(1800)).hasPrefix("Resumed at "))
        let switched = try ok("start", "Email", "--at", "10 minutes ago")
        XCTAssertTrue(switched.hasPrefix("Started Email at ") && switched.contains("; Writing ended "), switched)
        XCTAssertTrue(try ok("stop", "--at", "-5m").hasPrefix("Stopped session 2 at "))
        XCTAssertEqual(try status()["state"] as? String, "idle")

        let listed = try sessions()
        let writing = listed.first { ($0["id"] as? NSNumber)?.intValue == 1 }
        let parts = segments(writing)
        XCTAssertEqual(parts.count, 2, "\(parts)")
        let active = (writing?["active"] as? NSNumber)?.int64Value ?? 0
        XCTAssertTrue((1800 + 1200 - 120)...(1800 + 1200 + 120) ~= active, "30 min before the pause, 20 after it: \(active)")
        let email = listed.first { ($0["id"] as? NSNumber)?.intValue == 2 }
        XCTAssertTrue((300 - 120)...(300 + 120) ~= ((email?["active"] as? NSNumber)?.int64Value ?? 0))
    }

    func testAnOverlapNamesTheSessionAndPrintsTheAdjustLineThatWorks() throws {
        try ok("projects", "add", "Writing")
        try ok("projects", "add", "Email")
        try ok("add", "Email", "--start", local(3 * 3600), "--duration", "1h")
        let refused = try run("start", "Writing", "--at", "-150m")
        XCTAssertEqual(refused.status, 1, refused.stderr)
        XCTAssertEqual(refused.stdout, "")
        XCTAssertTrue(refused.stderr.contains("Email") && refused.stderr.contains("(session 1)"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("timectl start Writing --at -150m --adjust"), refused.stderr)
        XCTAssertEqual(try status()["state"] as? String, "idle", "refused: nothing started")

        let adjusted = try ok("start", "Writing", "--at", "-150m", "--adjust")
        XCTAssertTrue(adjusted.contains("; Email ended "), adjusted)
        let email = try sessions().first { ($0["id"] as? NSNumber)?.intValue == 1 }
        let active = (email?["active"] as? NSNumber)?.int64Value ?? 0
        XCTAssertTrue((1800 - 120)...(1800 + 120) ~= active, "Email keeps its half hour before the new start: \(active)")

        let never = try run("start", "Email", "--at", local(4 * 3600), "--adjust")
        XCTAssertEqual(never.status, 1, never.stderr)
        XCTAssertFalse(never.stderr.contains("--adjust\n"), "no --adjust line when adjust cannot help: \(never.stderr)")
    }

    func testEditCurrentMovesTheOpenSessionsStartAndRefusesADuration() throws {
        try ok("projects", "add", "Writing")
        try ok("start", "Writing")
        XCTAssertEqual(try ok("edit", "current", "--start", "-15m"), "Updated session 1.\n")
        let now = Int64(Date().timeIntervalSince1970)
        let start = try XCTUnwrap((try status()["session_start"] as? NSNumber)?.int64Value)
        XCTAssertTrue((now - 900 - 3)...(now - 900 + 3) ~= start, "\(start) vs \(now)")
        let duration = try run("edit", "current", "--duration", "1h")
        XCTAssertEqual(duration.status, 1)
        XCTAssertTrue(duration.stderr.contains("timectl stop --at TIME"), duration.stderr)
        try ok("edit", "1", "--note", "drafting", "--project", "Writing")
        XCTAssertEqual(try status()["note"] as? String, "drafting")
        try ok("stop")
        let idle = try run("edit", "current", "--note", "x")
        XCTAssertEqual(idle.status, 1)
        XCTAssertTrue(idle.stderr.contains("no session is open"), idle.stderr)
        XCTAssertEqual(try run("edit", "current", "--adjust").status, 2, "--adjust goes with --start")
    }

    func testSessionsTypedByHandThatOverlapAreKeptWithAWarningAndListed() throws {
        try ok("projects", "add", "Writing")
        try ok("projects", "add", "Email")
        try ok("add", "Writing", "--start", local(3 * 86_400), "--duration", "1h")
        let second = try run("add", "Email", "--start", local(3 * 86_400 - 1800), "--duration", "1h")
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stdout.hasPrefix("Added session 2"), second.stdout)
        XCTAssertTrue(second.stderr.hasPrefix("timectl: warning: session 2 (Email ") && second.stderr.contains("overlaps session 1 (Writing "),
                      second.stderr)
        try ok("add", "Email", "--start", local(2 * 86_400), "--duration", "1h")
        let listed = try ok("sessions", "--overlaps", "--from", local(4 * 86_400))
        let rows = listed.split(separator: "\n").dropFirst().map { $0.split(separator: " ").first.map(String.init) ?? "" }
        XCTAssertEqual(rows, ["1", "2"], listed)
        XCTAssertTrue(listed.contains("OVERLAPS"), listed)

        let edited = try run("edit", "3", "--start", local(3 * 86_400 - 600))
        XCTAssertEqual(edited.status, 0, edited.stderr)
        XCTAssertTrue(edited.stderr.contains("warning: session 3") && edited.stderr.contains("session 1") && edited.stderr.contains("session 2"),
                      edited.stderr)
    }

    func testBadTimesAreUsageErrorsAndTheAgentsRulesRefusals() throws {
        try ok("projects", "add", "Writing")
        let unreadable = try run("start", "Writing", "--at", "next tuesday")
        XCTAssertEqual(unreadable.status, 2)
        XCTAssertTrue(unreadable.stderr.contains("10 minutes ago"), unreadable.stderr)
        XCTAssertEqual(try run("start", "Writing", "--adjust").status, 2, "--adjust goes with --at")
        let future = try run("start", "Writing", "--at", "@\(Int64(Date().timeIntervalSince1970) + 600)")
        XCTAssertEqual(future.status, 1)
        XCTAssertTrue(future.stderr.contains("in the future"), future.stderr)
        let past = try run("start", "Writing", "--at", local(25 * 3600))
        XCTAssertEqual(past.status, 1)
        XCTAssertTrue(past.stderr.contains("'timectl add'") && past.stderr.contains("'timectl edit'"), past.stderr)
        XCTAssertEqual(try status()["state"] as? String, "idle")
        let help = try ok("start", "--help")
        XCTAssertTrue(help.contains("--at <when>") && help.contains("--adjust"), help)
    }
}
