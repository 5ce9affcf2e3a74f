import CDBus

/// A D-Bus type code (`DBUS_TYPE_*` from dbus-protocol.h), spelled out because Swift cannot
/// import those macros.
public struct TypeCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let invalid = TypeCode(rawValue: 0)
    public static let byte = TypeCode(rawValue: 121)        // 'y'
    public static let boolean = TypeCode(rawValue: 98)      // 'b'
    public static let int16 = TypeCode(rawValue: 110)       // 'n'
    public static let uint16 = TypeCode(rawValue: 113)      // 'q'
    public static let int32 = TypeCode(rawValue: 105)       // 'i'
    public static let uint32 = TypeCode(rawValue: 117)      // 'u'
    public static let int64 = TypeCode(rawValue: 120)       // 'x'
    public static let uint64 = TypeCode(rawValue: 116)      // 't'
    public static let double = TypeCode(rawValue: 100)      // 'd'
    public static let string = TypeCode(rawValue: 115)      // 's'
    public static let objectPath = TypeCode(rawValue: 111)  // 'o'
    public static let signature = TypeCode(rawValue: 103)   // 'g'
    public static let unixFD = TypeCode(rawValue: 104)      // 'h'
    public static let array = TypeCode(rawValue: 97)        // 'a'
    public static let variant = TypeCode(rawValue: 118)     // 'v'
    public static let structure = TypeCode(rawValue: 114)   // 'r'
    public static let dictEntry = TypeCode(rawValue: 101)   // 'e'
}

/// A D-Bus value. Every value knows its own signature.
public indirect enum DBusValue: Sendable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// A Unix file descriptor (`h`). Appending duplicates it (the caller keeps its own); one read
    /// from a message is a new descriptor that the reader owns and must close.
    case unixFD(Int32)
    /// An array whose elements all have `elementSignature` (needed for empty arrays).
    case array(elementSignature: String, [DBusValue])
    /// `a{kv}`: an array of dict entries, order preserved.
    case dictionary(keySignature: String, valueSignature: String, [(DBusValue, DBusValue)])
    case structure([DBusValue])
    case variant(DBusValue)

    /// The D-Bus signature of this value (one complete type).
    public var signature: String {
        switch self {
        case .byte: return "y"
        case .bool: return "b"
        case .int16: return "n"
        case .uint16: return "q"
        case .int32: return "i"
        case .uint32: return "u"
        case .int64: return "x"
        case .uint64: return "t"
        case .double: return "d"
        case .string: return "s"
        case .objectPath: return "o"
        case .signature: return "g"
        case .unixFD: return "h"
        case .array(let element, _): return "a" + element
        case .dictionary(let key, let value, _): return "a{" + key + value + "}"
        case .structure(let fields): return "(" + DBusValue.signature(of: fields) + ")"
        case .variant: return "v"
        }
    }

    /// The signature of a list of values, e.g. the arguments of a message.
    public static func signature(of values: [DBusValue]) -> String {
        values.reduce(into: "") { $0 += $1.signature }   // not joined(): no run-time protocol lookup
    }
}

// MARK: - Convenience accessors and constructors

extension DBusValue {
    /// `.string`, `.objectPath` and `.signature` all give their text.
    public var stringValue: String? {
        switch self {
        case .string(let s), .objectPath(let s), .signature(let s): return s
        default: return nil
        }
    }
    public var boolValue: Bool? { if case .bool(let v) = self { return v }; return nil }
    public var byteValue: UInt8? { if case .byte(let v) = self { return v }; return nil }
    public var int32Value: Int32? { if case .int32(let v) = self { return v }; return nil }
    public var uint32Value: UInt32? { if case .uint32(let v) = self { return v }; return nil }
    public var int64Value: Int64? { if case .int64(let v) = self { return v }; return nil }
    public var uint64Value: UInt64? { if case .uint64(let v) = self { return v }; return nil }
    public var doubleValue: Double? { if case .double(let v) = self { return v }; return nil }
    /// The contents of a variant.
    public var variantValue: DBusValue? { if case .variant(let v) = self { return v }; return nil }

    /// The elements of an array (for a dictionary: its entries as two-field structures).
    public var arrayValue: [DBusValue]? {
        switch self {
        case .array(_, let items): return items
        case .dictionary(_, _, let entries): return entries.map { .structure([$0.0, $0.1]) }
        default: return nil
        }
    }

    /// An `a{sv}` as a Swift dictionary (variants unwrapped); nil for anything else.
    public var variantDictionary: [String: DBusValue]? {
        guard case .dictionary(let k, let v, let entries) = self, k == "s", v == "v" else { return nil }
        var result: [String: DBusValue] = [:]
        for (key, value) in entries {
            guard let name = key.stringValue, case .variant(let inner) = value else { return nil }
            result[name] = inner
        }
        return result
    }

