import CSQLite

/// Writes SQLite's changeset format (sqlite3session.h, "CHANGESET FORMAT"): per table a header
/// ('T', the column count as a varint, one byte per column that is 1 for the primary key, the
/// name and a NUL), then its changes, each an operation byte, an indirect byte and one or two
/// records. A record holds one field per column: a type byte, then for an integer or a real 8
/// bytes big-endian, for text or a blob a varint length and the bytes, for NULL nothing; type 0
/// leaves a column out (an update's unchanged columns).
struct ChangesetWriter {
    private(set) var bytes: [UInt8] = []
    private var tableStart = 0
    private var changesStart = 0

    mutating func beginTable(_ name: String, primaryKey: [Bool]) {
        tableStart = bytes.count
        bytes.append(UInt8(ascii: "T"))
        ChangesetWriter.appendVarint(UInt64(primaryKey.count), to: &bytes)
        bytes.append(contentsOf: primaryKey.map { $0 ? 1 : 0 })
        bytes.append(contentsOf: name.utf8)
        bytes.append(0)
        changesStart = bytes.count
    }

    /// A table none of whose rows changed in the end is left out.
    mutating func endTable() {
        if bytes.count == changesStart { bytes.removeSubrange(tableStart...) }
    }

    mutating func insert(_ row: ArraySlice<UInt8>, indirect: Bool) {
        bytes.append(UInt8(SQLITE_INSERT))
        bytes.append(indirect ? 1 : 0)
        bytes.append(contentsOf: row)
    }

    mutating func delete(_ row: ArraySlice<UInt8>, indirect: Bool) {
        bytes.append(UInt8(SQLITE_DELETE))
        bytes.append(indirect ? 1 : 0)
        bytes.append(contentsOf: row)
    }

    /// The old record holds the key and the changed columns as they were, the new one the changed
    /// columns as they are; nothing is written when no column changed.
    mutating func update(from before: [ArraySlice<UInt8>], to after: [ArraySlice<UInt8>], primaryKey: [Bool], indirect: Bool) {
        let changed = primaryKey.indices.map { !primaryKey[$0] && before[$0] != after[$0] }
        guard changed.contains(true) else { return }
        bytes.append(UInt8(SQLITE_UPDATE))
        bytes.append(indirect ? 1 : 0)
        for column in primaryKey.indices {
            if primaryKey[column] || changed[column] { bytes.append(contentsOf: before[column]) } else { bytes.append(FieldArena.undefined) }
        }
        for column in primaryKey.indices {
            if changed[column] { bytes.append(contentsOf: after[column]) } else { bytes.append(FieldArena.undefined) }
        }
    }

    /// One `sqlite3_value` as a field; an integer in a column of REAL affinity as a real.
    static func appendField(_ value: OpaquePointer, realAffinity: Bool = false, to bytes: inout [UInt8]) {
        let type = sqlite3_value_type(value)
        if realAffinity && type == SQLITE_INTEGER {
            bytes.append(UInt8(SQLITE_FLOAT))
            appendBigEndian(Double(sqlite3_value_int64(value)).bitPattern, to: &bytes)
            return
        }
        bytes.append(UInt8(type))
        switch type {
        case SQLITE_INTEGER:
            appendBigEndian(UInt64(bitPattern: sqlite3_value_int64(value)), to: &bytes)
        case SQLITE_FLOAT:
            appendBigEndian(sqlite3_value_double(value).bitPattern, to: &bytes)
        case SQLITE_TEXT:
            let text = sqlite3_value_text(value)
            let count = Int(sqlite3_value_bytes(value))
            appendVarint(UInt64(count), to: &bytes)
            if let text { bytes.append(contentsOf: UnsafeBufferPointer(start: text, count: count)) }
        case SQLITE_BLOB:
            let blob = sqlite3_value_blob(value)
            let count = Int(sqlite3_value_bytes(value))
            appendVarint(UInt64(count), to: &bytes)
            if let blob { bytes.append(contentsOf: UnsafeRawBufferPointer(start: blob, count: count)) }
        default:
            break
        }
    }

    private static func appendBigEndian(_ value: UInt64, to bytes: inout [UInt8]) {
        // One append of the eight bytes (every integer of every row a change writes comes here).
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Reads a varint written by `appendVarint`: its value and how many bytes it took.
    static func varint(in bytes: [UInt8], at start: Int) -> (value: UInt64, size: Int) {
        var value: UInt64 = 0
        for index in 0..<8 {
            let byte = bytes[start + index]
            value = value << 7 | UInt64(byte & 0x7f)
            if byte & 0x80 == 0 { return (value, index + 1) }
        }
        return (value << 8 | UInt64(bytes[start + 8]), 9)
    }

    /// SQLite's varint: 7 bits a byte, most significant first, the high bit set on all but the
    /// last; a value past 56 bits takes a ninth byte of 8 bits.
    static func appendVarint(_ value: UInt64, to bytes: inout [UInt8]) {
        // A text's length in a row image: one byte for one shorter than 128, with no array made.
        if value < 0x80 {
            bytes.append(UInt8(value))
            return
        }
        if value >> 56 != 0 {
            var high = value >> 8
            var groups: [UInt8] = []
            for _ in 0..<8 {
                groups.append(UInt8(high & 0x7f) | 0x80)
                high >>= 7
            }
            bytes.append(contentsOf: groups.reversed())
            bytes.append(UInt8(truncatingIfNeeded: value))
            return
        }
        var groups: [UInt8] = [UInt8(value & 0x7f)]
        var rest = value >> 7
        while rest != 0 {
            groups.append(UInt8(rest & 0x7f) | 0x80)
            rest >>= 7
        }
        bytes.append(contentsOf: groups.reversed())
    }
}
