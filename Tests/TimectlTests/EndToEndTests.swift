import Foundation
import TestSupport
import XCTest

/// timectl against the real time-agent, started by D-Bus activation on a private bus (on
/// dbus-broker, which activates only through systemd, by the fixture).
final class EndToEndTests: XCTestCase {
    var bus: TestBus!

    override func setUpWithError() throws {
        bus = try TestBus()
    }

    override func tearDown() {
        bus?.stop()
        bus = nil
    }

    /// Asserts the exit status and returns stdout.
    @discardableResult
    func ok(_ arguments: String..., env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let result = try bus.runArray(arguments, env: env)
        XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stderr, "", "\(arguments)", file: file, line: line)
        return result.stdout
    }

    /// Asserts a refusal (exit 1) with the agent's message on stderr.
    func refused(_ arguments: String..., containing text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try bus.runArray(arguments, env: [:])
        XCTAssertEqual(result.status, 1, "\(arguments): \(result.stdout) \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("timectl: "), result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.lowercased().contains(text.lowercased()), "\(arguments): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
    }

    func testTimerLifecycle() throws {
        // The first call activates the agent (dbus-broker's fixture started it).
        if bus.activates { XCTAssertNil(bus.agentPID()) }
        let idle = try ok("status")
        XCTAssertTrue(idle.contains("State:    idle"), idle)
        XCTAssertNotNil(bus.agentPID())

        try refused("pause", containing: "no session")
        try refused("stop", containing: "no session")
        try refused("note", "hello", containing: "no session")
        try refused("start", "--no-create", "Nowhere", containing: "Nowhere")
        try refused("toggle", containing: "project")

        try ok("projects", "add", "Writing", "--color", "#3366cc")
        XCTAssertTrue(try ok("start", "writing").contains("Started Writing"))
        var status = try ok("status")
        XCTAssertTrue(status.contains("State:    running"), status)
        XCTAssertTrue(status.contains("Project:  Writing"), status)
        XCTAssertFalse(status.contains("\u{1B}["), "no color when piped")

        try ok("note", "first", "line")
        try ok("note", "second line")
        let json = try XCTUnwrap(try bus.runArray(["status", "--json"], env: [:]).json() as? [String: Any])
        XCTAssertEqual(json["state"] as? String, "running")
        XCTAssertEqual(json["project"] as? String, "Writing")
        XCTAssertEqual(json["color"] as? String, "#3366cc")
        XCTAssertEqual(json["note"] as? String, "first line\nsecond line")
        XCTAssertGreaterThan(json["running_since"] as? Int ?? 0, 0)

        let panel = waybar(try ok("status", "--format", "waybar").trimmingCharacters(in: .newlines))
        XCTAssertEqual(panel["class"] as? String, "running")
        XCTAssertEqual(panel["alt"] as? String, "running")
        XCTAssertEqual(panel["text"] as? String, "Writing 0:00")
        XCTAssertTrue((panel["tooltip"] as? String ?? "").contains("second line"))
        XCTAssertEqual(panel["percentage"] as? Int, 0)
        XCTAssertEqual(try ok("status", "--format", "plain"), "Writing 0:00\n")

        XCTAssertEqual(try ok("pause"), "Paused.\n")
        XCTAssertEqual(try ok("pause"), "Paused.\n", "pausing twice is harmless")
        XCTAssertEqual(waybar(try ok("status", "--format", "waybar"))["class"] as? String, "paused")
        try ok("resume")
        try ok("resume")
        XCTAssertEqual(try ok("toggle"), "paused\n")
        XCTAssertEqual(try ok("toggle"), "running\n")
        XCTAssertTrue(try ok("stop").hasPrefix("Stopped session 1"))
        try refused("stop", containing: "no session")
        XCTAssertEqual(waybar(try ok("status", "--format", "waybar"))["class"] as? String, "idle")
        // Toggle from idle starts the last project.
        XCTAssertEqual(try ok("toggle"), "running\n")
        status = try ok("status", "--format", "plain")
        XCTAssertEqual(status, "Writing 0:00\n")
        // Starting another project completes the open session.
        try ok("projects", "add", "Reading")
        try ok("start", "Reading")
        let sessions = try XCTUnwrap(try bus.runArray(["sessions", "--json"], env: [:]).json() as? [[String: Any]])
        XCTAssertEqual(sessions.count, 3)
        XCTAssertEqual(sessions.filter { ($0["end"] as? Int) == 0 }.count, 1)
        try ok("note", "--session", "1", "replaced")
        try ok("stop")
        let first = try XCTUnwrap(try bus.runArray(["sessions", "--json"], env: [:]).json() as? [[String: Any]])
            .first { ($0["id"] as? Int) == 1 }
        XCTAssertEqual(first?["note"] as? String, "replaced")
    }

    func testProjectsAndCategories() throws {
        try ok("categories", "add", "Work")
        try ok("categories", "add", "Home")
        try refused("categories", "add", "work", containing: "exist")
        XCTAssertEqual(try ok("categories"), "Home\nWork\n")
        XCTAssertEqual(try bus.runArray(["categories", "--json"], env: [:]).json() as? [String], ["Home", "Work"])

        XCTAssertTrue(try ok("projects", "add", "Writing", "--color", "#3366CC", "--category", "Work").contains("id 1"))
        try ok("projects", "add", "Garden & Co", "--category", "Home")
        try refused("projects", "add", "writing", containing: "exist")
        try refused("projects", "add", "Other", "--category", "Nope", "--no-create", containing: "Nope")

        let table = try ok("projects")
        let lines = table.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, table)
        XCTAssertTrue(lines[0].hasPrefix("ID  PROJECT"), table)
        // Aligned: every column starts at the same offset.
        let offset = lines[0].range(of: "CATEGORY")!.lowerBound.utf16Offset(in: lines[0])
        for line in lines.dropFirst() {
            let index = line.index(line.startIndex, offsetBy: offset)
            XCTAssertTrue(line[index...].hasPrefix("Work") || line[index...].hasPrefix("Home"), table)
        }
        XCTAssertEqual(try ok("projects", "--names"), "Writing\nGarden & Co\n")

        let list = try XCTUnwrap(try bus.runArray(["projects", "--json"], env: [:]).json() as? [[String: Any]])
        XCTAssertEqual(list.count, 2)
        XCTAssertEqual(list[0]["name"] as? String, "Writing")
        XCTAssertEqual(list[0]["color"] as? String, "#3366cc")
        XCTAssertEqual(list[0]["category"] as? String, "Work")
        XCTAssertEqual(list[0]["archived"] as? Bool, false)

        try ok("projects", "edit", "WRITING", "--name", "Writing books", "--color", "#112233", "--category", "")
        try ok("projects", "edit", "#2", "--archive")
        XCTAssertEqual(try ok("projects", "--names"), "Writing books\n")
        XCTAssertTrue(try ok("projects", "--all").contains("Garden & Co"))
        try ok("projects", "unarchive", "garden & co")
        try ok("projects", "archive", "2")
        try ok("projects", "edit", "Garden & Co", "--unarchive")
        try refused("projects", "edit", "Nothing", "--name", "X", containing: "Nothing")
        let edited = try XCTUnwrap(try bus.runArray(["projects", "--json"], env: [:]).json() as? [[String: Any]])
        XCTAssertEqual(edited[0]["name"] as? String, "Writing books")
        XCTAssertEqual(edited[0]["color"] as? String, "#112233")
        XCTAssertEqual(edited[0]["category"] as? String, "")

        try ok("categories", "delete", "Home")
        XCTAssertEqual(try ok("categories"), "Work\n")
        let after = try XCTUnwrap(try bus.runArray(["projects", "--json"], env: [:]).json() as? [[String: Any]])
        XCTAssertEqual(after[1]["category"] as? String, "")
    }

    /// Wednesday 2026-11-25 12:00 in Berlin (UTC+1).
    static let now = 1_795_604_400

    func testSessionsWithDatesAsPeopleTypeThem() throws {
        try ok("projects", "add", "Writing", "--color", "#3366cc")
        let clock = ["TIMECTL_NOW": String(EndToEndTests.now)]
        let inputs: [(String, Int)] = [
            ("2026-11-25 09:00", 1_795_593_600),
            ("2026-11-25T09:00", 1_795_593_600),
            ("2026-11-25", 1_795_561_200),
            ("today 9:00", 1_795_593_600),
            ("09:00", 1_795_593_600),
            ("yesterday", 1_795_474_800),
            ("yesterday 14:30", 1_795_527_000),
            ("2026-03-29 03:30", 1_774_747_800),   // the first hour of summer time
        ]
        for (index, (text, start)) in inputs.enumerated() {
            let added = try bus.runArray(["add", "writing", "--start", text, "--duration", "\(index + 1)m", "--note", text], env: clock)
            XCTAssertEqual(added.status, 0, added.stderr)
            XCTAssertTrue(added.stdout.hasPrefix("Added session \(index + 1): Writing"), added.stdout)
            // Sessions typed to start at the same moment overlap: kept, with a warning naming the earlier ones.
            let earlier = inputs[..<index].enumerated().filter { $0.element.1 == start }.map { "session \($0.offset + 1) (Writing " }
            if earlier.isEmpty {
                XCTAssertEqual(added.stderr, "", text)
            } else {
                XCTAssertTrue(added.stderr.hasPrefix("timectl: warning: session \(index + 1) (Writing "), added.stderr)
                for name in earlier { XCTAssertTrue(added.stderr.contains(name), "\(text): \(added.stderr)") }
            }
        }
        let listed = try bus.runArray(["sessions", "--json", "--from", "2026-01-01", "--to", "2026-12-31"], env: clock)
        let sessions = try XCTUnwrap(try listed.json() as? [[String: Any]])
        XCTAssertEqual(sessions.count, inputs.count)
        for (text, expected) in inputs {
            let session = sessions.first { ($0["note"] as? String) == text }
            XCTAssertEqual(session?["start"] as? Int, expected, text)
        }
        // Default range: the last 7 days up to the end of today; the March session is outside.
        let recent = try XCTUnwrap(try bus.runArray(["sessions", "--json"], env: clock).json() as? [[String: Any]])
        XCTAssertEqual(recent.count, inputs.count - 1)
        // A bare day given to --to counts in full.
        let oneDay = try XCTUnwrap(try bus.runArray(["sessions", "--json", "--from", "yesterday", "--to", "yesterday"], env: clock).json() as? [[String: Any]])
        XCTAssertEqual(Set(oneDay.compactMap { $0["note"] as? String }), ["yesterday", "yesterday 14:30"])
        let table = try ok("sessions", "--project", "Writing", "--from", "yesterday", env: clock)
        XCTAssertTrue(table.contains("2026-11-24 14:30  14:37"), table)

        try ok("edit", "7", "--start", "yesterday 15:00", "--duration", "1h30m", "--note", "edited", env: clock)
        let edited = try XCTUnwrap(try bus.runArray(["sessions", "--json", "--from", "yesterday", "--to", "yesterday"], env: clock).json() as? [[String: Any]])
            .first { ($0["id"] as? Int) == 7 }
        XCTAssertEqual(edited?["start"] as? Int, 1_795_528_800)
        XCTAssertEqual(edited?["active"] as? Int, 5400)
        XCTAssertEqual(edited?["note"] as? String, "edited")

        try ok("delete", "#7")
        try refused("delete", "7", containing: "7")
        try refused("add", "Writing", "--start", "today 8:00", "--duration", "3 months", containing: "1h30m")
        try refused("add", "Nowhere", "--start", "today 8:00", "--duration", "1h", containing: "Nowhere")
        try refused("edit", "999", "--note", "x", containing: "999")
        // An open session cannot be deleted.
        try ok("start", "Writing")
        let open = try XCTUnwrap(try bus.runArray(["status", "--json"], env: [:]).json() as? [String: Any])
        let openID = try XCTUnwrap(open["session"] as? Int)
        try refused("delete", String(openID), containing: "stop")
    }

    func testReportAndReminders() throws {
        try ok("projects", "add", "Writing", "--color", "#3366cc")
        let clock = ["TIMECTL_NOW": String(EndToEndTests.now)]
        try ok("add", "Writing", "--start", "2026-11-24 09:00", "--duration", "2h", env: clock)
        try ok("add", "Writing", "--start", "2026-11-17 09:00", "--duration", "1h", env: clock)

        let text = try ok("report", "2026-W48")
        XCTAssertTrue(text.contains("2026-W48"), text)
        XCTAssertTrue(text.contains("Writing"), text)
        // A date is that day (the contract's ranges), no longer the week that holds it.
        let day = try ok("report", "2026-11-24", env: clock)
        XCTAssertTrue(day.hasPrefix("Report 2026-11-24: 2026-11-24 to 2026-11-24 (Europe/Berlin)"), day)
        XCTAssertTrue(day.contains("2:00"), day)
        for week in ["2026-W48", "2026-w48", "this"] {
            let report = try XCTUnwrap(try bus.runArray(["report", week, "--json"], env: clock).json() as? [String: Any])
            XCTAssertEqual(report["week"] as? String, "2026-W48", week)
            XCTAssertEqual(report["total"] as? Int, 7200, week)
            XCTAssertEqual(report["timezone"] as? String, "Europe/Berlin")
        }
        let last = try XCTUnwrap(try bus.runArray(["report", "last", "--json"], env: clock).json() as? [String: Any])
        XCTAssertEqual(last["week"] as? String, "2026-W47")
        XCTAssertEqual(last["total"] as? Int, 3600)

        XCTAssertEqual(try ok("reminders"), "Reminders every 60 minutes of active time.\n")
        XCTAssertEqual(try ok("reminders", "25"), "Reminders every 25 minutes of active time.\n")
        XCTAssertEqual(try ok("reminders"), "Reminders every 25 minutes of active time.\n")
        XCTAssertEqual(try ok("reminders", "off"), "Reminders are off.\n")
        try ok("start", "Writing")
        XCTAssertNil(waybar(try ok("status", "--format", "waybar"))["percentage"], "no reminder, no percentage")
    }

    /// Colors only on a terminal, never with NO_COLOR; waybar text is escaped Pango markup.
    func testColorAndEscaping() throws {
        try ok("projects", "add", "Garden & <Co>", "--color", "#3366cc")
        try ok("start", "Garden & <Co>")
        let escape = "\u{1B}[38;2;51;102;204m"
        XCTAssertFalse(try ok("projects").contains("\u{1B}"))
        func onTerminal(_ env: [String: String]) throws -> String {
            let command = "'\(Products.timectl)' projects"
            return try Command.run("/usr/bin/script", ["-qec", command, "/dev/null"], exactEnvironment: bus.environment(env), timeout: 20).stdout
        }
        XCTAssertTrue(try onTerminal([:]).contains(escape + "Garden & <Co>"))
        XCTAssertFalse(try onTerminal(["NO_COLOR": "1"]).contains("\u{1B}["))

        let panel = waybar(try ok("status", "--format", "waybar"))
        XCTAssertEqual(panel["text"] as? String, "Garden &amp; &lt;Co&gt; 0:00")
        let plain = try ok("status", "--format", "plain")
        XCTAssertEqual(plain, "Garden & <Co> 0:00\n")
    }
}

