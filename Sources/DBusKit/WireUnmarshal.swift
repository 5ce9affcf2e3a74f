// Reading the D-Bus wire format for `QuickCall`: a message's header, and its body as the same
// `DBusValue`s libdbus' reader (`DBusValue.read`) makes, in either byte order.

/// A message that breaks the specification's rules.
struct WireMalformed: Error {}

/// Reads values from one message: `count` bytes of `bytes` from `start`; offsets (and so
/// alignment) count from the message's start.
struct WireReader {
    private let bytes: [UInt8]
    private let start: Int
    let count: Int
    let littleEndian: Bool
    private(set) var offset = 0

    init(_ bytes: [UInt8], start: Int, count: Int) {
        self.bytes = bytes
        self.start = start
        self.count = min(count, bytes.count - start)
        littleEndian = bytes[start] == UInt8(ascii: "l")
    }

    private func at(_ index: Int) -> UInt8 { bytes[start + index] }

    mutating func align(_ alignment: Int) throws {
        let aligned = (offset + alignment - 1) / alignment * alignment
        guard aligned <= count else { throw WireMalformed() }
        offset = aligned
    }

    private mutating func unsigned(_ size: Int) throws -> UInt64 {
        try align(size)
        guard offset + size <= count else { throw WireMalformed() }
        var value: UInt64 = 0
        for index in 0..<size {
            let byte = UInt64(at(offset + (littleEndian ? size - 1 - index : index)))
            value = value << 8 | byte
        }
        offset += size
        return value
    }

    mutating func byte() throws -> UInt8 { UInt8(try unsigned(1)) }
    mutating func uint32() throws -> UInt32 { UInt32(try unsigned(4)) }

    private mutating func text(length: Int) throws -> String {
        guard length >= 0, offset + length < count, at(offset + length) == 0 else { throw WireMalformed() }
        let first = start + offset
        let text = String(decoding: bytes[first..<first + length], as: UTF8.self)
        offset += length + 1
        return text
    }

    mutating func string() throws -> String { try text(length: Int(try uint32())) }
    mutating func signature() throws -> String { try text(length: Int(try byte())) }

    /// Every value of `signature` (a message body: any number of complete types).
    mutating func values(_ signature: String) throws -> [DBusValue] {
        guard Signature.isValid(signature) else { throw WireMalformed() }
        return try values(of: Array(signature.utf8))
    }

    /// The values of the complete types in `types` (a valid signature), one after another.
    private mutating func values(of types: [UInt8]) throws -> [DBusValue] {
        var values: [DBusValue] = []
        var index = 0
        while index < types.count {
            let end = Signature.completeTypeEnd(types, from: index)
            values.append(try value(Array(types[index..<end])))
            index = end
        }
        return values
    }

    /// One value of the single complete type `type`.
    mutating func value(_ type: [UInt8]) throws -> DBusValue {
        guard let code = type.first else { throw WireMalformed() }
        switch code {
        case UInt8(ascii: "y"): return .byte(try byte())
        case UInt8(ascii: "b"): return .bool(try uint32() != 0)
        case UInt8(ascii: "n"): return .int16(Int16(bitPattern: UInt16(try unsigned(2))))
        case UInt8(ascii: "q"): return .uint16(UInt16(try unsigned(2)))
        case UInt8(ascii: "i"): return .int32(Int32(bitPattern: try uint32()))
        case UInt8(ascii: "u"): return .uint32(try uint32())
        case UInt8(ascii: "x"): return .int64(Int64(bitPattern: try unsigned(8)))
        case UInt8(ascii: "t"): return .uint64(try unsigned(8))
        case UInt8(ascii: "d"): return .double(Double(bitPattern: try unsigned(8)))
        case UInt8(ascii: "s"): return .string(try string())
        case UInt8(ascii: "o"): return .objectPath(try string())
        case UInt8(ascii: "g"): return .signature(try signature())
        case UInt8(ascii: "v"):
            let inner = try signature()
            guard Signature.isSingleCompleteType(inner) else { throw WireMalformed() }
            return .variant(try value(Array(inner.utf8)))
        case UInt8(ascii: "("):
            try align(8)
            return .structure(try values(of: Array(type.dropFirst().dropLast())))
        case UInt8(ascii: "a"): return try array(element: Array(type.dropFirst()))
        default: throw WireMalformed()   // h: QuickCall receives no file descriptors
        }
    }

