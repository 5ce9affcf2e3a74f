@testable import TimeCore

/// What the clients of several devices wrote, field by field, and in which causal order: the
/// oracle of `SyncClientWorld`. It knows the calls a person made and their acknowledgements,
/// never the records the devices published: each field's expected value is the value of a client
/// write that no other client write of that field followed. A write follows another when it was
/// made later on the same device, or on a device that merged after the other was acknowledged
/// (the devices share one folder, so a merge reads every record acknowledged before it).
struct SyncClientOracle {
    struct Write {
        let device: Int
        let step: Int
        let value: String
    }

    /// Per entity ("kind gid") and field, every acknowledged write.
    private(set) var writes: [String: [String: [Write]]] = [:]
    /// Entities a client deleted (rule 2: deleted for good).
    private(set) var deleted: Set<String> = []
    /// Every entity a client created, by kind.
    private(set) var created: [SyncKind: [String]] = [:]
    /// The steps at which each device merged.
    private var merges: [Int: [Int]] = [:]

    static func key(_ kind: SyncKind, _ gid: String) -> String { kind.rawValue + " " + gid }

    mutating func create(_ kind: SyncKind, _ gid: String, _ fields: [String: String], device: Int, step: Int) {
        created[kind, default: []].append(gid)
        write(kind, gid, fields, device: device, step: step)
    }

    mutating func write(_ kind: SyncKind, _ gid: String, _ fields: [String: String], device: Int, step: Int) {
        for (field, value) in fields {
            writes[SyncClientOracle.key(kind, gid), default: [:]][field, default: []].append(Write(device: device, step: step, value: value))
        }
    }

    mutating func delete(_ kind: SyncKind, _ gid: String) { deleted.insert(SyncClientOracle.key(kind, gid)) }

    mutating func merged(device: Int, step: Int) { merges[device, default: []].append(step) }

    var mergeSteps: [Int: [Int]] { merges }

    /// True when `later` was made knowing `earlier`.
    func follows(_ later: Write, _ earlier: Write) -> Bool {
        guard earlier.step < later.step else { return false }
        if earlier.device == later.device { return true }
        return merges[later.device]?.contains { $0 > earlier.step && $0 < later.step } ?? false
    }

    /// The values a field may hold now: those of the writes no other write of the field followed,
    /// over every entity given (the members of one same-name group show as one).
    func expected(_ kind: SyncKind, _ gids: [String], _ field: String) -> Set<String> {
        let all = gids.flatMap { writes[SyncClientOracle.key(kind, $0)]?[field] ?? [] }
        return Set(all.filter { write in !all.contains { follows($0, write) } }.map(\.value))
    }

    func isDeleted(_ kind: SyncKind, _ gid: String) -> Bool { deleted.contains(SyncClientOracle.key(kind, gid)) }
}
