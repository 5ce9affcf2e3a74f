import TimeClient
import DBusCore
import TimeJSON

struct Undo: OneCallCommand {
    static let call = OneCall("Undo", name: "undo", abstract: "Undo the newest change not yet undone; prints what was undone.",
                              discussion: "Any change can be undone, newest first, as far back as the history goes ('timectl history').\nUndoing a stop reopens the same session: the time since counts.") {
        "Undone: \($0.first?.stringValue ?? "")."
    }
}

struct Redo: OneCallCommand {
    static let call = OneCall("Redo", name: "redo", abstract: "Redo the change undone most recently; prints what was redone.",
                              discussion: "Any new change clears what can be redone.") { "Redone: \($0.first?.stringValue ?? "")." }
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
        guard let records = tableRecords(reply, json: json, empty: "No changes yet.") else { return }
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
