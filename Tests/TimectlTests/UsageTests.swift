import Foundation
import TestSupport
import XCTest

/// What needs no agent: help, version, usage errors (exit 2), no agent (exit 3).
final class UsageTests: XCTestCase {
    /// Nothing answers here: a usage error must be found before any bus is touched.
    let noBus = ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/timectl-test-bus", "TZ": "Europe/Berlin"]

    func timectl(_ arguments: [String], env: [String: String]? = nil) throws -> CommandResult {
        try Command.run(Products.timectl, arguments, environment: env ?? noBus, timeout: 20)
    }

    static let commandPaths = [
        [], ["start"], ["pause"], ["resume"], ["toggle"], ["stop"], ["note"], ["status"], ["report"],
        ["projects"], ["projects", "add"], ["projects", "edit"], ["projects", "archive"], ["projects", "unarchive"],
        ["categories"], ["categories", "add"], ["categories", "delete"], ["sessions"], ["add"], ["edit"],
        ["delete"], ["reminders"], ["undo"], ["redo"], ["history"], ["watch"], ["help"],
        ["project"], ["project", "set"], ["projects", "set"], ["currency"], ["target"], ["reminders", "untracked"],
    ]

    func testHelpOnEveryCommand() throws {
        try Binaries.check()
        for path in UsageTests.commandPaths {
            let result = try timectl(path + ["--help"])
            XCTAssertEqual(result.status, 0, "\(path)")
            XCTAssertTrue(result.stdout.contains("USAGE: " + (["timectl"] + path).joined(separator: " ")), "\(path): \(result.stdout)")
            XCTAssertTrue(result.stdout.contains("OVERVIEW: "), "\(path)")
            XCTAssertEqual(result.stderr, "")
            // `timectl help PATH` says the same.
            let viaHelp = try timectl(["help"] + path)
            XCTAssertEqual(viaHelp.status, 0)
            XCTAssertEqual(viaHelp.stdout, result.stdout, "\(path)")
        }
        // -h after arguments and options still shows help.
        let late = try timectl(["projects", "add", "Writing", "--color", "#123456", "-h"])
        XCTAssertEqual(late.status, 0)
        XCTAssertTrue(late.stdout.contains("--category <category>"))
        // Options are documented next to their help text.
        let add = try timectl(["add", "--help"])
        XCTAssertTrue(add.stdout.contains("--duration <duration>"))
        XCTAssertTrue(add.stdout.contains("1h30m"))
    }

    func testVersion() throws {
        try Binaries.check()
        for flag in ["--version", "-V"] {
            let result = try timectl([flag])
            XCTAssertEqual(result.status, 0)
            XCTAssertTrue(result.stdout.hasPrefix("timectl "), result.stdout)
        }
    }

