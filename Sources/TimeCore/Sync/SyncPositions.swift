import Glibc

extension SyncCursor {
    /// The `sum` of a record line (without its newline): its last 64 characters before `"}`.
    static func sum(ofLine line: ArraySlice<UInt8>) -> String {
        guard line.count >= 66 else { return "" }
        return String(decoding: line[(line.endIndex - 66)..<(line.endIndex - 2)], as: UTF8.self)
    }
}

/// How far the store holds every other device's records (docs/sync.md, "Start-up"): per device,
/// the file, the offset after the last record merged, the next sequence number and the `sum` of
/// the line ending there. Saved in the store's `meta` in the same transaction as each merge, so
/// it always says what the store holds (a store restored from a snapshot has none, and starts
/// over). At start, a device whose files still have that line at that place only needs what
/// comes after it written into the store; anything that does not match counts as new (the old
/// way: everything is compared with the store again).
struct SyncPositions: Equatable {
    static let key = "sync_positions"
    var root: String
    var devices: [String: SyncCursor]

    /// The positions the store holds for `root`, nil when there are none or they are for another folder.
    static func load(_ store: Store, root: String) -> SyncPositions? {
        guard let text = try? store.meta(key), let value = try? JSON.parse(Array(text.utf8)),
              value["root"]?.stringValue == root, case .object(let members)? = value["devices"] else { return nil }
        var devices: [String: SyncCursor] = [:]
        for (device, entry) in members {
            guard let fields = entry.arrayValue, fields.count == 4, let file = fields[0].intValue, let offset = fields[1].intValue,
                  let next = fields[2].intValue, let sum = fields[3].stringValue else { continue }
            var cursor = SyncCursor()
            cursor.fileNumber = Int(file); cursor.offset = offset; cursor.nextSequence = next; cursor.lastSum = sum
            devices[device] = cursor
        }
        return SyncPositions(root: root, devices: devices)
    }

    func save(_ store: Store) throws {
        let members = devices.mapValues { cursor -> JSON in
            .array([.int(Int64(cursor.fileNumber)), .int(cursor.offset), .int(cursor.nextSequence), .string(cursor.lastSum)])
        }
        try store.setMeta(SyncPositions.key, JSON.sortedObject(["root": .string(root), "devices": JSON.sortedObject(members)]).serialized)
    }

    /// For each device whose files still hold, at the saved place, the line the saved position
    /// names: the sequence number up to which (exclusive) the store already holds its records.
    func held(in layout: SyncLayout) -> [String: Int64] {
        var held: [String: Int64] = [:]
        for (device, cursor) in devices where cursor.offset > 0 {
            let path = layout.deviceFolder(device) + "/" + SyncLayout.changeFileName(cursor.fileNumber)
            guard let tail = SyncLogReader.tail(of: path, from: max(0, cursor.offset - 80)), tail.count >= Int(cursor.offset - max(0, cursor.offset - 80)) else { continue }
            let end = Int(cursor.offset - max(0, cursor.offset - 80))  // the newline ending the line
            guard end >= 1, tail[end - 1] == 10, SyncCursor.sum(ofLine: tail[0..<(end - 1)]) == cursor.lastSum else { continue }
            held[device] = cursor.nextSequence
        }
        return held
    }
}
