import DBusKit
import Foundation
import TestSupport
import XCTest

/// Hostile and odd arguments: wrong signatures, wrong variant types, unknown keys, extreme
/// times and ids, huge and strange strings. The agent answers each with the right error and
/// never dies.
final class ArgumentTests: XCTestCase {
    var agent: AgentHarness!

    override func setUpWithError() throws {
        agent = try AgentHarness()
    }

    override func tearDown() {
        agent?.assertAlive("at the end of the test")
        agent?.tearDown()
    }

    func testWrongSignaturesAreInvalidArgs() throws {
        let wrong: [(String, [DBusValue])] = [
            ("StartProject", []), ("StartProject", [.int32(3)]), ("StartProject", [.string("a"), .string("b")]),
            ("Pause", [.string("now")]), ("Toggle", [.bool(true)]), ("AddNote", [.uint64(1)]),
            ("SetNote", [.string("1"), .string("x")]), ("SetNote", [.int64(1), .string("x")]),
            ("CreateProject", [.string("x"), .string("")]), ("CreateProject", [.string("x"), .string(""), .int32(0)]),
            ("UpdateProject", [.uint64(1), .dictionary(keySignature: "s", valueSignature: "s", [(.string("name"), .string("x"))])]),
            ("UpdateProject", [.uint64(1)]),
            ("ListSessions", [.uint64(0), .uint64(0), .uint64(1)]), ("ListSessions", [.int64(0), .int64(0), .int64(1)]),
            ("AddSession", [.uint64(1), .int64(0), .string("1h")]),
            ("AddSession", [.uint64(1), .int32(0), .string("1h"), .string("")]),
            ("EditSession", [.uint64(1), .array(elementSignature: "s", [])]),
            ("DeleteSession", [.int32(1)]), ("WeeklyReport", [.string("")]), ("ShowWeeklyReport", [.int32(48)]),
            ("GetStatus", [.string("all")]), ("ListProjects", [.uint64(0)]),
        ]
        for (method, arguments) in wrong {
            let message = assertBusError(BusError.invalidArgs, "\(method)(\(DBusValue.signature(of: arguments)))") {
                try agent.call(method, arguments)
            }
            XCTAssertTrue(message?.contains(method) == true, "the message names the method: \(message ?? "")")
        }
        assertBusError(BusError.unknownMethod, "a method that does not exist") { try agent.call("Start", [.string("x")]) }
        XCTAssertEqual(try agent.state(), "idle")
    }

    func testUnknownKeysAndWrongVariantTypesInChangesAreInvalidArgument() throws {
        let project = try agent.createProject("Writing")
        let session = try XCTUnwrap(try agent.call("AddSession", [.uint64(project), .int64(unixNow() - 86_400), .string("1h"), .string("")]).first?.uint64Value)
        let refusedProjectChanges: [[String: DBusValue]] = [
            ["colour": .string("#000000")], ["Name": .string("x")], ["": .string("x")],
            ["name": .int32(1)], ["name": .array(elementSignature: "s", [.string("x")])], ["color": .uint32(0x336699)],
            ["category": .bool(false)], ["archived": .string("true")], ["archived": .int32(1)],
            ["name": .string("Fine"), "extra": .bool(true)],
        ]
        for changes in refusedProjectChanges {
            assertBusError(ContractError.invalidArgument, "UpdateProject \(changes)") {
                try agent.call("UpdateProject", [.uint64(project), .vardict(changes)])
            }
        }
        let refusedSessionChanges: [[String: DBusValue]] = [
            ["end": .int64(0)], ["project": .int64(Int64(project))], ["project": .string("Writing")],
            ["start": .uint64(1_700_000_000)], ["start": .int32(0)], ["duration": .uint64(60)], ["note": .int32(0)],
        ]
        for changes in refusedSessionChanges {
            assertBusError(ContractError.invalidArgument, "EditSession \(changes)") {
                try agent.call("EditSession", [.uint64(session), .vardict(changes)])
            }
        }
        XCTAssertEqual(try agent.projects().first?["name"], .string("Writing"), "nothing of a refused change was applied")
        XCTAssertEqual(try agent.sessions().first?["active"], .uint64(3600))
        // An empty change set is accepted and changes nothing.
        try agent.call("UpdateProject", [.uint64(project), .vardict([:])])
        try agent.call("EditSession", [.uint64(session), .vardict([:])])
    }

