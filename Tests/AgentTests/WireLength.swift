import DBusKit
import TestSupport

/// How long a message body is on the wire (the specification's marshalling, alignment included)
/// and its longest array, computed from the values without marshalling them: the fuzzer sends
/// only what a session bus passes on (`PrivateBus.maximumMessage`, `.maximumArray`) and counts
/// the rest as unsendable: a bus drops the client that sends more, whatever the agent would do.
struct WireLength {
    private(set) var body = 0
    private(set) var longestArray = 0

    init(_ values: [DBusValue]) {
        for value in values { place(value) }
    }

    /// Room for the header (path, interface, member, destination, signature, sender).
    static let headerRoom = 4_096

    /// Whether the bus passes a message with this body on.
    var fitsTheBus: Bool {
        body + Self.headerRoom <= PrivateBus.maximumMessage && longestArray <= PrivateBus.maximumArray
    }

    private mutating func align(_ boundary: Int) { body = (body + boundary - 1) / boundary * boundary }

    /// The alignment of a type by its signature's first character.
    private static func alignment(_ signature: String) -> Int {
        switch signature.first {
        case "n", "q": 2
        case "b", "i", "u", "h", "s", "o", "a": 4
        case "x", "t", "d", "(", "{": 8
        default: 1   // y, g, v
        }
    }

    private mutating func place(_ value: DBusValue) {
        switch value {
        case .byte: body += 1
        case .int16, .uint16: align(2); body += 2
        case .bool, .int32, .uint32, .unixFD: align(4); body += 4
        case .int64, .uint64, .double: align(8); body += 8
        case .string(let text), .objectPath(let text): align(4); body += 4 + text.utf8.count + 1
        case .signature(let text): body += 1 + text.utf8.count + 1
        case .variant(let inner): body += 1 + inner.signature.utf8.count + 1; place(inner)
        case .structure(let fields): align(8); for field in fields { place(field) }
        case .array(let element, let items):
            align(4); body += 4
            align(Self.alignment(element))
            let start = body
            for item in items { place(item) }
            longestArray = max(longestArray, body - start)
        case .dictionary(_, _, let entries):
            align(4); body += 4
            align(8)
            let start = body
            for (key, entry) in entries { align(8); place(key); place(entry) }
            longestArray = max(longestArray, body - start)
        }
    }
}
