import DBusKit
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

    /// How timectl prints JSON: on one line, with a space after commas and colons.
    var text: String { serialized(.spaced) }
}
