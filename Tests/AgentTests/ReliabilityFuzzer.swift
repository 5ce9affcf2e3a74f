import DBusKit
import Foundation
import TestSupport
import TimeCore
import XCTest

/// The D-Bus fuzzer of the reliability suite: calls every method of the interface (as the
/// checked-in introspection XML lists them, so new methods are fuzzed without changes here) and
/// Properties.Get/Set of every property with random and boundary values built from the
/// signatures, and now and then with wrong signatures altogether.
///
/// Every reply must be a success or an error named in `AllowedErrors`; a success must round-trip
/// (what was created or changed reads back as the contract says); the agent must never die; the
/// store is checked with `PRAGMA integrity_check` every so often with the agent stopped.
struct Fuzzer {
    let interface: InterfaceDescription
    let harness: AgentHarness
    let total: Int
    var generator: SeededGenerator

    private(set) var calls = 0
    private(set) var successes = 0
    private(set) var namedErrors = 0
    private(set) var roundTrips = 0
    private(set) var deaths = 0
    private(set) var integrityChecks = 0
    private(set) var unsendable = 0
    private(set) var failures: [String] = []
    private(set) var roundTripFailures: [String] = []
    private(set) var integrityFailures: [String] = []
    private(set) var methodsCalled: Set<String> = []

    // What exists, refreshed from the agent now and then, so ids and names hit real records.
    private var projects: [(id: UInt64, name: String)] = []
    private var sessions: [UInt64] = []
    private var categories: [String] = []
    private let now = unixNow()

    init(calls: Int, generator: SeededGenerator) throws {
        interface = try InterfaceDescription.load()
        total = calls
        self.generator = generator
        harness = try AgentHarness()
    }

    func tearDown() { harness.tearDown() }

    private var client: BusConnection { harness.client }

    mutating func run() throws {
        // A little real data, so ids, names and categories exist to be hit.
        try harness.call("AddCategory", [.string("Work")])
        try harness.createProject("Writing", category: "Work")
        try harness.createProject("Écriture")
        let writing = try XCTUnwrap(harness.projects().first?["id"]?.uint64Value)
        try harness.call("AddSession", [.uint64(writing), .int64(now - 86_400 * 3), .string("1h"), .string("first")])
        try refresh()

        let checkEvery = max(250, total / 6)
        while calls < total {
            try fuzzOne()
            if calls % 40 == 0 { try refresh() }
            if calls % checkEvery == 0 || calls == total { try stopCheckAndRestart() }
            if failures.count > 50 { break }
        }
    }

    // MARK: One call

