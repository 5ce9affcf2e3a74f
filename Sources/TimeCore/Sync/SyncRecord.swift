import CKernel
import Glibc

/// What a record changes (docs/sync.md, "A record").
public enum SyncKind: String, Sendable, CaseIterable {
    case category, project, session, device
}

public enum SyncOperation: String, Sendable {
    case create, set, delete
}

/// Why a complete line of a change file cannot be applied.
public struct SyncRecordError: Error, Equatable, CustomStringConvertible {
    public let reason: String
    /// Set for a well-formed record of a kind or operation this version does not know (its
    /// checksum right): not damage, but a record of a newer version, kept and skipped.
    public let notUnderstood: SyncNotUnderstood?
    public init(_ reason: String, notUnderstood: SyncNotUnderstood? = nil) { self.reason = reason; self.notUnderstood = notUnderstood }
    public var description: String { reason }
}

/// One line of a device's change file: one operation on one entity.
public struct SyncRecord: Equatable, Sendable {
    public var device: String
    public var sequence: Int64
    public var hlc: HLC
    public var kind: SyncKind
    public var id: String
    public var operation: SyncOperation
    public var fields: [String: JSON]

    public init(device: String, sequence: Int64, hlc: HLC, kind: SyncKind, id: String,
                operation: SyncOperation, fields: [String: JSON]) {
        self.device = device; self.sequence = sequence; self.hlc = hlc; self.kind = kind
        self.id = id; self.operation = operation; self.fields = fields
    }

    public var stamp: SyncStamp { SyncStamp(hlc: hlc, device: device, sequence: sequence) }

    /// The record as one JSON object without its checksum (canonical once its keys are sorted).
    var body: [String: JSON] {
        [
            "dev": .string(device), "seq": .int(sequence),
            "hlc": .array([.int(hlc.time), .int(hlc.counter)]),
            "kind": .string(kind.rawValue), "id": .string(id), "op": .string(operation.rawValue),
            "fields": SyncRecord.canonical(.object(fields.map { ($0.key, $0.value) })),
        ]
    }

    /// The line as written: canonical JSON with its checksum, ended by a newline.
    public var line: String { String(decoding: lineBytes, as: UTF8.self) }