    func testExtremeTimesAndIds() throws {
        let project = try agent.createProject("Writing")
        for start in [Int64.min, -1, Int64.max, Int64.max - 3600, 253_402_300_800] {
            assertBusError(ContractError.invalidArgument, "AddSession at \(start)") {
                try agent.call("AddSession", [.uint64(project), .int64(start), .string("1h"), .string("")])
            }
        }
        assertBusError(ContractError.invalidArgument, "a session ending in the future") {
            try agent.call("AddSession", [.uint64(project), .int64(unixNow() - 60), .string("1h"), .string("")])
        }
        let session = try XCTUnwrap(try agent.call("AddSession", [.uint64(project), .int64(0), .string("1h"), .string("at the epoch")]).first?.uint64Value)
        for start in [Int64.min, Int64.max, -3600] {
            assertBusError(ContractError.invalidArgument, "EditSession start \(start)") {
                try agent.call("EditSession", [.uint64(session), .vardict(["start": .int64(start)])])
            }
        }
        XCTAssertEqual(try agent.sessions(from: Int64.min, to: Int64.max).count, 1)
        XCTAssertEqual(try agent.sessions(from: Int64.max, to: Int64.max).count, 0)
        XCTAssertEqual(try agent.sessions(from: Int64.min, to: Int64.min).count, 0)
        assertBusError(ContractError.invalidArgument, "a reversed range") { try agent.sessions(from: Int64.max, to: Int64.min) }

        for id in [UInt64.max, UInt64(Int64.max) + 1, UInt64(Int64.max), 1 << 40] {
            for (method, arguments) in [("SetNote", [DBusValue.uint64(id), .string("x")]), ("DeleteSession", [.uint64(id)]),
                                        ("EditSession", [.uint64(id), .vardict(["note": .string("x")])])] {
                assertBusError(ContractError.noSuchSession, "\(method) of session \(id)") { try agent.call(method, arguments) }
            }
            assertBusError(ContractError.noSuchProject, "UpdateProject \(id)") {
                try agent.call("UpdateProject", [.uint64(id), .vardict(["name": .string("x")])])
            }
            assertBusError(ContractError.noSuchProject, "AddSession to project \(id)") {
                try agent.call("AddSession", [.uint64(id), .int64(1_700_000_000), .string("1h"), .string("")])
            }
            assertBusError(ContractError.noSuchProject, "ListSessions of project \(id)") { try agent.sessions(project: id) }
            assertBusError(ContractError.noSuchProject, "EditSession to project \(id)") {
                try agent.call("EditSession", [.uint64(session), .vardict(["project": .uint64(id)])])
            }
            assertBusError(ContractError.noSuchProject, "StartProject #\(id)") { try agent.start("#\(id)") }
        }
        assertBusError(ContractError.noSuchProject, "StartProject #-1") { try agent.start("#-1") }
        assertBusError(ContractError.noSuchSession, "session 0") { try agent.call("DeleteSession", [.uint64(0)]) }
        XCTAssertEqual(try agent.sessions().first?["note"], .string("at the epoch"))
    }

    func testHugeStringsAreRefusedWithShortMessages() throws {
        let mebibyte = String(repeating: "x", count: 1 << 20)
        let project = try agent.createProject("Writing")
        let cases: [(String, [DBusValue], String)] = [
            ("StartProject", [.string(mebibyte)], ContractError.noSuchProject),
            ("CreateProject", [.string(mebibyte), .string(""), .string("")], ContractError.invalidArgument),
            ("CreateProject", [.string("ok"), .string(mebibyte), .string("")], ContractError.invalidArgument),
            ("CreateProject", [.string("ok"), .string(""), .string(mebibyte)], ContractError.noSuchCategory),
            ("AddCategory", [.string(mebibyte)], ContractError.invalidArgument),
            ("UpdateProject", [.uint64(project), .vardict([mebibyte: .string("x")])], ContractError.invalidArgument),
            ("AddSession", [.uint64(project), .int64(1_700_000_000), .string(mebibyte), .string("")], ContractError.invalidArgument),
            ("AddSession", [.uint64(project), .int64(1_700_000_000), .string("1h"), .string(mebibyte)], ContractError.invalidArgument),
            ("WeeklyReport", [.string(mebibyte), .string("text")], ContractError.invalidArgument),
            ("WeeklyReport", [.string(""), .string(mebibyte)], ContractError.invalidArgument),
        ]
        for (method, arguments, error) in cases {
            let message = assertBusError(error, "\(method) with a 1 MiB string") { try agent.call(method, arguments) }
            XCTAssertLessThan(message?.utf8.count ?? 0, 2_000, "\(method): the message does not echo the whole string")
        }
        try agent.start("Writing")
        assertBusError(ContractError.invalidArgument, "AddNote of 1 MiB") { try agent.call("AddNote", [.string(mebibyte)]) }
        let session = try XCTUnwrap(try agent.property("SessionId").uint64Value)
        assertBusError(ContractError.invalidArgument, "SetNote of 1 MiB") { try agent.call("SetNote", [.uint64(session), .string(mebibyte)]) }
        let limit = String(repeating: "n", count: 64 * 1024)
        try agent.call("SetNote", [.uint64(session), .string(limit)])
        XCTAssertEqual(try agent.property("Note"), .string(limit), "a 64 KiB note is accepted whole")
        XCTAssertEqual(try agent.projects().count, 1)
    }