    private mutating func fuzzOne() throws {
        let roll = Double.random(in: 0..<1, using: &generator)
        var interfaceName = AgentProcess.interface
        var member: String
        var arguments: [DBusValue]
        var label: String
        var wrongInterface = false
        if roll < 0.10 {
            // Properties.Set of a property (or of a name that is none), with a fitting or unfitting value.
            interfaceName = "org.freedesktop.DBus.Properties"
            member = "Set"
            label = "Properties.Set"
            let (target, wrong) = propertyInterfaceName()
            wrongInterface = wrong
            let property = generator.chance(0.85) ? generator.pick(interface.properties) : nil
            let name = property?.name ?? generator.pick(["", "state", "Reminderminutes", "Foo", "Version ", hostileString()])
            let value = property.map { generator.chance(0.6) ? randomValue($0.type, role: $0.name) : randomValue(randomType()) }
                ?? randomValue(randomType())
            arguments = [.string(target), .string(name), .variant(value)]
            if generator.chance(0.05) { arguments = wrongSignature(arguments, correct: "ssv") }
        } else if roll < 0.15 {
            interfaceName = "org.freedesktop.DBus.Properties"
            member = generator.chance(0.8) ? "Get" : "GetAll"
            label = "Properties.Get"
            let (target, wrong) = propertyInterfaceName()
            wrongInterface = wrong
            let name = generator.chance(0.8) ? generator.pick(interface.properties).name : hostileString()
            arguments = member == "Get" ? [.string(target), .string(name)] : [.string(target)]
        } else if roll < 0.17 {
            member = generator.pick(["Start", "startproject", "StartProject2", "Delete", "GetAll", "Introspect"])
            label = "unknown method"
            arguments = (0..<Int.random(in: 0...2, using: &generator)).map { _ in randomValue(randomType()) }
        } else {
            let method = generator.pick(interface.methods)
            member = method.name
            label = method.name
            arguments = method.inArgs.map { randomValue($0.type, role: $0.name) }
            if generator.chance(0.12) {
                arguments = wrongSignature(arguments, correct: method.inArgs.map(\.type).joined())
            }
        }
        methodsCalled.insert(label)

        guard WireLength(arguments).fitsTheBus else {
            unsendable += 1   // longer than the protocol allows: the bus would drop our client, not ask the agent
            return
        }
        let message = try Message(methodCall: AgentProcess.busName, path: AgentProcess.path, interface: interfaceName, member: member)
        do {
            try message.append(arguments)
        } catch {
            unsendable += 1   // libdbus itself would not send it (cannot happen with Swift strings; counted for honesty)
            return
        }
        calls += 1
        let call = "fuzz call #\(calls) (seed \(StressSizes.seed)): \(interfaceName).\(member)\(describe(arguments))"
        do {
            let reply = try client.call(message, timeoutMilliseconds: 20_000).arguments()
            successes += 1
            if interfaceName == AgentProcess.interface {
                try verifyRoundTrip(member, arguments, reply, call)
            } else if member == "Set" {
                try verifySet(arguments, call)
            }
        } catch let error as BusError {
            if AllowedErrors.all.contains(error.name) || (wrongInterface && error.name == BusError.unknownInterface) {
                namedErrors += 1
                if error.message.isEmpty { failures.append("\(call): \(error.name) without a message for a person") }
                if error.message.utf8.count > 4_000 { failures.append("\(call): \(error.name) with a \(error.message.utf8.count)-byte message") }
            } else {
                failures.append("\(call): answered \(error.name): \(error.message.prefix(300))")
            }
        }
        if !harness.agent.process.isRunning {
            deaths += 1
            failures.append("\(call): the agent died; its log: \(harness.agent.logText.suffix(2_000))")
            try harness.restart()
        }
    }

    private mutating func propertyInterfaceName() -> (String, Bool) {
        generator.chance(0.9) ? (AgentProcess.interface, false)
            : (generator.pick(["", "io.github.timetracker.Time2", "org.freedesktop.DBus.Peer", "io.github.timetracker.Time1 "]), true)
    }

    // MARK: Values

    private static let types = ["s", "t", "x", "u", "i", "b", "d", "y", "n", "q", "o", "g", "as", "a{sv}", "v", "(xx)", "ai", "a{ss}", "at"]

    private mutating func randomType() -> String { generator.pick(Self.types) }

    /// Arguments of another signature: one dropped, one added, one of another type, or all random.
    private mutating func wrongSignature(_ arguments: [DBusValue], correct: String) -> [DBusValue] {
        for _ in 0..<10 {
            var result = arguments
            switch Int.random(in: 0..<4, using: &generator) {
            case 0 where !result.isEmpty: result.remove(at: Int.random(in: 0..<result.count, using: &generator))
            case 1: result.append(randomValue(randomType()))
            case 2 where !result.isEmpty: result[Int.random(in: 0..<result.count, using: &generator)] = randomValue(randomType())
            default: result = (0..<Int.random(in: 0...4, using: &generator)).map { _ in randomValue(randomType()) }
            }
            if DBusValue.signature(of: result) != correct { return result }
        }
        return arguments + [.bool(true)]
    }

