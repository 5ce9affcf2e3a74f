import DBusKit

/// A JSON value with ordered object keys, written without Foundation.
indirect enum JSON {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    func write(to out: inout String) {
        switch self {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .int(let i): out += String(i)
        case .double(let d): out += d.isFinite ? String(d) : "null"
        case .string(let s): JSON.quote(s, into: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += ", " }
                item.write(to: &out)
            }
            out += "]"
        case .object(let members):
            out += "{"
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out += ", " }
                JSON.quote(key, into: &out)
                out += ": "
                value.write(to: &out)
            }
            out += "}"
        }
    }

    static func quote(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x2028 || scalar.value == 0x2029:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

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
        }
    }
}
