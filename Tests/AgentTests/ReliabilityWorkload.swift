import DBusKit
import Foundation
import TestSupport
import XCTest

/// What the agent acknowledged to the clients of a reliability run, and therefore what its state
/// must show. Every client changes only its own projects, categories and hand-entered sessions,
/// so the last acknowledged value of each is known exactly however the clients interleave; the
/// timer is shared by all of them and checked by its invariants.
///
/// A call that got no answer because the agent was killed is *uncertain*: the record may show
/// the value before it or after it. The next check accepts either and adopts what it found.
final class Ledger: @unchecked Sendable {
    enum Kind: String { case project, category, session }

    /// The fields compared: project name/color/category; session project_id/start/active/note.
    typealias Fields = [String: DBusValue]

    struct Record {
        let kind: Kind
        /// Where to find it when no id is known yet: the name (projects, categories) or the start (sessions).
        var locator: DBusValue
        var id: UInt64?
        /// nil: must be absent.
        var expected: Fields?
        /// Set by an uncertain call: the state the record may show instead.
        var alternative: Fields??
        let owner: Int
    }

    private let lock = NSLock()
    private(set) var records: [Record] = []
    /// Session ids handed out by StartProject and Stop: each must exist afterwards.
    private(set) var timerSessions: Set<UInt64> = []
    /// AddNote texts acknowledged (each must be a line of exactly one timer session's note), and
    /// those sent just before a kill (may be).
    private(set) var notes: Set<String> = []
    private(set) var uncertainNotes: Set<String> = []
    private(set) var unexpected: [String] = []
    private(set) var calls = 0
    private(set) var acknowledgedChanges = 0
    private(set) var refusedAsIdle = 0
    private(set) var uncertain = 0
    private var slot = 0
    private var serial = 0

    let baseProjects: [String: UInt64]
    let sessionsBase: Int64
    let started: Int64

    init(baseProjects: [String: UInt64]) {
        self.baseProjects = baseProjects
        started = unixNow()
        sessionsBase = started - 4_000 * 86_400
    }

    func locked<T>(_ body: (Ledger) -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body(self)
    }

    /// A start time nobody else uses, two hours after the last: hand-entered sessions never overlap.
    func nextStart() -> Int64 { locked { $0.slot += 1; return $0.sessionsBase + Int64($0.slot) * 7_200 } }

    /// A number no other call of the run uses (names and notes must be unique across rounds too).
    func nextSerial() -> Int { locked { $0.serial += 1; return $0.serial } }

    func add(_ record: Record) -> Int { locked { $0.records.append(record); return $0.records.count - 1 } }

    func update(_ index: Int, _ body: (inout Record) -> Void) { locked { body(&$0.records[index]) } }

    func record(_ index: Int) -> Record { locked { $0.records[index] } }

    /// Indices of `owner`'s records of `kind` that exist and have an id.
    func owned(_ owner: Int, _ kind: Kind) -> [Int] {
        locked { ledger in ledger.records.indices.filter {
            let r = ledger.records[$0]
            return r.owner == owner && r.kind == kind && r.expected != nil && r.alternative == nil && (r.id != nil || kind == .category)
        } }
    }

    func called(changed: Bool) { locked { $0.calls += 1; if changed { $0.acknowledgedChanges += 1 } } }
    func idle() { locked { $0.calls += 1; $0.refusedAsIdle += 1 } }
    func gotTimerSession(_ id: UInt64) { locked { _ = $0.timerSessions.insert(id) } }
    func noted(_ text: String) { locked { _ = $0.notes.insert(text) } }
    func noteUncertain(_ text: String) { locked { _ = $0.uncertainNotes.insert(text) } }
    func failed(_ what: String) { locked { $0.unexpected.append(what) } }
    func markUncertain() { locked { $0.uncertain += 1 } }

    // MARK: Checking the agent against the ledger

    struct CheckResult {
        var verified = 0
        var lost: [String] = []
    }