/// The bash completion, with project names from the agent (`timectl projects --names`).
final class CompletionTests: XCTestCase {
    func testBashCompletion() throws {
        let bus = try TestBus()
        defer { bus.stop() }
        for name in ["Writing", "Writing book", "Garden"] {
            XCTAssertEqual(try bus.runArray(["projects", "add", name], env: [:]).status, 0)
        }
        XCTAssertEqual(try bus.runArray(["categories", "add", "Work"], env: [:]).status, 0)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("completions/timectl.bash").path

        func complete(_ words: String...) throws -> [String] {
            let quoted = words.map { "'\($0)'" }.joined(separator: " ")
            let program = "source '\(script)'; COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1); _timectl; printf '%s\\n' \"${COMPREPLY[@]}\""
            var environment = try bus.environment()
            environment["PATH"] = Products.directory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
            let result = try Command.run("/bin/bash", ["--norc", "-c", program], exactEnvironment: environment, timeout: 20)
            XCTAssertEqual(result.status, 0, result.stderr)
            return result.stdout.split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(try complete("timectl", "st"), ["start", "stop", "status"])
        XCTAssertEqual(try complete("timectl", "start", "wr"), ["Writing", "Writing\\ book"])
        XCTAssertEqual(try complete("timectl", "start", ""), ["Writing", "Writing\\ book", "Garden"])
        XCTAssertEqual(try complete("timectl", "projects", "ed"), ["edit"])
        XCTAssertEqual(try complete("timectl", "projects", "edit", "G"), ["Garden"])
        XCTAssertEqual(try complete("timectl", "projects", "add", "X", "--category", ""), ["Work"])
        XCTAssertEqual(try complete("timectl", "sessions", "--project", "Ga"), ["Garden"])
        XCTAssertEqual(try complete("timectl", "add", "Garden", "--d"), ["--duration"])
        XCTAssertEqual(try complete("timectl", "watch", "--format", ""), ["waybar", "json", "plain"])
        XCTAssertEqual(try complete("timectl", "status", "--"), ["--format", "--json", "--help"])
        XCTAssertEqual(try complete("timectl", "start", "X", "--"), ["--category", "--color", "--no-create", "--at", "--adjust", "--help"])
        XCTAssertEqual(try complete("timectl", "stop", "--"), ["--at", "--help"])
        XCTAssertEqual(try complete("timectl", "edit", "cu"), ["current"])
        XCTAssertEqual(try complete("timectl", "sessions", "--o"), ["--overlaps"])
        XCTAssertEqual(try complete("timectl", "sessions", "--l"), ["--last-week"])
        XCTAssertEqual(try complete("timectl", "add", "Garden", "--e"), ["--end"])
        XCTAssertEqual(try complete("timectl", "report", "-"), ["--json", "--csv", "--timesheet", "--output", "-o", "--svg", "--png", "--month",
                                                                "--last-month", "--year", "--from", "--to", "--by", "--columns", "--project",
                                                                "--tag", "--round", "--round-mode", "--decimal", "--help", "-1", "-2"])
        XCTAssertEqual(try complete("timectl", "report", "--by", ""), ["project", "category", "tag"])
        XCTAssertEqual(try complete("timectl", "report", "--round-mode", "n"), ["nearest"])
        XCTAssertEqual(try complete("timectl", "report", "la"), ["last", "last-month"])
        XCTAssertEqual(try complete("timectl", "project", ""), ["set"])
        XCTAssertEqual(try complete("timectl", "project", "set", "Ga"), ["Garden"])
        XCTAssertEqual(try complete("timectl", "project", "set", "Garden", "--"), ["--rate", "--target", "--help"])
        XCTAssertEqual(try complete("timectl", "reminders", "u"), ["untracked"])
        XCTAssertEqual(try complete("timectl", "cu"), ["currency"])
        XCTAssertEqual(try complete("timectl", "focus", "s"), ["stop", "skip", "status", "set"])
        XCTAssertEqual(try complete("timectl", "focus", "G"), ["Garden"])
        XCTAssertEqual(try complete("timectl", "focus", "set", "--no"), ["--no-auto", "--no-pause-in-breaks"])
        XCTAssertEqual(try complete("timectl", "focus", "extend", ""), ["5m", "10m", "15m"])
    }

    /// Completes a command line in a real interactive zsh, run in a pseudo-terminal by zsh's own
    /// zpty module, and prints the candidates its completion system offers, one per line.
    static let zshCompletionDriver = #"""
    zmodload zsh/zpty || exit 2
    dir=$1 line=$2
    export TERM=xterm
    # Seen when the line editor starts reading a line (it turns bracketed paste on); input typed
    # before that would be read as typeahead and not completed.
    editing=$'\e''\[\?2004h*'
    zpty t zsh -f -i
    zpty -w t "PS1='' RPROMPT=''; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
    # Every candidate goes through compadd: report it, then add it as asked.
    zpty -w t 'compadd() { local -a found; builtin compadd -O found "$@"; (( $#found )) && print -rl -- "${(@)found/#/MATCH:}"; builtin compadd "$@"; }'
    zpty -w t "zstyle ':completion:*' list-prompt ''; zstyle ':completion:*' menu no"
    zpty -w t "print -r -- RE''ADY"
    zpty -r -m t out "*READY*$editing" || exit 3
    # TAB completes; Ctrl-U clears the line (no signal); the marker ends the output.
    zpty -w -n t "$line"$'\t'$'\x15'
    zpty -w t "print -r -- DO''NE"
    zpty -r -m t out "*DONE*" || exit 4
    print -r -- "$out" | tr -d '\r' | grep -ao 'MATCH:.*' | sed 's/^MATCH://' | sort -u
    zpty -d t
    """#

    /// The fish and zsh completions, each driven by its shell, with project names from the agent.
    func testFishAndZshCompletions() throws {
        let bus = try TestBus()
        defer { bus.stop() }
        for name in ["Writing", "Writing book", "Garden"] {
            XCTAssertEqual(try bus.runArray(["projects", "add", name], env: [:]).status, 0)
        }
        let completions = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("completions").path
        var environment = try bus.environment()
        environment["PATH"] = Products.directory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        environment["HOME"] = NSTemporaryDirectory()

        func fish(_ line: String) throws -> [String] {
            let program = "source '\(completions)/timectl.fish'; complete -C'\(line)'"
            let result = try Command.run("fish", ["--no-config", "-c", program], exactEnvironment: environment, timeout: 20)
            XCTAssertEqual(result.status, 0, result.stderr)
            // fish prints "candidate<TAB>description".
            return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
        }
        XCTAssertEqual(try fish("timectl st").sorted(), ["start", "status", "stop"])
        XCTAssertEqual(try fish("timectl start ").sorted(), ["Garden", "Writing", "Writing book"])
        XCTAssertEqual(try fish("timectl watch --format ").sorted(), ["json", "plain", "waybar"])
        XCTAssertEqual(try fish("timectl start Garden --no"), ["--no-create"])
        XCTAssertEqual(try fish("timectl pause --a"), ["--at"])
        XCTAssertEqual(try fish("timectl start Garden --ad"), ["--adjust"])
        XCTAssertEqual(try fish("timectl sessions --l"), ["--last-week"])
        XCTAssertEqual(try fish("timectl report --ro").sorted(), ["--round", "--round-mode"])
        XCTAssertEqual(try fish("timectl report --by ").sorted(), ["category", "project", "tag"])
        XCTAssertEqual(try fish("timectl project set Garden --r"), ["--rate"])
        XCTAssertEqual(try fish("timectl focus s").sorted(), ["set", "skip", "status", "stop"])
        XCTAssertEqual(try fish("timectl focus set --no").sorted(), ["--no-auto", "--no-pause-in-breaks"])

        let syntax = try Command.run("zsh", ["-n", completions + "/_timectl"], exactEnvironment: environment, timeout: 20)
        XCTAssertEqual(syntax.status, 0, syntax.stderr)
        let driver = NSTemporaryDirectory() + "/timectl-zsh-complete-\(getpid()).zsh"
        try Self.zshCompletionDriver.write(toFile: driver, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: driver) }
        func zsh(_ line: String) throws -> [String] {
            let result = try Command.run("zsh", ["-f", driver, completions, line], exactEnvironment: environment, timeout: 30)
            XCTAssertEqual(result.status, 0, "zsh completing \(line): \(result.stderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
        XCTAssertEqual(try zsh("timectl st"), ["start", "status", "stop"])
        XCTAssertEqual(try zsh("timectl start "), ["Garden", "Writing", "Writing book"])
        XCTAssertEqual(try zsh("timectl projects ed"), ["edit"])
        XCTAssertEqual(try zsh("timectl watch --format "), ["json", "plain", "waybar"])
        XCTAssertEqual(try zsh("timectl status --"), ["--format", "--help", "--json"])
        XCTAssertEqual(try zsh("timectl start Garden --no"), ["--no-create"])
        XCTAssertEqual(try zsh("timectl stop --"), ["--at", "--help"])
        XCTAssertEqual(try zsh("timectl sessions --o"), ["--overlaps"])
        XCTAssertEqual(try zsh("timectl sessions --l"), ["--last-week"])
        XCTAssertEqual(try zsh("timectl cu"), ["currency"])
        XCTAssertEqual(try zsh("timectl report --by "), ["category", "project", "tag"])
        XCTAssertEqual(try zsh("timectl focus s"), ["set", "skip", "status", "stop"])
        XCTAssertEqual(try zsh("timectl focus set --no"), ["--no-auto", "--no-pause-in-breaks"])
    }
}

extension TestBus {
    func runArray(_ arguments: [String], env: [String: String]) throws -> CommandResult {
        try Command.run(Products.timectl, arguments, exactEnvironment: environment(env), timeout: 20)
    }
}