    func testControlCharactersAndUnicodeNamesRoundTrip() throws {
        for bad in ["a\nb", "tab\there", "bell\u{7}", "\u{1b}[31mred", "del\u{7f}", "c1\u{85}x", "   ", ""] {
            assertBusError(ContractError.invalidArgument, "CreateProject \(bad.debugDescription)") { try agent.createProject(bad) }
            assertBusError(ContractError.invalidArgument, "AddCategory \(bad.debugDescription)") { try agent.call("AddCategory", [.string(bad)]) }
        }
        XCTAssertEqual(try agent.projects().count, 0)

        let names = ["مشروع الكتابة", "עברית ‏ניסוי", "👩‍💻 Code 🚀", "e\u{301}criture", "日本語のプロジェクト", "Ωmega ‮reversed", "🇫🇷"]
        try agent.call("AddCategory", [.string("Catégorie ✨")])
        var ids: [UInt64] = []
        for name in names { ids.append(try agent.createProject(name, category: "catégorie ✨")) }
        let listed = try agent.projects()
        XCTAssertEqual(listed.map { $0["name"]?.stringValue ?? "" }, names, "names come back exactly as given")
        XCTAssertTrue(listed.allSatisfy { $0["category"] == .string("Catégorie ✨") })
        for (index, name) in names.enumerated() {
            XCTAssertEqual(try agent.start(name), try agent.property("SessionId").uint64Value)
            XCTAssertEqual(try agent.property("Project"), .string(name))
            XCTAssertEqual(try agent.status()["project_id"], .uint64(ids[index]))
        }
        XCTAssertEqual(try agent.property("LastProject"), .string(names.last!))

        try agent.call("AddNote", [.string("  first\tline with a bell\u{7} and\u{0}?".replacingOccurrences(of: "\u{0}", with: ""))])
        try agent.call("AddNote", [.string("windows\r\nline")])
        try agent.call("AddNote", [.string("مرحبا 👋")])
        XCTAssertEqual(try agent.property("Note"), .string("first line with a bell and?\nwindows\nline\nمرحبا 👋"),
                       "control characters are dropped, tabs become spaces, line breaks are unified")
        try agent.restart()
        XCTAssertEqual(try agent.projects().map { $0["name"]?.stringValue ?? "" }, names, "and survive a restart")
        XCTAssertEqual(try agent.property("Note").stringValue?.hasSuffix("مرحبا 👋"), true)
    }

    func testWrongTypesFromTheCommandLineToolsAreInvalidArgsAndTheAgentLives() throws {
        let busctl = try Command.run("busctl", ["--user", "call", AgentProcess.busName, AgentProcess.path, AgentProcess.interface,
                                                "StartProject", "i", "3"], environment: agent.bus.environment)
        XCTAssertNotEqual(busctl.status, 0)
        XCTAssertTrue(busctl.stderr.contains("expected signature 's'"), busctl.stderr)
        // gdbus checks types against the introspection data before sending; dbus-send does not.
        let dbusSend = try Command.run("dbus-send", ["--session", "--print-reply", "--dest=" + AgentProcess.busName, AgentProcess.path,
                                                     AgentProcess.interface + ".DeleteSession", "string:seven"],
                                       environment: agent.bus.environment)
        XCTAssertNotEqual(dbusSend.status, 0)
        XCTAssertTrue(dbusSend.stderr.contains("org.freedesktop.DBus.Error.InvalidArgs"), dbusSend.stderr)
        let missing = try Command.run("busctl", ["--user", "call", AgentProcess.busName, AgentProcess.path, AgentProcess.interface,
                                                 "AddSession", "tx", "1", "2"], environment: agent.bus.environment)
        XCTAssertNotEqual(missing.status, 0)
        XCTAssertTrue(missing.stderr.contains("expected signature 'txss'"), missing.stderr)
    }
}