    /// Compares the agent's whole state with what was acknowledged. With `adopt`, uncertain records
    /// take the value found (the next round expects it).
    func check(_ client: BusConnection, _ when: String, adopt: Bool) throws -> CheckResult {
        let projects = try (client.agent("ListProjects", timeout: 60_000).first?.arrayValue ?? []).compactMap(\.variantDictionary)
        let categories = Set(try (client.agent("ListCategories", timeout: 60_000).first?.arrayValue ?? []).compactMap(\.stringValue))
        let sessions = try (client.agent("ListSessions", [.uint64(0), .int64(Int64.min), .int64(Int64.max)], timeout: 60_000)
            .first?.arrayValue ?? []).compactMap(\.variantDictionary)
        let projectByID = Dictionary(projects.map { ($0["id"]?.uint64Value ?? 0, $0) }, uniquingKeysWith: { a, _ in a })
        let projectByName = Dictionary(projects.map { ($0["name"]?.stringValue ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        let sessionByStart = Dictionary(sessions.filter { ($0["start"]?.int64Value ?? 0) < started - 86_400 }
            .map { ($0["start"]?.int64Value ?? 0, $0) }, uniquingKeysWith: { a, _ in a })

        var result = CheckResult()
        lock.lock()
        defer { lock.unlock() }
        var knownProjects = Set(baseProjects.values)
        var knownCategories: Set<String> = []
        var knownSessions: Set<UInt64> = []
        for index in records.indices {
            var record = records[index]
            var found: [String: DBusValue]?
            switch record.kind {
            case .project:
                found = record.id.flatMap { projectByID[$0] }
                    ?? (record.id == nil ? record.locator.stringValue.flatMap { projectByName[$0] } : nil)
            case .category:
                found = record.locator.stringValue.flatMap { categories.contains($0) ? [:] : nil }
            case .session:
                // By its start, which is unique and never edited: the agent may give a deleted
                // session's id to the next new session (SQLite reuses the highest rowid).
                found = record.locator.int64Value.flatMap { sessionByStart[$0] }
            }
            let actual: Fields? = found.map { fields in
                let keys = record.kind == .project ? ["name", "color", "category"] : record.kind == .session ? ["project_id", "start", "active", "note"] : []
                return fields.filter { keys.contains($0.key) }
            }
            let matches = actual == record.expected || (record.alternative.map { actual == $0 } ?? false)
            if !matches {
                result.lost.append("\(when): \(record.kind) \(record.id.map(String.init) ?? describe(record.locator)) of client \(record.owner): expected \(record.expected.map(describeFields) ?? "absent")"
                    + (record.alternative.map { " or \($0.map(describeFields) ?? "absent")" } ?? "")
                    + ", found \(actual.map(describeFields) ?? "nothing")")
            }
            result.verified += 1
            if let found {
                switch record.kind {
                case .project: if let id = found["id"]?.uint64Value { knownProjects.insert(id); record.id = id }
                case .session: if let id = found["id"]?.uint64Value { knownSessions.insert(id); record.id = id }
                case .category: knownCategories.insert(record.locator.stringValue ?? "")
                }
            }
            if adopt && record.alternative != nil {
                record.expected = actual
                record.alternative = nil
                if case .project = record.kind, let name = actual?["name"]?.stringValue { record.locator = .string(name) }
            }
            records[index] = record
        }

        // Nothing appeared that nobody asked for.
        for project in projects where !knownProjects.contains(project["id"]?.uint64Value ?? 0) {
            result.lost.append("\(when): a project nobody created: \(describeFields(project))")
        }
        for category in categories.subtracting(knownCategories) {
            result.lost.append("\(when): a category nobody added: \(category)")
        }

        // The timer: every session it handed out exists, at most one is open, every acknowledged
        // AddNote is one line of exactly one of its sessions.
        let timerSessionsFound = sessions.filter { !knownSessions.contains($0["id"]?.uint64Value ?? 0) }
        for session in timerSessionsFound {
            let start = session["start"]?.int64Value ?? 0
            let project = session["project_id"]?.uint64Value ?? 0
            if start < started - 5 || !baseProjects.values.contains(project) {
                result.lost.append("\(when): a session nobody made: \(describeFields(session))")
            }
        }
        let ids = Set(sessions.compactMap { $0["id"]?.uint64Value })
        for id in timerSessions.subtracting(ids) { result.lost.append("\(when): the timer's session \(id) is gone") }
        result.verified += timerSessions.count
        let open = sessions.filter { $0["end"] == .int64(0) }
        if open.count > 1 { result.lost.append("\(when): \(open.count) sessions are open at once") }
        var lines: [String: Int] = [:]
        for session in timerSessionsFound {
            for line in (session["note"]?.stringValue ?? "").split(separator: "\n") { lines[String(line), default: 0] += 1 }
        }
        for note in notes where lines[note] != 1 {
            result.lost.append("\(when): the acknowledged note line \(String(reflecting: note)) appears \(lines[note] ?? 0) times")
        }
        for (line, count) in lines where !notes.contains(line) && !(uncertainNotes.contains(line) && count == 1) {
            result.lost.append("\(when): a note line nobody added: \(String(reflecting: line)) ×\(count)")
        }
        result.verified += notes.count
        if adopt {
            for line in uncertainNotes where lines[line] == 1 { notes.insert(line) }
            uncertainNotes = []
        }
        return result
    }
}

func describeFields(_ fields: [String: DBusValue]) -> String {
    "{" + fields.sorted { $0.key < $1.key }.map { "\($0.key): \(describe($0.value))" }.joined(separator: ", ") + "}"
}

/// One client of a reliability run: its own connection, its own random sequence, a mix of every
/// kind of call. Runs until `calls` are made or `shouldStop` says so; in `faultMode` the first
/// call the agent does not answer ends the client (the agent was killed).
struct LoadClient {
    static let colors = ["#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6", "#aabbcc"]
    static let durations: [(String, UInt64)] = [("1m", 60), ("90s", 90), ("1:05", 3_900), ("2m", 120), ("45s", 45), ("0:03:20", 200), ("1.5m", 90)]

    let index: Int
    let ledger: Ledger
    let faultMode: Bool
    var generator: SeededGenerator
    var step = 0

    init(index: Int, ledger: Ledger, faultMode: Bool, seed: UInt64) {
        self.index = index
        self.ledger = ledger
        self.faultMode = faultMode
        generator = SeededGenerator(seed: seed &+ UInt64(index) &* 0x9E37)
    }

    /// Runs on the calling thread.
    mutating func run(address: String, calls: Int, shouldStop: () -> Bool) {
        let connection: BusConnection
        do {
            connection = try BusConnection(address: address)
        } catch {
            ledger.failed("client \(index) could not connect: \(error)")
            return
        }
        defer { connection.close() }
        var made = 0
        while made < calls && !shouldStop() {
            made += 1
            if !one(connection) { return }
        }
    }

    /// One call; false when the client should end (fault mode, the agent is gone).
    private mutating func one(_ connection: BusConnection) -> Bool {
        step += 1
        let label = "c\(index)-\(step)-\(ledger.nextSerial())"
        let timerMethods = ["StartProject", "Pause", "Resume", "Toggle", "Stop", "AddNote"]
        let weighted: [(String, Int)] = [
            ("StartProject", 4), ("Pause", 3), ("Resume", 3), ("Toggle", 3), ("Stop", 2), ("AddNote", 3),
            ("CreateProject", 6), ("UpdateProject", 5), ("AddCategory", 3), ("AddSession", 10), ("EditSession", 6),
            ("SetNote", 6), ("DeleteSession", 3), ("GetStatus", 3), ("WeeklyReport", 1), ("ListSessions", 2), ("Get", 2),
        ]
        var roll = Int.random(in: 0..<weighted.reduce(0) { $0 + $1.1 }, using: &generator)
        var method = weighted[0].0
        for (name, weight) in weighted {
            if roll < weight { method = name; break }
            roll -= weight
        }
        var arguments: [DBusValue] = []
        // What to record once the call is acknowledged, and what may be true if it is not answered.
        var onSuccess: ([DBusValue]) -> Void = { _ in }
        var onUncertain: () -> Void = {}
        var changes = true
        let baseNames = ledger.baseProjects.keys.sorted()

        switch method {
        case "StartProject":
            arguments = [.string(generator.pick(baseNames))]
            onSuccess = { [ledger] reply in reply.first?.uint64Value.map(ledger.gotTimerSession) }
        case "Stop":
            onSuccess = { [ledger] reply in reply.first?.uint64Value.map(ledger.gotTimerSession) }
        case "AddNote":
            arguments = [.string(label)]
            onSuccess = { [ledger] _ in ledger.noted(label) }
            onUncertain = { [ledger] in ledger.noteUncertain(label) }
        case "Pause", "Resume", "Toggle": break
        case "CreateProject":
            let name = "Load \(label)"
            let color = generator.pick(Self.colors)
            let categories = ledger.owned(index, .category)
            let category = categories.isEmpty || generator.chance(0.5) ? "" : (ledger.record(generator.pick(categories)).locator.stringValue ?? "")
            arguments = [.string(name), .string(color), .string(category)]
            let fields: Ledger.Fields = ["name": .string(name), "color": .string(color), "category": .string(category)]
            let record = ledger.add(Ledger.Record(kind: .project, locator: .string(name), id: nil, expected: nil,
                                                  alternative: .some(fields), owner: index))
            onSuccess = { [ledger] reply in
                ledger.update(record) { $0.id = reply.first?.uint64Value; $0.expected = fields; $0.alternative = nil }
            }
        case "UpdateProject":
            guard let record = ledger.owned(index, .project).randomElement(using: &generator), let id = ledger.record(record).id,
                  let before = ledger.record(record).expected else { return skip(connection) }
            var change: [String: DBusValue] = [:]
            var after = before
            if generator.chance(0.6) { change["name"] = .string("Load \(label) renamed"); after["name"] = change["name"] }
            if generator.chance(0.5) { change["color"] = .string(generator.pick(Self.colors)); after["color"] = change["color"] }
            let categories = ledger.owned(index, .category)
            if generator.chance(0.4) {
                let category = categories.isEmpty || generator.chance(0.3) ? "" : (ledger.record(generator.pick(categories)).locator.stringValue ?? "")
                change["category"] = .string(category)
                after["category"] = .string(category)
            }
            arguments = [.uint64(id), .vardict(change)]
            ledger.update(record) { $0.alternative = .some(after) }
            onSuccess = { [ledger] _ in ledger.update(record) { $0.expected = after; $0.alternative = nil } }
        case "AddCategory":
            let name = "Category \(label)"
            arguments = [.string(name)]
            let record = ledger.add(Ledger.Record(kind: .category, locator: .string(name), id: nil, expected: nil,
                                                  alternative: .some([:]), owner: index))
            onSuccess = { [ledger] _ in ledger.update(record) { $0.expected = [:]; $0.alternative = nil } }
        case "AddSession":
            let projects = ledger.owned(index, .project)
            let project = projects.isEmpty || generator.chance(0.2)
                ? ledger.baseProjects[generator.pick(baseNames)]! : ledger.record(generator.pick(projects)).id!
            let start = ledger.nextStart()
            let (duration, seconds) = generator.pick(Self.durations)
            let note = generator.chance(0.3) ? "" : "added \(label)"
            arguments = [.uint64(project), .int64(start), .string(duration), .string(note)]
            let fields: Ledger.Fields = ["project_id": .uint64(project), "start": .int64(start), "active": .uint64(seconds), "note": .string(note)]
            let record = ledger.add(Ledger.Record(kind: .session, locator: .int64(start), id: nil, expected: nil,
                                                  alternative: .some(fields), owner: index))
            onSuccess = { [ledger] reply in
                ledger.update(record) { $0.id = reply.first?.uint64Value; $0.expected = fields; $0.alternative = nil }
            }
        case "EditSession", "SetNote", "DeleteSession":
            guard let record = ledger.owned(index, .session).randomElement(using: &generator), let id = ledger.record(record).id,
                  let before = ledger.record(record).expected else { return skip(connection) }
            var after: Ledger.Fields? = before
            if method == "DeleteSession" {
                arguments = [.uint64(id)]
                after = nil
            } else if method == "SetNote" {
                let note = generator.chance(0.2) ? "" : "set \(label)"
                arguments = [.uint64(id), .string(note)]
                after?["note"] = .string(note)
            } else {
                var change: [String: DBusValue] = [:]
                if generator.chance(0.6) {
                    let (duration, seconds) = generator.pick(Self.durations)
                    change["duration"] = .string(duration)
                    after?["active"] = .uint64(seconds)
                }
                if generator.chance(0.5) { change["note"] = .string("edited \(label)"); after?["note"] = change["note"] }
                if generator.chance(0.3), let other = ledger.owned(index, .project).randomElement(using: &generator).flatMap({ ledger.record($0).id }) {
                    change["project"] = .uint64(other)
                    after?["project_id"] = .uint64(other)
                }
                arguments = [.uint64(id), .vardict(change)]
            }
            ledger.update(record) { $0.alternative = .some(after) }
            onSuccess = { [ledger] _ in ledger.update(record) { $0.expected = after; $0.alternative = nil } }
        case "GetStatus":
            changes = false
        case "WeeklyReport":
            changes = false
            arguments = [.string(generator.chance(0.5) ? "" : "2026-W10"), .string(generator.chance(0.5) ? "json" : "text")]
        case "ListSessions":
            changes = false
            let from = ledger.sessionsBase + Int64.random(in: 0...(86_400 * 300), using: &generator)
            arguments = [.uint64(0), .int64(from), .int64(from + 86_400)]
        default: // a property
            changes = false
        }

        do {
            let reply: [DBusValue]
            if method == "Get" {
                reply = [try connection.agentProperty(generator.pick(["State", "SessionId", "Note", "Project", "ActiveSeconds"]))]
            } else {
                reply = try connection.agent(method, arguments, timeout: 60_000)
            }
            if method == "Toggle", !["running", "paused"].contains(reply.first?.stringValue ?? "") {
                ledger.failed("client \(index): Toggle answered \(reply)")
            }
            if method == "GetStatus", !["idle", "running", "paused"].contains(reply.first?.variantDictionary?["state"]?.stringValue ?? "") {
                ledger.failed("client \(index): GetStatus answered \(reply)")
            }
            onSuccess(reply)
            ledger.called(changed: changes)
            return true
        } catch let error as BusError where error.name == ContractError.noCurrentSession && timerMethods.contains(method) {
            // Idle when this client asked: the timer's other clients stopped it. Nothing changed.
            clearAlternative(method)
            ledger.idle()
            return true
        } catch let error as BusError where faultMode && !error.name.hasPrefix(ContractError.prefix) {
            // No answer: the agent was killed while this call was on its way.
            onUncertain()
            ledger.markUncertain()
            return false
        } catch {
            ledger.failed("client \(index) step \(step): \(method)\(describe(arguments)): \(error)")
            clearAlternative(method)
            return !faultMode
        }
    }

    /// A refused call changed nothing: the record keeps only its acknowledged value.
    private func clearAlternative(_ method: String) {
        // Records created by this call stay "expected: absent"; edits of existing ones drop the alternative.
        for record in ledger.locked({ ledger in ledger.records.indices.filter { ledger.records[$0].owner == index && ledger.records[$0].alternative != nil } }) {
            ledger.update(record) { $0.alternative = nil }
        }
    }

    /// Nothing of that kind exists yet for this client: ask for the status instead.
    private mutating func skip(_ connection: BusConnection) -> Bool {
        do {
            _ = try connection.agent("GetStatus", timeout: 60_000)
            ledger.called(changed: false)
            return true
        } catch let error as BusError where faultMode && !error.name.hasPrefix(ContractError.prefix) {
            return false
        } catch {
            ledger.failed("client \(index): GetStatus: \(error)")
            return !faultMode
        }
    }
}

/// Runs `count` clients on their own threads until each has made `calls` calls (or `shouldStop`).
func runClients(_ count: Int, address: String, ledger: Ledger, calls: (Int) -> Int, faultMode: Bool, seed: UInt64,
                shouldStop: @escaping @Sendable () -> Bool = { false }) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    for index in 0..<count {
        let budget = calls(index)
        let thread = Thread {
            var client = LoadClient(index: index, ledger: ledger, faultMode: faultMode, seed: seed)
            client.run(address: address, calls: budget, shouldStop: shouldStop)
            done.signal()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }
    return done
}