    /// An `a{sv}` from a Swift dictionary, keys sorted so the encoding is deterministic.
    public static func vardict(_ values: [String: DBusValue]) -> DBusValue {
        .dictionary(keySignature: "s", valueSignature: "v",
                    values.sorted { $0.key < $1.key }.map { (.string($0.key), .variant($0.value)) })
    }

    /// An `as` from Swift strings.
    public static func stringArray(_ values: [String]) -> DBusValue {
        .array(elementSignature: "s", values.map { .string($0) })
    }
}

extension DBusValue: Equatable {
    public static func == (lhs: DBusValue, rhs: DBusValue) -> Bool {
        switch (lhs, rhs) {
        case (.byte(let a), .byte(let b)): return a == b
        case (.bool(let a), .bool(let b)): return a == b
        case (.int16(let a), .int16(let b)): return a == b
        case (.uint16(let a), .uint16(let b)): return a == b
        case (.int32(let a), .int32(let b)): return a == b
        case (.uint32(let a), .uint32(let b)): return a == b
        case (.int64(let a), .int64(let b)): return a == b
        case (.uint64(let a), .uint64(let b)): return a == b
        case (.double(let a), .double(let b)): return a == b || (a.isNaN && b.isNaN)
        case (.string(let a), .string(let b)): return a == b
        case (.objectPath(let a), .objectPath(let b)): return a == b
        case (.signature(let a), .signature(let b)): return a == b
        case (.unixFD(let a), .unixFD(let b)): return a == b
        case (.array(let sa, let a), .array(let sb, let b)): return sa == sb && a == b
        case (.dictionary(let ka, let va, let a), .dictionary(let kb, let vb, let b)):
            return ka == kb && va == vb && a.count == b.count
                && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case (.structure(let a), .structure(let b)): return a == b
        case (.variant(let a), .variant(let b)): return a == b
        default: return false
        }
    }
}

// MARK: - Writing through DBusMessageIter

extension DBusValue {
    /// Checks the whole value (strings, paths, signatures, element types) without touching libdbus
    /// state, so a refused value never leaves a half-written message.
    func validate() throws {
        switch self {
        case .string(let s): try Validation.checkString(s)
        case .objectPath(let p): try Validation.checkObjectPath(p)
        case .signature(let g): try Validation.checkSignature(g)
        case .array(let element, let items):
            guard Signature.isSingleCompleteType(element) else {
                throw BusError(name: BusError.invalidArgs, message: "Invalid array element signature '\(element)'")
            }
            for item in items {
                guard item.signature == element else {
                    throw BusError(name: BusError.invalidArgs,
                                   message: "Array of '\(element)' holds a '\(item.signature)'")
                }
                try item.validate()
            }
        case .dictionary(let key, let value, let entries):
            guard Signature.isSingleCompleteType("a{" + key + value + "}") else {
                throw BusError(name: BusError.invalidArgs, message: "Invalid dictionary signature 'a{\(key)\(value)}'")
            }
            for (k, v) in entries {
                guard k.signature == key, v.signature == value else {
                    throw BusError(name: BusError.invalidArgs,
                                   message: "Dictionary a{\(key)\(value)} holds a {\(k.signature)\(v.signature)}")
                }
                try k.validate()
                try v.validate()
            }
        case .structure(let fields):
            guard !fields.isEmpty else {
                throw BusError(name: BusError.invalidArgs, message: "A structure needs at least one field")
            }
            for field in fields { try field.validate() }
        case .variant(let inner):
            try inner.validate()
        default: break
        }
    }