    /// The line's bytes, written straight in the canonical key order (dev, fields, hlc, id, kind,
    /// op, seq, then sum, which sorts after them all): every local change writes a few, so no
    /// dictionary or String is built on the way. A test holds them byte for byte to the sorted `body`.
    public var lineBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(192)
        out += #"{"dev":"#.utf8
        JSON.writeString(device, to: &out)
        out += #","fields":{"#.utf8
        for (index, key) in fields.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
            if index > 0 { out.append(0x2c) }
            JSON.writeString(key, to: &out)
            out.append(0x3a)
            SyncRecord.writeCanonical(fields[key]!, to: &out)
        }
        out += #"},"hlc":["#.utf8
        JSON.writeDecimal(hlc.time, to: &out)
        out.append(0x2c)
        JSON.writeDecimal(hlc.counter, to: &out)
        out += #"],"id":"#.utf8
        JSON.writeString(id, to: &out)
        out += #","kind":"#.utf8
        JSON.writeString(kind.rawValue, to: &out)
        out += #","op":"#.utf8
        JSON.writeString(operation.rawValue, to: &out)
        out += #","seq":"#.utf8
        JSON.writeDecimal(sequence, to: &out)
        out.append(0x7d)
        let sum = SHA256.hex(out)
        out.removeLast()
        out += #","sum":""#.utf8
        out += sum.utf8
        out += "\"}\n".utf8
        return out
    }

    /// The canonical JSON of an object with these members, as bytes (what a checksum covers).
    static func canonicalBytes(of members: [String: JSON]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        writeCanonical(.object(members.map { ($0.key, $0.value) }), to: &out)
        return out
    }

    /// `value` in canonical form (objects with their keys sorted, all the way down), written.
    private static func writeCanonical(_ value: JSON, to out: inout [UInt8]) {
        switch value {
        case .object(let members):
            var table: [String: JSON] = [:]
            for (key, member) in members { table[key] = member }  // the last of a key twice, as `canonical` keeps
            out.append(0x7b)
            for (index, key) in table.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }).enumerated() {
                if index > 0 { out.append(0x2c) }
                JSON.writeString(key, to: &out)
                out.append(0x3a)
                writeCanonical(table[key]!, to: &out)
            }
            out.append(0x7d)
        case .array(let items):
            out.append(0x5b)
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(0x2c) }
                writeCanonical(item, to: &out)
            }
            out.append(0x5d)
        default: value.write(to: &out)
        }
    }

    /// Reads one complete line (without its newline) written by the device `folderDevice`.
    public static func decode(_ bytes: ArraySlice<UInt8>, folderDevice: String) throws(SyncRecordError) -> SyncRecord {
        let value: JSON
        do { value = try JSON.parse(Array(bytes)) } catch { throw SyncRecordError("not JSON (\(error))") }
        guard case .object(let members) = value else { throw SyncRecordError("not a JSON object") }
        var table: [String: JSON] = [:]
        for (key, member) in members {
            guard table.updateValue(member, forKey: key) == nil else { throw SyncRecordError("key \(key) twice") }
        }
        guard let sum = table.removeValue(forKey: "sum")?.stringValue else { throw SyncRecordError("no checksum") }
        guard SHA256.hex(canonicalBytes(of: table)) == sum else {
            throw SyncRecordError("checksum does not match")
        }
        guard let device = table["dev"]?.stringValue, device == folderDevice else {
            throw SyncRecordError("written for another device than its folder \(folderDevice)")
        }
        guard let sequence = table["seq"]?.intValue, sequence > 0 else { throw SyncRecordError("no sequence number") }
        guard let clock = table["hlc"]?.arrayValue, clock.count == 2,
              let time = clock[0].intValue, let counter = clock[1].intValue, counter >= 0 else {
            throw SyncRecordError("no clock reading")
        }
        guard let kindName = table["kind"]?.stringValue, !kindName.isEmpty else { throw SyncRecordError("no kind") }
        guard let operationName = table["op"]?.stringValue, !operationName.isEmpty else { throw SyncRecordError("no operation") }
        // A kind or an operation of a newer version (docs/sync.md, "Versions"): kept, skipped, told.
        guard let kind = SyncUnderstanding.kind(kindName) else {
            throw SyncRecordError("kind \"\(kindName)\" of a newer version", notUnderstood: SyncNotUnderstood(
                sequence: sequence, hlc: HLC(time: time, counter: counter), what: "kind \"\(kindName)\""))
        }
        guard let operation = SyncUnderstanding.operation(operationName) else {
            throw SyncRecordError("operation \"\(operationName)\" of a newer version", notUnderstood: SyncNotUnderstood(
                sequence: sequence, hlc: HLC(time: time, counter: counter), what: "operation \"\(operationName)\""))
        }
        guard let id = table["id"]?.stringValue, !id.isEmpty else { throw SyncRecordError("no entity id") }
        guard case .object(let fieldList)? = table["fields"] else { throw SyncRecordError("no fields") }
        // Other keys a newer version may add to every record are ignored, as unknown fields are.
        var fields: [String: JSON] = [:]
        for (key, field) in fieldList { fields[key] = field }
        return SyncRecord(device: device, sequence: sequence, hlc: HLC(time: time, counter: counter), kind: kind,
                          id: id, operation: operation, fields: fields)
    }

    /// Objects with their keys sorted, all the way down: the form the checksum covers.
    static func canonical(_ value: JSON) -> JSON {
        switch value {
        case .object(let members):
            var table: [String: JSON] = [:]
            for (key, member) in members { table[key] = canonical(member) }
            return JSON.sortedObject(table)
        case .array(let items): return .array(items.map(canonical))
        default: return value
        }
    }

    /// 32 random lower-case hex digits: a device id or an entity's global id.
    public static func newID<Generator: RandomNumberGenerator>(using generator: inout Generator) -> String {
        let first = generator.next()
        return hexID(first, generator.next())
    }

    /// The nibbles of two words, lowest first, as hex digits, written straight into the string's
    /// storage (every start makes one: a character at a time it was a growing string's copies).
    static func hexID(_ first: UInt64, _ second: UInt64) -> String {
        String(unsafeUninitializedCapacity: 32) { bytes in
            func write(_ word: UInt64, at offset: Int) {
                var word = word
                for index in offset..<offset + 16 {
                    let nibble = UInt8(truncatingIfNeeded: word & 15)
                    bytes[index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
                    word >>= 4
                }
            }
            write(first, at: 0)
            write(second, at: 16)
            return 32
        }
    }

    /// Where `newID()` takes its ids when set: a test that replays a seed sets a seeded source
    /// (SyncClientWorld). The ids decide the order in which a merge numbers the rows it adds (in
    /// global-id order), so with the system's random ids one seed made a different run each time.
    nonisolated(unsafe) static var idSource: (() -> String)?

    public static func newID() -> String {
        if let idSource { return idSource() }
        // Both words from one getrandom(2), where the system's generator asks once for each.
        var words: (UInt64, UInt64) = (0, 0)
        let filled = withUnsafeMutableBytes(of: &words) { getrandom($0.baseAddress, $0.count, 0) }
        guard filled == MemoryLayout.size(ofValue: words) else {
            var system = SystemRandomNumberGenerator()
            return newID(using: &system)
        }
        return hexID(words.0, words.1)
    }
}
