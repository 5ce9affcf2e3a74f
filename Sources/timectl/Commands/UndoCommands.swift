import TimeClient
import DBusCore
import TimeJSON

struct Undo: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "undo",
        abstract: "Undo the newest change not yet undone; prints what was undone.",
        discussion: "Any change can be undone, newest first, as far back as the history goes ('timectl history').\nUndoing a stop reopens the same session: the time since counts.")
    init(_ arguments: ParsedArguments) throws {}
    func run(_ context: Context) throws {
        let reply = try context.agent().call("Undo")
        output("Undone: \(reply.first?.stringValue ?? "").")
    }
}

struct Redo: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "redo",
        abstract: "Redo the change undone most recently; prints what was redone.",
        discussion: "Any new change clears what can be redone.")
    init(_ arguments: ParsedArguments) throws {}
    func run(_ context: Context) throws {
        let reply = try context.agent().call("Redo")
        output("Redone: \(reply.first?.stringValue ?? "").")
    }
}

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "history",
        abstract: "List the newest changes, newest first; undone ones are marked.",
        options: [
            .value("--count", valueName: "n", help: "How many (default 20, at most 100)."),
            jsonFlag,
        ])

    var count: UInt32
    var json: Bool

    init(_ arguments: ParsedArguments) throws {
        json = arguments.flag("--json")
        if let text = arguments.value("--count") {
            guard let value = UInt32(text), value > 0 else { throw arguments.usageError("--count takes a whole number above 0, not '\(text)'") }
            count = value
        } else {
            count = 20
        }
    }

    func run(_ context: Context) throws {
        let reply = try context.agent().call("History", [.uint32(count)])
        let steps = reply.first?.arrayValue ?? []
        if json {
            output(JSON.array(steps.map(JSON.init)).text)
            return
        }
        let records = steps.compactMap(\.variantDictionary)
        if records.isEmpty {
            output("No changes yet.")
            return
        }
        var table = Table(headers: ["WHEN", "CHANGE", ""])
        for step in records {
            let time = step["time"]?.integer ?? 0
            table.rows.append([
                Cell(LocalTime.dateTimeString(time)),
                Cell(step["description"]?.stringValue ?? ""),
                Cell(step["undone"]?.boolValue == true ? "(undone)" : ""),
            ])
        }
        fputsOut(table.render(color: context.color))
    }
}
