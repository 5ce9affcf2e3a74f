// The D-Bus wire format (the specification's "Message Protocol"), written for `QuickCall`:
// little-endian, every value aligned to its type's boundary counted from the message's start.

/// What `QuickCall` cannot write (a file descriptor needs libdbus' ancillary data).
struct WireUnsupported: Error {}

/// The alignment of the type whose signature begins with `code`.
func wireAlignment(of code: UInt8?) -> Int {
    switch code {
    case UInt8(ascii: "n"), UInt8(ascii: "q"): return 2
    case UInt8(ascii: "b"), UInt8(ascii: "i"), UInt8(ascii: "u"), UInt8(ascii: "s"), UInt8(ascii: "o"),
         UInt8(ascii: "a"), UInt8(ascii: "h"): return 4
    case UInt8(ascii: "x"), UInt8(ascii: "t"), UInt8(ascii: "d"), UInt8(ascii: "("), UInt8(ascii: "{"): return 8
    default: return 1   // y, g, v
    }
}

/// Bytes of one message being written.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    mutating func uint16(_ value: UInt16) {
        pad(to: 2)
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    mutating func uint32(_ value: UInt32) {
        pad(to: 4)
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }

    mutating func uint64(_ value: UInt64) {
        pad(to: 8)
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }

    mutating func string(_ text: String) {
        uint32(UInt32(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }

    mutating func signature(_ text: String) {
        byte(UInt8(text.utf8.count))
        bytes.append(contentsOf: text.utf8)
        bytes.append(0)
    }

    /// Sets a 32-bit length written earlier at `offset`.
    mutating func patch(_ value: UInt32, at offset: Int) {
        for index in 0..<4 { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> UInt32(8 * index)) }
    }

    mutating func value(_ value: DBusValue) throws {
        switch value {
        case .byte(let v): byte(v)
        case .bool(let v): uint32(v ? 1 : 0)
        case .int16(let v): uint16(UInt16(bitPattern: v))
        case .uint16(let v): uint16(v)
        case .int32(let v): uint32(UInt32(bitPattern: v))
        case .uint32(let v): uint32(v)
        case .int64(let v): uint64(UInt64(bitPattern: v))
        case .uint64(let v): uint64(v)
        case .double(let v): uint64(v.bitPattern)
        case .string(let s), .objectPath(let s): string(s)
        case .signature(let g): signature(g)
        case .unixFD: throw WireUnsupported()
        case .array(let element, let items):
            try array(alignment: wireAlignment(of: element.utf8.first)) {
                for item in items { try $0.value(item) }
            }
        case .dictionary(_, _, let entries):
            try array(alignment: 8) {
                for (key, value) in entries {
                    $0.pad(to: 8)
                    try $0.value(key)
                    try $0.value(value)
                }
            }
        case .structure(let fields):
            pad(to: 8)
            for field in fields { try self.value(field) }
        case .variant(let inner):
            signature(inner.signature)
            try self.value(inner)
        }
    }

    /// An array: its length in bytes, padding to the first element (even when there is none), the elements.
    private mutating func array(alignment: Int, _ elements: (inout WireWriter) throws -> Void) throws {
        uint32(0)
        let lengthOffset = bytes.count - 4
        pad(to: alignment)
        let start = bytes.count
        try elements(&self)
        patch(UInt32(bytes.count - start), at: lengthOffset)
    }
}

/// Message types and header fields of the specification.
enum Wire {
    static let methodCall: UInt8 = 1
    static let methodReturn: UInt8 = 2
    static let error: UInt8 = 3
    static let signal: UInt8 = 4

    static let fieldPath: UInt8 = 1
    static let fieldInterface: UInt8 = 2
    static let fieldMember: UInt8 = 3
    static let fieldErrorName: UInt8 = 4
    static let fieldReplySerial: UInt8 = 5
    static let fieldDestination: UInt8 = 6
    static let fieldSignature: UInt8 = 8

    /// The largest message the specification allows (128 MiB).
    static let maximumMessage = 134_217_728

    /// A METHOD_CALL that may start its destination (no NO_AUTO_START flag) and wants a reply.
    static func methodCall(serial: UInt32, destination: String, path: String, interface: String,
                           member: String, arguments: [DBusValue]) throws -> [UInt8] {
        var body = WireWriter()
        for argument in arguments { try body.value(argument) }
        let signature = DBusValue.signature(of: arguments)

        var message = WireWriter()
        message.byte(UInt8(ascii: "l"))
        message.byte(methodCall)
        message.byte(0)     // flags
        message.byte(1)     // protocol version
        message.uint32(UInt32(body.bytes.count))
        message.uint32(serial)
        func field(_ code: UInt8, _ value: DBusValue) -> DBusValue { .structure([.byte(code), .variant(value)]) }
        var fields = [field(fieldPath, .objectPath(path)), field(fieldInterface, .string(interface)),
                      field(fieldMember, .string(member)), field(fieldDestination, .string(destination))]
        if !signature.isEmpty { fields.append(field(fieldSignature, .signature(signature))) }
        try message.value(.array(elementSignature: "(yv)", fields))
        message.pad(to: 8)
        return message.bytes + body.bytes
    }
}
