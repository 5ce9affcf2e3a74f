import TimeClient
import DBusCore
import TimeJSON

extension JSON {
    /// A D-Bus value as JSON: a{s…} become objects (order kept), arrays and structures become arrays.
    init(_ value: DBusValue) {
        switch value {
        case .byte, .int16, .uint16, .int32, .uint32, .int64, .uint64: self = .int(value.integer ?? 0)
        case .bool(let b): self = .bool(b)
        case .double(let d): self = .double(d)
        case .string(let s), .objectPath(let s), .signature(let s): self = .string(s)
        case .array(_, let items): self = .array(items.map(JSON.init))
        case .dictionary(_, _, let entries):
            self = .object(entries.map { (key, value) in (key.stringValue ?? String(key.integer ?? 0), JSON(value)) })
        case .structure(let fields): self = .array(fields.map(JSON.init))
        case .variant(let inner): self = JSON(inner)
        case .unixFD(let fd): self = .int(Int64(fd))
        }
    }

    /// How timectl prints every --json output (man timectl, JSON OUTPUT): one value on one line,
    /// a space after each comma and colon, keys in the agent's order, times in Unix seconds,
    /// durations in seconds. New --json outputs print `JSON.text` too.
    var text: String { serialized(.spaced) }

    /// JSON text from the agent (compact) in timectl's style; unchanged if it is not JSON.
    static func restyled(_ text: String) -> String {
        (try? JSON.parse(text))?.text ?? text
    }
}

/// The records of a list the agent returned (`aa{sv}`, the reply's first value), for a table;
/// nil when the list is printed already: whole as JSON with `--json`, or as `empty` when it has none.
func tableRecords(_ reply: [DBusValue], json: Bool, keeping keep: (DBusValue) -> Bool = { _ in true },
                  empty: @autoclosure () -> String) -> [[String: DBusValue]]? {
    let list = (reply.first?.arrayValue ?? []).filter(keep)
    if json {
        output(JSON.array(list.map(JSON.init)).text)
        return nil
    }
    let records = list.compactMap(\.variantDictionary)
    if records.isEmpty {
        output(empty())
        return nil
    }
    return records
}
