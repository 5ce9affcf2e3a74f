import DBusKit
import Foundation
import TestSupport
import XCTest

/// timectl as people coming from Watson, Timewarrior and Hamster type it (issue 13), against the
/// real agent started by D-Bus activation on a private bus.
final class NewcomerTests: XCTestCase {
    var bus: TestBus!
    /// Wednesday 2026-11-25 12:00 in Berlin (UTC+1).
    let clock = ["TIMECTL_NOW": "1795604400"]

    override func setUpWithError() throws {
        bus = try TestBus()
    }

    override func tearDown() {
        bus?.stop()
        bus = nil
    }

    @discardableResult
    func run(_ arguments: String..., env: [String: String] = [:]) throws -> CommandResult {
        try bus.runArray(arguments, env: env)
    }

    /// Exit 0; returns stdout and stderr.
    @discardableResult
    func ok(_ arguments: String..., env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> CommandResult {
        let result = try bus.runArray(arguments, env: env)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
        return result
    }

    func projects() throws -> [[String: Any]] {
        try XCTUnwrap(try run("projects", "--all", "--json").json() as? [[String: Any]])
    }

    func categories() throws -> [String] {
        try XCTUnwrap(try run("categories", "--json").json() as? [String])
    }

    func sessions(_ arguments: String..., env: [String: String] = [:]) throws -> [[String: Any]] {
        try XCTUnwrap(try bus.runArray(["sessions", "--json"] + arguments, env: env).json() as? [[String: Any]])
    }

    // MARK: 1. start creates what is missing

    func testStartCreatesTheProjectItNames() throws {
        let email = try ok("start", "Email")
        XCTAssertEqual(email.stdout, "Started Email (session 1).\n")
        XCTAssertEqual(email.stderr, "Created project Email.\n")

        let writing = try ok("start", "Writing", "--category", "Work", "--color", "#3366CC")
        XCTAssertEqual(writing.stdout, "Started Writing (session 2).\n")
        XCTAssertEqual(writing.stderr, "Created category Work.\nCreated project Writing.\n")
        let made = try projects().first { $0["name"] as? String == "Writing" }
        XCTAssertEqual(made?["category"] as? String, "Work")
        XCTAssertEqual(made?["color"] as? String, "#3366cc")

        // An existing project (any case) is started, nothing is created or said.
        let again = try ok("start", "email")
        XCTAssertEqual(again.stdout, "Started Email (session 3).\n")
        XCTAssertEqual(again.stderr, "")

        // --no-create refuses, naming the timectl commands; "#ID" never creates a project named "#99".
        for arguments in [["start", "--no-create", "Nowhere"], ["start", "#99"]] {
            let refused = try bus.runArray(arguments, env: [:])
            XCTAssertEqual(refused.status, 1, "\(arguments): \(refused.stderr)")
            XCTAssertEqual(refused.stdout, "")
        }
        XCTAssertEqual(try projects().compactMap { $0["name"] as? String }.sorted(), ["Email", "Writing"])
        XCTAssertEqual(try categories(), ["Work"])
    }

    func testProjectsAddAndEditCreateTheirCategory() throws {
        let added = try ok("projects", "add", "Reading", "--category", "Books")
        XCTAssertEqual(added.stdout, "Created project Reading (id 1).\n")
        XCTAssertEqual(added.stderr, "Created category Books.\n")
        let edited = try ok("projects", "edit", "reading", "--category", "Fiction")
        XCTAssertEqual(edited.stderr, "Created category Fiction.\n")
        XCTAssertEqual(try projects().first?["category"] as? String, "Fiction")
        XCTAssertEqual(try ok("projects", "edit", "reading", "--category", "Books").stderr, "", "Books exists")

        // Refused: with --no-create, and when the project itself cannot be made (the category is not left behind).
        let refusals = [["projects", "add", "Other", "--category", "Nope", "--no-create"],
                        ["projects", "edit", "Reading", "--category", "Nope", "--no-create"],
                        ["projects", "add", "READING", "--category", "Extra"]]
        for arguments in refusals {
            let result = try bus.runArray(arguments, env: [:])
            XCTAssertEqual(result.status, 1, "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("Created"), result.stderr)
        }
        XCTAssertEqual(try categories(), ["Books", "Fiction"])
        XCTAssertEqual(try projects().count, 1)
    }

    // MARK: 2. add --duration ends now; --end

    func testAddWithoutStartEndsNowOrAtEnd() throws {
        try ok("projects", "add", "Writing")
        XCTAssertEqual(try ok("add", "Writing", "--duration", "1h", env: clock).stdout,
                       "Added session 1: Writing, 2026-11-25 11:00, 1h.\n")
        try ok("add", "Writing", "--end", "today 9:00", "--duration", "30m", "--note", "end", env: clock)
        try ok("add", "Writing", "--start", "yesterday 9:00", "--end", "yesterday 10:30", "--note", "span", env: clock)
        let listed = try sessions("--from", "2026-11-20", "--to", "2026-11-26", env: clock)
        let byID = Dictionary(uniqueKeysWithValues: listed.map { ($0["id"] as? Int ?? 0, $0) })
        XCTAssertEqual(byID[1]?["start"] as? Int, 1_795_600_800)
        XCTAssertEqual(byID[1]?["end"] as? Int, 1_795_604_400, "ends at the clock's now")
        XCTAssertEqual(byID[2]?["start"] as? Int, 1_795_591_800)
        XCTAssertEqual(byID[2]?["end"] as? Int, 1_795_593_600)
        XCTAssertEqual(byID[3]?["start"] as? Int, 1_795_507_200)
        XCTAssertEqual(byID[3]?["active"] as? Int, 5400)

        // On the real clock: the hour just past. The bounds are read from the clock the agent
        // reads, time(2): glibc serves it from the coarse clock, which can still say the second
        // before when Date() already says the next.
        let before = Int(time(nil))
        try ok("add", "Writing", "--duration", "1:00")
        let after = Int(time(nil))
        let newest = try XCTUnwrap(try sessions().first { $0["id"] as? Int == 4 })
        let end = try XCTUnwrap(newest["end"] as? Int)
        XCTAssertTrue((before...after).contains(end), "\(before) ≤ \(end) ≤ \(after)")
        XCTAssertEqual(newest["active"] as? Int, 3600)
    }

    // MARK: 3. relative weeks

    func testRelativeWeeks() throws {
        try ok("projects", "add", "Writing")
        try ok("add", "Writing", "--start", "2026-11-25 08:00", "--duration", "1h", env: clock)   // today
        try ok("add", "Writing", "--start", "2026-11-23 08:00", "--duration", "2h", env: clock)   // Monday
        try ok("add", "Writing", "--start", "2026-11-22 08:00", "--duration", "3h", env: clock)   // last Sunday
        try ok("add", "Writing", "--start", "2026-11-10 08:00", "--duration", "4h", env: clock)   // two weeks ago

        let weeks: [(String, String, Int)] = [("this", "2026-W48", 10800), ("-1", "2026-W47", 10800),
                                              ("last", "2026-W47", 10800), ("-2", "2026-W46", 14400),
                                              ("-0", "2026-W48", 10800), ("-3", "2026-W45", 0)]
        for (word, week, total) in weeks {
            let report = try XCTUnwrap(try run("report", word, "--json", env: clock).json() as? [String: Any])
            XCTAssertEqual(report["week"] as? String, week, word)
            XCTAssertEqual(report["total"] as? Int, total, word)
        }
        XCTAssertTrue(try ok("report", "-1", env: clock).stdout.contains("2026-W47"))

        func ids(_ flag: String) throws -> [Int] {
            try sessions(flag, env: clock).compactMap { $0["id"] as? Int }.sorted()
        }
        XCTAssertEqual(try ids("--today"), [1])
        XCTAssertEqual(try ids("--week"), [1, 2])
        XCTAssertEqual(try ids("--last-week"), [3])
    }

    // MARK: 4. the agent's errors name timectl commands

    /// Every D-Bus member a message could name.
    static let methods = ["StartProject", "Pause", "Resume", "Toggle", "Stop", "AddNote", "SetNote", "GetStatus",
                          "WeeklyReport", "ListProjects", "CreateProject", "UpdateProject", "ListCategories",
                          "AddCategory", "DeleteCategory", "ListSessions", "AddSession", "EditSession",
                          "DeleteSession", "ReminderMinutes", "PendingAway", "ResolveAway", "MarkAway", "MarkBack",
                          "Undo", "Redo", "History", "CanUndo", "Import", "Export", "WeeklyReportPNG",
                          "EnableSync", "DisableSync", "SyncFolder", "SyncState", "SyncMessage"]

    /// Runs timectl, expects a refusal naming `command`, and no D-Bus method.
    func refusedInTimectlWords(_ arguments: [String], naming command: String,
                               file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try bus.runArray(arguments, env: [:])
        XCTAssertEqual(result.status, 1, "\(arguments): \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.contains(command), "\(arguments): \(result.stderr)", file: file, line: line)
        for method in NewcomerTests.methods {
            let words = result.stderr.split { !$0.isLetter }.map(String.init)
            XCTAssertFalse(words.contains(method), "\(arguments) names \(method): \(result.stderr)", file: file, line: line)
        }
    }

    /// The agent's own message for D-Bus callers.
    func agentMessage(_ member: String, _ arguments: [DBusValue] = []) throws -> BusError {
        let client = try bus.bus.connect()
        defer { client.close() }
        do {
            _ = try client.call(destination: AgentProcess.busName, path: "/io/github/timetracker/Time1",
                                interface: "io.github.timetracker.Time1", member: member, arguments: arguments)
        } catch let error as BusError {
            return error
        }
        throw XCTSkip("\(member) did not fail")
    }

    func testNoSuchProjectNamesTimectlCommands() throws {
        try refusedInTimectlWords(["toggle"], naming: "'timectl projects add NAME'")
        try refusedInTimectlWords(["start", "--no-create", "Nowhere"], naming: "'timectl projects'")
        let raw = try agentMessage("StartProject", [.string("Nowhere")])
        XCTAssertEqual(raw.name, "io.github.timetracker.Time1.Error.NoSuchProject")
        XCTAssertTrue(raw.message.contains("ListProjects"), "D-Bus callers keep the method names: \(raw.message)")
    }

    func testNoSuchCategoryNamesTimectlCommands() throws {
        try refusedInTimectlWords(["projects", "add", "X", "--category", "Nope", "--no-create"],
                                  naming: "'timectl categories add NAME'")
        try refusedInTimectlWords(["categories", "delete", " "], naming: "'timectl categories'")
        let raw = try agentMessage("CreateProject", [.string("X"), .string(""), .string("Nope")])
        XCTAssertEqual(raw.name, "io.github.timetracker.Time1.Error.NoSuchCategory")
        XCTAssertTrue(raw.message.contains("AddCategory"), raw.message)
    }

    func testNoSuchSessionNamesTimectlCommands() throws {
        try refusedInTimectlWords(["delete", "99"], naming: "'timectl sessions'")
        try refusedInTimectlWords(["note", "--session", "99", "text"], naming: "'timectl sessions'")
        let raw = try agentMessage("DeleteSession", [.uint64(99)])
        XCTAssertEqual(raw.name, "io.github.timetracker.Time1.Error.NoSuchSession")
        XCTAssertTrue(raw.message.contains("ListSessions"), raw.message)
    }

    func testNoCurrentSessionNamesTimectlCommands() throws {
        for command in ["pause", "resume", "stop"] {
            try refusedInTimectlWords([command], naming: "'timectl start PROJECT'")
        }
        try refusedInTimectlWords(["note", "text"], naming: "'timectl start PROJECT'")
        let raw = try agentMessage("Pause")
        XCTAssertEqual(raw.name, "io.github.timetracker.Time1.Error.NoCurrentSession")
        XCTAssertTrue(raw.message.contains("StartProject"), raw.message)
    }

    func testInvalidArgumentNamesTimectlCommands() throws {
        try ok("start", "Writing")
        try refusedInTimectlWords(["delete", "1"], naming: "('timectl stop')")
        // The open session takes a new note, start or project; a duration is what stopping gives it.
        try refusedInTimectlWords(["edit", "1", "--duration", "1h"], naming: "'timectl stop --at TIME'")
        let raw = try agentMessage("DeleteSession", [.uint64(1)])
        XCTAssertEqual(raw.name, "io.github.timetracker.Time1.Error.InvalidArgument")
        XCTAssertTrue(raw.message.contains("(Stop, or timectl stop)"), raw.message)
    }

    func testNothingToUndoAndRedoNameTimectlCommands() throws {
        try refusedInTimectlWords(["undo"], naming: "'timectl history'")
        let raw = try agentMessage("Undo")
        XCTAssertEqual(raw.name, "io.github.timetracker.Time1.Error.NothingToUndo")
        XCTAssertTrue(raw.message.contains("History (timectl history)"), raw.message)
        try refusedInTimectlWords(["redo"], naming: "nothing to redo")
        XCTAssertEqual(try agentMessage("Redo").name, "io.github.timetracker.Time1.Error.NothingToRedo")
    }

    func testASyncFolderThatCannotBeWrittenNamesNoMethod() throws {
        try refusedInTimectlWords(["sync", "enable", "/proc/no-such-parent/time"], naming: "/proc/no-such-parent/time")
        let raw = try agentMessage("EnableSync", [.string("/proc/no-such-parent/time"), .string("")])
        XCTAssertEqual(raw.name, "io.github.timetracker.Time1.Error.InvalidArgument")
    }

    func testNoSuchAwayNamesNoMethod() throws {
        try refusedInTimectlWords(["away", "keep"], naming: "no away time is pending")
        try refusedInTimectlWords(["away", "discard", "7"], naming: "no away time is pending")
        let raw = try agentMessage("ResolveAway", [.uint64(7), .string("keep")])
        XCTAssertEqual(raw.name, "io.github.timetracker.Time1.Error.NoSuchAway")
    }

    // MARK: 5. one JSON style

    /// Every `,` and `:` outside strings is followed by one space, and the value is on one line.
    func assertSpacedJSON(_ text: String, _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let body = text.hasSuffix("\n") ? String(text.dropLast()) : text
        XCTAssertFalse(body.isEmpty || body.contains("\n"), "\(what): one line: \(text)", file: file, line: line)
        var inString = false, escaped = false
        let characters = Array(body)
        for (index, character) in characters.enumerated() {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "," || character == ":" {
                let next = index + 1 < characters.count ? characters[index + 1] : "\n"
                let after = index + 2 < characters.count ? characters[index + 2] : "\n"
                XCTAssertTrue(next == " " && after != " ", "\(what): '\(character)' at \(index): \(body)", file: file, line: line)
            }
        }
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(body.utf8), options: [.fragmentsAllowed]), what, file: file, line: line)
    }

    func testEveryJSONOutputHasOneStyle() throws {
        try ok("start", "Writing", "--category", "Work")
        try ok("note", "a note, with: punctuation")
        _ = try ok("stop")
        let exportedJSON = bus.bus.directory.file("export.json")
        _ = try ok("export", "json", "-o", exportedJSON)
        let outputs: [[String]] = [["status", "--json"], ["status", "--format", "json"], ["status", "--format", "waybar"],
                                   ["projects", "--json"], ["categories", "--json"], ["sessions", "--json"],
                                   ["report", "--json"], ["report", "-1", "--json"], ["history", "--json"],
                                   ["away", "--json"], ["import", "json", "--dry-run", "--json", exportedJSON]]
        for arguments in outputs {
            assertSpacedJSON(try bus.runArray(arguments, env: [:]).stdout, arguments.joined(separator: " "))
        }
        let watch = try LineReader(["watch", "--format", "json"], environment: bus.environment())
        defer { watch.stop() }
        assertSpacedJSON(try XCTUnwrap(watch.line(0, timeout: 10)), "watch --format json")
    }

    // MARK: 7. the README's quick start, exactly as typed

    func testReadmeQuickStartWorksAsTyped() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        let section = try XCTUnwrap(text.components(separatedBy: "## Quick start\n").dropFirst().first)
        let lines = section.components(separatedBy: "\n\n")[0].split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("timectl ") }
        XCTAssertGreaterThan(lines.count, 8)
        var environment = try bus.environment()
        environment["PATH"] = URL(fileURLWithPath: Products.timectl).deletingLastPathComponent().path + ":/usr/bin:/bin"
        // Files the lines write (a timesheet's -o) go to a folder of the test's, not the checkout.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quick-start-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for line in lines {
            let result = try Command.run("/bin/sh", ["-c", "cd '\(folder)' && " + line], exactEnvironment: environment, timeout: 20)
            XCTAssertEqual(result.status, 0, "\(line): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("timectl:"), "\(line): \(result.stderr)")
        }
    }
}