    /// A value of the D-Bus type `type`; `role` (the argument's or property's name) steers strings
    /// and ids towards values that mean something to that argument, half of the time.
    private mutating func randomValue(_ type: String, role: String = "") -> DBusValue {
        switch type {
        case "s": return .string(string(role: role))
        case "t": return .uint64(uint64(role: role))
        case "x": return .int64(int64())
        case "u": return .uint32(generator.pick([0, 1, 5, 60, 1_440, UInt32(Int32.max), UInt32.max, UInt32.random(in: 0...UInt32.max, using: &generator)]))
        case "i": return .int32(generator.pick([0, -1, Int32.min, Int32.max, Int32.random(in: Int32.min...Int32.max, using: &generator)]))
        case "b": return .bool(generator.chance(0.5))
        case "d": return .double(generator.pick([0, -0.0, .nan, .infinity, -.infinity, .greatestFiniteMagnitude, 1.5]))
        case "y": return .byte(UInt8.random(in: 0...255, using: &generator))
        case "n": return .int16(generator.pick([0, Int16.min, Int16.max]))
        case "q": return .uint16(generator.pick([0, UInt16.max]))
        case "o": return .objectPath(generator.pick(["/", "/io/github/timetracker/Time1", "/a/b_c/D9"]))
        case "g": return .signature(generator.pick(["", "s", "a{sv}", "(xx)"]))
        case "v":
            return .variant(randomValue(generator.pick(["s", "t", "x", "u", "b", "as", "a{sv}"])))
        case "a{sv}": return changes()
        case "a{ss}":
            return .dictionary(keySignature: "s", valueSignature: "s",
                               (0..<Int.random(in: 0...3, using: &generator)).map { _ in (.string(changeKey()), .string(string(role: ""))) })
        default:
            if type.hasPrefix("a"), !type.hasPrefix("a{") {
                let element = String(type.dropFirst())
                let count = generator.chance(0.05) ? 1_000 : Int.random(in: 0...4, using: &generator)
                return .array(elementSignature: element, (0..<count).map { _ in randomValue(element) })
            }
            if type.hasPrefix("("), type.hasSuffix(")") {
                return .structure(Signature.split(String(type.dropFirst().dropLast())).map { randomValue($0) })
            }
            if type.hasPrefix("a{"), type.hasSuffix("}") {
                let inner = Signature.split(String(type.dropFirst(2).dropLast()))
                guard inner.count == 2 else { return .string("") }
                return .dictionary(keySignature: inner[0], valueSignature: inner[1],
                                   (0..<Int.random(in: 0...3, using: &generator)).map { _ in (randomValue(inner[0]), randomValue(inner[1])) })
            }
            return .string(string(role: role))
        }
    }

    private static let changeKeys: [String: String] = [
        "name": "s", "color": "s", "category": "s", "archived": "b", "project": "t", "start": "x", "duration": "s", "note": "s",
    ]

    private mutating func changeKey() -> String {
        generator.chance(0.75) ? generator.pick(Self.changeKeys.keys.sorted())
            : generator.pick(["", "Name", "colour", "end", "id", " name", "name\u{0301}", "NOTE", hostileString()])
    }