    private mutating func array(element: [UInt8]) throws -> DBusValue {
        let length = Int(try uint32())
        try align(wireAlignment(of: element.first))
        let end = offset + length
        guard length <= 67_108_864, end <= count else { throw WireMalformed() }
        if element.first == UInt8(ascii: "{") {
            let inner = Array(element.dropFirst().dropLast())   // between { and }
            let keyEnd = Signature.completeTypeEnd(inner, from: 0)
            guard keyEnd > 0, keyEnd < inner.count else { throw WireMalformed() }
            var entries: [(DBusValue, DBusValue)] = []
            while offset < end {
                try align(8)
                let key = try value(Array(inner[0..<keyEnd]))
                entries.append((key, try value(Array(inner[keyEnd...]))))
            }
            guard offset == end else { throw WireMalformed() }
            return .dictionary(keySignature: String(decoding: inner[0..<keyEnd], as: UTF8.self),
                               valueSignature: String(decoding: inner[keyEnd...], as: UTF8.self), entries)
        }
        var items: [DBusValue] = []
        while offset < end { items.append(try value(element)) }
        guard offset == end else { throw WireMalformed() }
        return .array(elementSignature: String(decoding: element, as: UTF8.self), items)
    }
}

/// One message read from the bus: what `QuickCall` needs of its header, and its body.
struct WireMessage {
    var type: UInt8
    var serial: UInt32
    var replySerial: UInt32 = 0
    var errorName: String?
    var body: [DBusValue] = []

    /// The length of the message at `start` in `bytes`, once its fixed header is there (nil before).
    static func length(of bytes: [UInt8], at start: Int) throws -> Int? {
        guard bytes.count - start >= 16 else { return nil }
        guard bytes[start] == UInt8(ascii: "l") || bytes[start] == UInt8(ascii: "B") else { throw WireMalformed() }
        var reader = WireReader(bytes, start: start, count: 16)
        _ = try reader.uint32()
        let bodyLength = Int(try reader.uint32())
        _ = try reader.uint32()
        let fieldsLength = Int(try reader.uint32())
        let headerLength = (16 + fieldsLength + 7) / 8 * 8
        guard bodyLength <= Wire.maximumMessage, fieldsLength <= Wire.maximumMessage,
              headerLength + bodyLength <= Wire.maximumMessage else { throw WireMalformed() }
        return headerLength + bodyLength
    }

    /// Parses the whole message of `length` bytes at `start` in `bytes`.
    init(_ bytes: [UInt8], at start: Int, length: Int) throws {
        guard length >= 16, bytes.count - start >= length else { throw WireMalformed() }
        var reader = WireReader(bytes, start: start, count: length)
        _ = try reader.byte()
        type = try reader.byte()
        _ = try reader.byte()   // flags
        guard try reader.byte() == 1 else { throw WireMalformed() }
        let bodyLength = Int(try reader.uint32())
        serial = try reader.uint32()
        var signature = ""
        let fields = try reader.value(Array("a(yv)".utf8))
        for field in fields.arrayValue ?? [] {
            guard case .structure(let parts) = field, parts.count == 2,
                  let code = parts[0].byteValue, let value = parts[1].variantValue else { throw WireMalformed() }
            switch code {
            case Wire.fieldReplySerial: replySerial = value.uint32Value ?? 0
            case Wire.fieldErrorName: errorName = value.stringValue
            case Wire.fieldSignature: signature = value.stringValue ?? ""
            default: break
            }
        }
        try reader.align(8)
        guard reader.offset + bodyLength == length else { throw WireMalformed() }
        body = try reader.values(signature)
    }

    /// For an ERROR message, the error it carries (its first argument is the message).
    var error: BusError? {
        guard type == Wire.error else { return nil }
        return BusError(name: errorName ?? BusError.failed, message: body.first?.stringValue ?? "")
    }
}