    func testUsageErrorsExitTwoWithHint() throws {
        try Binaries.check()
        let cases: [([String], String)] = [
            ([], "missing command"),
            (["frobnicate"], "unknown command 'frobnicate'"),
            (["status", "--bogus"], "unknown option '--bogus'"),
            (["status", "--format", "xml"], "unknown format 'xml'"),
            (["status", "--format"], "needs a value"),
            (["watch", "--format", "html"], "unknown format 'html'"),
            (["start"], "missing argument <project>"),
            (["pause", "now"], "unexpected argument 'now'"),
            (["note"], "missing argument <text>"),
            (["note", "--session", "abc", "text"], "session id"),
            (["projects", "frob"], "unknown command 'frob'"),
            (["projects", "add", "X", "--color", "blue"], "#rrggbb"),
            (["projects", "edit", "X"], "nothing to change"),
            (["projects", "edit", "X", "--archive", "--unarchive"], "exclude each other"),
            (["projects", "--json", "--names"], "exclude each other"),
            (["categories", "add"], "missing argument <name>"),
            (["add", "Writing", "--start", "today 9:00", "--end", "today 10:00", "--duration", "1h"], "not all three"),
            (["add", "Writing", "--start", "today 9:00"], "--duration is required"),
            (["add", "Writing", "--duration", "soon"], "1h30m, 1:30"),
            (["add", "Writing", "--start", "today 10:00", "--end", "today 9:00"], "--end must come after --start"),
            (["add", "Writing", "--end", "someday", "--duration", "1h"], "cannot read 'someday' as a date (--end)"),
            (["start", "Writing", "--color", "red"], "#rrggbb"),
            (["sessions", "--today", "--week"], "exclude each other"),
            (["sessions", "--last-week", "--from", "today"], "exclude each other"),
            (["add", "Writing", "--start", "31.12.2026", "--duration", "1h"], "cannot read '31.12.2026' as a date"),
            (["add", "Writing", "--start", "2026-02-30", "--duration", "1h"], "cannot read '2026-02-30'"),
            (["add", "Writing", "--start", "25:00", "--duration", "1h"], "cannot read '25:00'"),
            (["sessions", "--from", "2026-11-25", "--to", "2026-11-20"], "--from must come before --to"),
            (["edit", "12"], "nothing to change"),
            (["edit", "x", "--note", "n"], "session id"),
            (["delete"], "missing argument <session>"),
            (["reminders", "often"], "minutes or 'off'"),
            (["report", "someday"], "as a range"),
            (["report", "--json", "--csv"], "exclude each other"),
            (["report", "2026-11", "--month"], "give one range"),
            (["report", "--to", "2026-11-02"], "--to needs --from"),
            (["report", "--from", "2026-11-05", "--to", "2026-11-02"], "--from must not come after --to"),
            (["report", "--by", "client"], "project, category or tag"),
            (["report", "--round", "soon"], "--round takes a duration"),
            (["report", "--round-mode", "up"], "--round-mode needs --round"),
            (["project", "set", "Writing"], "give --rate or --target"),
            (["project", "set", "Writing", "--target", "200h"], "up to 168h"),
            (["currency", "euro"], "three letters"),
            (["target", "lots"], "duration per week"),
            (["reminders", "untracked", "often"], "minutes up to 1440"),
            (["report", "-1x"], "unknown option '-1x'"),
            (["help", "frob"], "unknown command 'frob'"),
            (["--json"], "unknown option '--json'"),
        ]
        for (arguments, message) in cases {
            let result = try timectl(arguments)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertEqual(result.stdout, "", "\(arguments)")
            XCTAssertTrue(result.stderr.hasPrefix("timectl: "), "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("--help"), "\(arguments): \(result.stderr)")
        }
    }

    func testNoBusExitsThree() throws {
        try Binaries.check()
        for arguments in [["status"], ["toggle"], ["projects", "--names"], ["watch"]] {
            let result = try timectl(arguments)
            XCTAssertEqual(result.status, 3, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("systemctl --user start time-agent"), result.stderr)
            XCTAssertTrue(result.stderr.contains("scripts/run.sh"), result.stderr)
        }
    }

    /// A bus where nobody owns the name and nothing can be activated: ServiceUnknown → 3.
    func testEmptyBusExitsThree() throws {
        let bus = try TestBus(activation: false)
        defer { bus.stop() }
        for arguments in [["status"], ["start", "Writing"], ["pause"], ["status", "--format", "waybar"], ["reminders", "30"]] {
            let result = try Command.run(Products.timectl, arguments, exactEnvironment: bus.environment(), timeout: 20)
            XCTAssertEqual(result.status, 3, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("timectl: cannot reach time-agent"), result.stderr)
            XCTAssertTrue(result.stderr.contains("systemctl --user start time-agent"), result.stderr)
        }
    }

    /// watch on a bus without an agent does not exit: it shows "offline" and waits for the agent.
    func testWatchWithoutAgentShowsOffline() throws {
        let bus = try TestBus(activation: false)
        defer { bus.stop() }
        let watch = try LineReader(["watch"], environment: bus.environment())
        defer { watch.stop() }
        let first = waybar(watch.line(0, timeout: 5))
        XCTAssertEqual(first["class"] as? String, "offline")
        XCTAssertEqual(first["alt"] as? String, "offline")
        XCTAssertTrue((first["tooltip"] as? String ?? "").contains("systemctl --user start time-agent"))
        usleep(300_000)
        XCTAssertTrue(watch.process.isRunning)
        XCTAssertEqual(watch.lines.count, 1)
    }
}
