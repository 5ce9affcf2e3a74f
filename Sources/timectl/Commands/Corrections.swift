import DBusCore
import TimeClient

// What the timer commands share for times given late (`--at`, `--adjust`, contract "Fixing what
// was forgotten"): reading the moment as people type it, the `--adjust` line an Overlap offers,
// and the warning for sessions typed by hand that overlap others (kept, but said).

/// `--at`, shared by start, pause, resume and stop.
let atOption = Option.value("--at", valueName: "when",
                            help: "When it really happened: '9:15', 'yesterday 17:30', '10 minutes ago', '-10m' (at most 24 hours ago).")
/// `--adjust`, shared by start and edit.
let adjustFlag = Option.flag("--adjust", help: "Shorten the completed session(s) the new start would overlap, instead of refusing.")

/// Reads a moment option (`--at`, or an open session's `--start`); bad input is a usage error.
func momentOption(_ name: String, _ arguments: ParsedArguments, now: Int64) throws -> Int64? {
    guard let text = arguments.value(name) else { return nil }
    guard let time = MomentInput.parse(text, now: now) else {
        throw arguments.usageError("cannot read '\(text)' as a time (\(name)); use e.g. \(MomentInput.accepted)")
    }
    return time
}

/// The words of this command line quoted for a shell, for a line a person can paste.
func shellLine(_ words: [String]) -> String {
    words.map { word in
        let plain = !word.isEmpty && word.allSatisfy { $0.isLetter || $0.isNumber || "-_.,:/#@%+=".contains($0) } && !word.hasPrefix("#")
        return plain ? word : "'" + word.replacingAll("'", with: "'\\''") + "'"
    }.joined(separator: " ")
}

extension String {
    func replacingAll(_ target: Character, with replacement: String) -> String {
        var result = ""
        for character in self { if character == target { result += replacement } else { result.append(character) } }
        return result
    }
}

/// Runs `body`; an `Overlap` refusal that `--adjust` could resolve gains the line that would
/// (this very command with `--adjust`), still exit status 1.
func offeringAdjust<T>(adjusting: Bool, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as RefusedError where error.name == "Overlap" && !adjusting && !error.message.contains("never shortened") {
        let words = ["timectl"] + CommandLine.arguments.dropFirst() + ["--adjust"]
        throw RefusedError(message: error.message + "\nTo shorten it instead, run:\n  " + shellLine(words), name: error.name)
    }
}

extension AgentClient {
    /// After a session typed by hand was added or edited: a warning on stderr for each session it
    /// overlaps (both are kept and counted), read from ListSessions' `overlaps` over its span.
    func warnAboutOverlaps(of session: UInt64, around start: Int64, _ end: Int64) {
        guard let reply = try? call("ListSessions", [.uint64(0), .int64(start), .int64(max(end, start + 1))]) else { return }
        let records = (reply.first?.arrayValue ?? []).compactMap(\.variantDictionary)
        guard let record = records.first(where: { UInt64($0["id"]?.integer ?? 0) == session }) else { return }
        let others = (record["overlaps"]?.arrayValue ?? []).compactMap(\.integer)
        guard !others.isEmpty else { return }
        let named = others.map { id -> String in
            guard let other = records.first(where: { $0["id"]?.integer == id }) else { return "session \(id)" }
            return "session \(id) (\(sessionSpan(other)))"
        }
        printError("warning: session \(session) (\(sessionSpan(record))) overlaps \(named.joined(separator: ", ")); "
                   + "both are kept and counted (see 'timectl sessions --overlaps').")
    }

    /// A session's record, looked for in the last week, then the last year, then everywhere.
    func sessionRecord(_ id: UInt64, now: Int64) throws -> [String: DBusValue]? {
        for from in [now - 8 * 86_400, now - 400 * 86_400, Int64.min] {
            let reply = try call("ListSessions", [.uint64(0), .int64(from), .int64(Int64.max)])
            if let record = (reply.first?.arrayValue ?? []).compactMap(\.variantDictionary)
                .first(where: { UInt64($0["id"]?.integer ?? 0) == id }) { return record }
        }
        return nil
    }
}

/// `Writing 2026-06-01 09:00–10:00` (the end's day only when it differs).
func sessionSpan(_ record: [String: DBusValue]) -> String {
    let start = record["start"]?.integer ?? 0, end = record["end"]?.integer ?? 0
    let endText = end == 0 ? "now" : LocalTime.dateString(end) == LocalTime.dateString(start)
        ? LocalTime.clockString(end) : LocalTime.dateTimeString(end)
    return "\(record["project"]?.stringValue ?? "") \(LocalTime.dateTimeString(start))–\(endText)"
}

/// pause, resume and stop: their one call, or with `--at` its "…At" form (PauseAt, ResumeAt,
/// StopAt) with the moment given.
protocol AtCallCommand: ParsableCommand {
    init(at: Int64?)
    var at: Int64? { get }
    static var call: OneCall { get }
    static func atLine(_ reply: [DBusValue], _ at: Int64) -> String
}

extension AtCallCommand {
    static var configuration: CommandConfiguration {
        var configuration = call.configuration
        configuration.options = [atOption]
        return configuration
    }

    init(_ arguments: ParsedArguments) throws { self.init(at: try momentOption("--at", arguments, now: parsingNow())) }

    func run(_ context: Context) throws {
        guard let at else { output(Self.call.line(try context.quickCall(Self.call.method))); return }
        output(Self.atLine(try context.agent().call(Self.call.method + "At", [.int64(at)]), at))
    }
}

extension Start {
    /// `timectl start PROJECT --at WHEN [--adjust]`: StartProjectAt (creating the project first
    /// as a plain start does); prints the history's sentence, which says both sides.
    func startAt(_ at: Int64, _ context: Context) throws {
        let agent = try context.agent()
        let before = try agent.call("History", [.uint32(1)]).first?.arrayValue?.first?.variantDictionary?["id"]?.integer
        let start = { try agent.call("StartProjectAt", [.string(new.name), .int64(at), .vardict(adjust ? ["adjust": .bool(true)] : [:])]) }
        var reply: [DBusValue]
        do {
            reply = try offeringAdjust(adjusting: adjust, start)
        } catch let error as RefusedError where error.name == "NoSuchProject" && new.create && !new.name.trimmed.hasPrefix("#") {
            _ = try agent.createProject(new.name, color: new.color, category: new.category, createCategory: true)
            printNotice("Created project \(new.name.trimmed).")
            reply = try offeringAdjust(adjusting: adjust, start)
        }
        let session = reply.first?.integer ?? 0
        let newest = try agent.call("History", [.uint32(1)]).first?.arrayValue?.first?.variantDictionary
        if let newest, newest["id"]?.integer != before, let sentence = newest["description"]?.stringValue {
            output("\(sentence) (session \(session)).")
        } else {
            output("Nothing changed: \(try agent.property("Project").stringValue ?? new.name) is already running (session \(session)).")
        }
    }
}