    /// An `a{sv}` of changes: right keys with right or wrong types, unknown keys, empty, or huge.
    private mutating func changes() -> DBusValue {
        if generator.chance(0.08) { return .vardict([:]) }
        if generator.chance(0.02) {
            return .vardict(Dictionary(uniqueKeysWithValues: (0..<2_000).map { ("key\($0)", DBusValue.string("v\($0)")) }))
        }
        var entries: [String: DBusValue] = [:]
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let key = changeKey()
            if let type = Self.changeKeys[key], generator.chance(0.7) {
                entries[key] = randomValue(type, role: key)
            } else {
                entries[key] = randomValue(randomType())
            }
        }
        return .vardict(entries)
    }

    private mutating func uint64(role: String) -> UInt64 {
        if generator.chance(0.55) {
            let lowered = role.lowercased()
            if lowered.contains("project"), let project = projects.randomElement(using: &generator) { return project.id }
            if let session = sessions.randomElement(using: &generator), !lowered.contains("project") { return session }
            if let project = projects.randomElement(using: &generator) { return project.id }
        }
        return generator.pick([0, 1, 2, UInt64.max, UInt64(Int64.max), UInt64(Int64.max) + 1, 1 << 32,
                               UInt64.random(in: 0...UInt64.max, using: &generator), UInt64.random(in: 0...1_000, using: &generator)])
    }

    private mutating func int64() -> Int64 {
        generator.pick([Int64.min, Int64.max, 0, -1, 1, now, now - 3_600, now + 86_400, 253_402_300_800, -62_135_596_800,
                        now - Int64.random(in: 3_600...(86_400 * 3_000), using: &generator),
                        Int64.random(in: Int64.min...Int64.max, using: &generator)])
    }

    /// A string for an argument named `role`: half the time something that means something there.
    private mutating func string(role: String) -> String {
        guard generator.chance(0.5) else { return hostileString() }
        switch role.lowercased() {
        case "project", "name":
            let known = projects.randomElement(using: &generator)
            return generator.pick([known.map { "  \($0.name.uppercased()) " } ?? "Writing", known.map { "#\($0.id)" } ?? "#1",
                                   known?.name ?? "Écriture", "New \(calls) \(hostileString().prefix(30))", hostileString()])
        case "color": return generator.pick(["", "#abc", "#ABCDEF", "#3366cc", "red", "#12345g", "#1234567", " #aabbcc "])
        case "category": return generator.pick(["", categories.randomElement(using: &generator) ?? "Work", "WORK", "Nope", hostileString()])
        case "duration":
            return generator.pick(["1h", "90m", "1:30", "1:30:15", "45s", "1h30m", "1h 30m", "1.5h", "45", "0", "-5m", "0s", "7d",
                                   "168h", "168:00:01", "167:59:59", "1M", "99999999999999999999h", "1e3", "ⅷ", "１０m", ":", "1:60"])
        case "week":
            return generator.pick(["", "2026-W48", "2026-W53", "2020-W53", "2026-W00", "9999-W52", "0000-01-01", "2026-02-30",
                                   "2026-11-25", "-2026-W01", "2026-W1", "٢٠٢٦-W48"])
        case "format": return generator.pick(["text", "json", "JSON", "xml", ""])
        case "interface_name": return AgentProcess.interface
        default:
            return generator.pick(["a note", "line one\nline two", "  padded  ", "\r\n\r\n", "tab\tinside", hostileString()])
        }
    }

    /// Random and boundary strings: empty, huge, control characters, markup, SQL, RTL, emoji,
    /// lone combining marks, id forms, and random Unicode.
    private mutating func hostileString() -> String {
        let roll = Double.random(in: 0..<1, using: &generator)
        if roll < 0.015 { return String(repeating: "x", count: 1 << 20) }
        if roll < 0.02 { return String(repeating: "👩‍💻\u{202E}<b>", count: (1 << 20) / 24) }
        if roll < 0.03 { return String(repeating: "n", count: 64 * 1_024 + Int.random(in: -1...1, using: &generator)) }
        if roll < 0.04 { return String(repeating: "é", count: 200 + Int.random(in: -1...1, using: &generator)) }
        if roll < 0.25 { return randomUnicode() }
        let control = String(UnicodeScalar(UInt8.random(in: 1...0x1f, using: &generator)))
        return generator.pick([
            "", " ", "\u{3000}\u{00A0}", "a\u{1}b", control, "x\(control)y", "\u{7f}", "\u{85}", "\u{1b}[31mred\u{1b}[0m",
            "line\nbreak", "cr\r\nlf", "\ttab",
            "<b>bold</b>", "&amp; &lt; &#x41; & &unknown;", "<a href=\"javascript:alert(1)\">x</a>", "<![CDATA[x]]>", "<!--", "</i>",
            "'; DROP TABLE sessions; --", "Robert'); DROP TABLE projects;--", "\" OR \"1\"=\"1", "%", "_%_", "\\", "'", "''",
            "\u{202E}abc", "مرحبا بالعالم", "עברית", "\u{200F}\u{200E}x", "abc\u{202E}def\u{202C}",
            "👩‍💻", "👨‍👩‍👧‍👦 family", "🏳️‍🌈", "🇩🇪🇫🇷", "❤️", "🧑🏽‍🚀",
            "\u{301}", "\u{301}\u{308}\u{30A}", "e\u{301}", " \u{301} ", "Z\u{351}\u{35B}\u{346}\u{33E}",
            "#0", "#1", "#99999999999999999999", "#-1", "#", "# 1", "#1.5", "#0x10", "#\(projects.randomElement(using: &generator)?.id ?? 1)",
            "\u{FEFF}bom", "\u{200B}", "null", "NaN", "-0", "%s%n%x", "../../etc/passwd", "\u{10FFFF}", "\u{E000}", "\u{FFFD}",
        ])
    }

    private mutating func randomUnicode() -> String {
        let ranges: [ClosedRange<UInt32>] = [0x20...0x7e, 0xa0...0x2ff, 0x300...0x36f, 0x590...0x6ff, 0x1f300...0x1faff,
                                             0x4e00...0x4fff, 0x1...0x1f, 0x2000...0x206f, 0xfe00...0xfe0f]
        var text = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 1...40, using: &generator) {
            if let scalar = UnicodeScalar(UInt32.random(in: generator.pick(ranges), using: &generator)) { text.append(scalar) }
        }
        return String(text)
    }

    // MARK: Round trips

    private mutating func refresh() throws {
        projects = try harness.projects().compactMap { p in p["id"]?.uint64Value.map { ($0, p["name"]?.stringValue ?? "") } }
        sessions = try harness.sessions().compactMap { $0["id"]?.uint64Value }
        categories = try (harness.call("ListCategories").first?.arrayValue ?? []).compactMap(\.stringValue)
    }

    private func session(_ id: UInt64) throws -> [String: DBusValue]? {
        try harness.sessions().first { $0["id"]?.uint64Value == id }
    }

    private func project(_ id: UInt64) throws -> [String: DBusValue]? {
        try harness.projects().first { $0["id"]?.uint64Value == id }
    }

    private mutating func expect(_ ok: Bool, _ what: @autoclosure () -> String, _ call: String) {
        if ok { roundTrips += 1 } else { roundTripFailures.append("\(call): \(what())") }
    }

    /// A successful call reads back as the contract says.
    private mutating func verifyRoundTrip(_ member: String, _ args: [DBusValue], _ reply: [DBusValue], _ call: String) throws {
        func text(_ index: Int) -> String { args[index].stringValue ?? "" }
        func note(_ raw: String) -> String { (try? TextInput.normalizedNote(raw)) ?? "<refused>" }
        switch member {
        case "CreateProject":
            let id = reply.first?.uint64Value ?? 0
            let found = try project(id)
            expect(found?["name"]?.stringValue == contractTrimmed(text(0)),
                   "project \(id) is named \(describe(found?["name"] ?? .string("<missing>"))), not the trimmed \(describe(.string(contractTrimmed(text(0)))))", call)
            if !contractTrimmed(text(1)).isEmpty {
                expect(found?["color"]?.stringValue == TextInput.normalizedColor(text(1)), "color \(found?["color"].map(describe) ?? "-")", call)
            }
            let category = contractTrimmed(text(2))
            expect((found?["category"]?.stringValue ?? "").lowercased() == category.lowercased(), "category \(found?["category"].map(describe) ?? "-")", call)
            if let found, let name = found["name"]?.stringValue { projects.append((id, name)) }
        case "UpdateProject":
            let changes = args[1].variantDictionary ?? [:]
            let found = try project(args[0].uint64Value ?? 0)
            if let name = changes["name"]?.stringValue {
                expect(found?["name"]?.stringValue == contractTrimmed(name), "renamed to \(found?["name"].map(describe) ?? "-")", call)
            }
            if let archived = changes["archived"]?.boolValue {
                expect(found?["archived"]?.boolValue == archived, "archived is \(found?["archived"].map(describe) ?? "-")", call)
            }
            if let color = changes["color"]?.stringValue {
                expect(found?["color"]?.stringValue == TextInput.normalizedColor(color), "color is \(found?["color"].map(describe) ?? "-")", call)
            }
            if let category = changes["category"]?.stringValue {
                expect((found?["category"]?.stringValue ?? "").lowercased() == contractTrimmed(category).lowercased(),
                       "category is \(found?["category"].map(describe) ?? "-")", call)
            }
        case "AddCategory":
            let all = try (harness.call("ListCategories").first?.arrayValue ?? []).compactMap(\.stringValue)
            expect(all.contains(contractTrimmed(text(0))), "ListCategories lacks \(describe(.string(contractTrimmed(text(0)))))", call)
            expect(all == all.sorted(by: { $0.lowercased() < $1.lowercased() }) || all == all.sorted(), "ListCategories is not sorted: \(all)", call)
        case "DeleteCategory":
            let all = try (harness.call("ListCategories").first?.arrayValue ?? []).compactMap(\.stringValue)
            expect(!all.contains { $0.lowercased() == contractTrimmed(text(0)).lowercased() }, "the category is still listed", call)
        case "AddSession":
            let id = reply.first?.uint64Value ?? 0
            let found = try session(id)
            expect(found?["start"] == args[1] && found?["project_id"] == args[0] && found?["note"]?.stringValue == note(text(3)),
                   "session \(id) reads back as \(found.map(describeFields) ?? "nothing")", call)
            expect(found?["active"]?.uint64Value == (try? DurationParser.seconds(from: text(2))).map(UInt64.init),
                   "session \(id) is \(found?["active"].map(describe) ?? "-") long", call)
            sessions.append(id)
        case "SetNote":
            let found = try session(args[0].uint64Value ?? 0)
            expect(found?["note"]?.stringValue == note(text(1)), "the note reads back as \(found?["note"].map(describe) ?? "-")", call)
        case "EditSession":
            let changes = args[1].variantDictionary ?? [:]
            let found = try session(args[0].uint64Value ?? 0)
            if let value = changes["note"]?.stringValue {
                expect(found?["note"]?.stringValue == note(value), "the note reads back as \(found?["note"].map(describe) ?? "-")", call)
            }
            if let start = changes["start"] { expect(found?["start"] == start, "start is \(found?["start"].map(describe) ?? "-")", call) }
            if let project = changes["project"] { expect(found?["project_id"] == project, "project is \(found?["project_id"].map(describe) ?? "-")", call) }
            if let duration = changes["duration"]?.stringValue {
                expect(found?["active"]?.uint64Value == (try? DurationParser.seconds(from: duration)).map(UInt64.init),
                       "active is \(found?["active"].map(describe) ?? "-")", call)
            }
        case "DeleteSession":
            expect(try session(args[0].uint64Value ?? 0) == nil, "the session is still there", call)
        case "AddNote":
            let added = note(text(0))
            let current = try harness.property("Note").stringValue ?? ""
            expect(added.isEmpty || current.hasSuffix(added), "the note is \(describe(.string(current)))", call)
        case "StartProject":
            expect(try harness.property("SessionId") == reply.first && harness.property("State") == .string("running"),
                   "SessionId/State after StartProject", call)
        case "Stop": expect(try harness.property("State") == .string("idle"), "State after Stop", call)
        case "Pause": expect(try harness.property("State") == .string("paused"), "State after Pause", call)
        case "Resume": expect(try harness.property("State") == .string("running"), "State after Resume", call)
        case "Toggle": expect(try harness.property("State") == reply.first, "State after Toggle answered \(reply)", call)
        default: break
        }
    }

    private mutating func verifySet(_ args: [DBusValue], _ call: String) throws {
        guard args.count == 3, let name = args[1].stringValue, let value = args[2].variantValue else { return }
        let current = try harness.property(name)
        expect(current == value, "\(name) reads back as \(describe(current))", call)
    }

    // MARK: Integrity

    /// Stops the agent (SIGTERM: it must exit 0), checks the store, starts it again and compares.
    private mutating func stopCheckAndRestart() throws {
        func state() throws -> [String] {
            try harness.projects().map(canonical) + (harness.call("ListCategories").first?.arrayValue ?? []).map { "\($0)" }
                + harness.sessions().map { var s = $0; if s["end"] == .int64(0) { s["active"] = nil }; return canonical(s) }
                + [canonical(harness.allProperties().filter { $0.key != "ActiveSeconds" && $0.key != "DataRevision" })]
        }
        let before = try state()
        harness.stopAgent()
        if harness.agent.process.terminationStatus != 0 {
            failures.append("after fuzz call #\(calls): SIGTERM ended the agent with status \(harness.agent.process.terminationStatus)")
        }
        integrityChecks += 1
        let integrity = try storeIntegrity(dataDirectory: harness.dataDirectory)
        if integrity != "ok" { integrityFailures.append("after fuzz call #\(calls): \(integrity)") }
        try harness.restart()
        if try harness.property("StorageState") != .string("ok") {
            integrityFailures.append("after fuzz call #\(calls): StorageState \(try harness.property("StorageState")): \(harness.agent.logText)")
        }
        let after = try state()
        if after != before {
            failures.append("after fuzz call #\(calls): the state changed across a restart: "
                            + "\(Set(before).subtracting(after).prefix(3)) became \(Set(after).subtracting(before).prefix(3))")
        }
    }
}