    /// Appends a value that `validate()` accepted.
    func append(to iter: inout DBusMessageIter) throws {
        func basic<T>(_ type: TypeCode, _ value: T) throws {
            var copy = value
            let ok = withUnsafePointer(to: &copy) { dbus_message_iter_append_basic(&iter, type.rawValue, $0) }
            if ok == 0 { throw BusError.noMemory }
        }
        func text(_ type: TypeCode, _ value: String) throws {
            let ok = value.withCString { cString -> dbus_bool_t in
                var pointer: UnsafePointer<CChar>? = cString
                return withUnsafePointer(to: &pointer) { dbus_message_iter_append_basic(&iter, type.rawValue, $0) }
            }
            if ok == 0 { throw BusError.noMemory }
        }
        func container(_ type: TypeCode, _ contained: String?, _ body: (inout DBusMessageIter) throws -> Void) throws {
            var sub = DBusMessageIter()
            let opened: dbus_bool_t
            if let contained {
                opened = contained.withCString { dbus_message_iter_open_container(&iter, type.rawValue, $0, &sub) }
            } else {
                opened = dbus_message_iter_open_container(&iter, type.rawValue, nil, &sub)
            }
            if opened == 0 { throw BusError.noMemory }
            do {
                try body(&sub)
            } catch {
                dbus_message_iter_abandon_container(&iter, &sub)
                throw error
            }
            if dbus_message_iter_close_container(&iter, &sub) == 0 { throw BusError.noMemory }
        }

        switch self {
        case .byte(let v): try basic(.byte, v)
        case .bool(let v): try basic(.boolean, dbus_bool_t(v ? 1 : 0))
        case .int16(let v): try basic(.int16, v)
        case .uint16(let v): try basic(.uint16, v)
        case .int32(let v): try basic(.int32, v)
        case .uint32(let v): try basic(.uint32, v)
        case .int64(let v): try basic(.int64, v)
        case .uint64(let v): try basic(.uint64, v)
        case .double(let v): try basic(.double, v)
        case .string(let v): try text(.string, v)
        case .objectPath(let v): try text(.objectPath, v)
        case .signature(let v): try text(.signature, v)
        case .unixFD(let v): try basic(.unixFD, v)
        case .array(let element, let items):
            try container(.array, element) { sub in
                for item in items { try item.append(to: &sub) }
            }
        case .dictionary(let key, let value, let entries):
            try container(.array, "{" + key + value + "}") { sub in
                for (k, v) in entries {
                    var entry = DBusMessageIter()
                    if dbus_message_iter_open_container(&sub, TypeCode.dictEntry.rawValue, nil, &entry) == 0 {
                        throw BusError.noMemory
                    }
                    do {
                        try k.append(to: &entry)
                        try v.append(to: &entry)
                    } catch {
                        dbus_message_iter_abandon_container(&sub, &entry)
                        throw error
                    }
                    if dbus_message_iter_close_container(&sub, &entry) == 0 { throw BusError.noMemory }
                }
            }
        case .structure(let fields):
            try container(.structure, nil) { sub in
                for field in fields { try field.append(to: &sub) }
            }
        case .variant(let inner):
            try container(.variant, inner.signature) { sub in try inner.append(to: &sub) }
        }
    }
}

// MARK: - Reading through DBusMessageIter

extension DBusValue {
    /// Reads every value from `iter` to its end.
    static func readAll(_ iter: inout DBusMessageIter) throws -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != TypeCode.invalid.rawValue {
            values.append(try read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    /// Reads the value at the iterator's current position.
    static func read(_ iter: inout DBusMessageIter) throws -> DBusValue {
        func basic<T>(_ initial: T) -> T {
            var value = initial
            withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iter, $0) }
            return value
        }
        func text() -> String {
            var pointer: UnsafePointer<CChar>? = nil
            withUnsafeMutablePointer(to: &pointer) { dbus_message_iter_get_basic(&iter, $0) }
            return pointer.map { String(cString: $0) } ?? ""
        }
        func currentSignature(_ iter: inout DBusMessageIter) -> String {
            guard let raw = dbus_message_iter_get_signature(&iter) else { return "" }
            defer { dbus_free(raw) }
            return String(cString: raw)
        }

        let type = TypeCode(rawValue: dbus_message_iter_get_arg_type(&iter))
        switch type {
        case .byte: return .byte(basic(UInt8(0)))
        case .boolean: return .bool(basic(dbus_bool_t(0)) != 0)
        case .int16: return .int16(basic(Int16(0)))
        case .uint16: return .uint16(basic(UInt16(0)))
        case .int32: return .int32(basic(Int32(0)))
        case .uint32: return .uint32(basic(UInt32(0)))
        case .int64: return .int64(basic(Int64(0)))
        case .uint64: return .uint64(basic(UInt64(0)))
        case .double: return .double(basic(Double(0)))
        case .string: return .string(text())
        case .objectPath: return .objectPath(text())
        case .signature: return .signature(text())
        case .unixFD: return .unixFD(basic(Int32(-1)))
        case .array:
            let full = currentSignature(&iter)            // e.g. "a{sv}" or "as"
            let element = String(full.dropFirst())
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            if dbus_message_iter_get_element_type(&iter) == TypeCode.dictEntry.rawValue {
                let inner = Array(element.utf8.dropFirst().dropLast())   // between { and }
                let keyEnd = Signature.completeTypeEnd(inner, from: 0)
                let key = String(decoding: inner[0..<keyEnd], as: UTF8.self)
                let value = String(decoding: inner[keyEnd...], as: UTF8.self)
                var entries: [(DBusValue, DBusValue)] = []
                while dbus_message_iter_get_arg_type(&sub) == TypeCode.dictEntry.rawValue {
                    var entry = DBusMessageIter()
                    dbus_message_iter_recurse(&sub, &entry)
                    let k = try read(&entry)
                    dbus_message_iter_next(&entry)
                    let v = try read(&entry)
                    entries.append((k, v))
                    dbus_message_iter_next(&sub)
                }
                return .dictionary(keySignature: key, valueSignature: value, entries)
            }
            return .array(elementSignature: element, try readAll(&sub))
        case .structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(try readAll(&sub))
        case .variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try read(&sub))
        default:
            throw BusError(name: BusError.notSupported,
                           message: "Unsupported D-Bus type code \(type.rawValue)")
        }
    }
}
