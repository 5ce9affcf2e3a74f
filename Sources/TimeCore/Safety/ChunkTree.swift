/// The keeper's picture of the newest snapshot's chunk tree (SnapshotFormat+Tree): the parts of
/// every index chunk by its period, and the root. Updating a set of days yields the index chunks to
/// rewrite, deepest first, so a change touches one path per day.
struct ChunkTree: Equatable {
    typealias Reference = SnapshotFormat.ChunkReference

    /// The parts of each index chunk, by its period ("" the root, "YYYY", "YYYY-MM").
    private(set) var parts: [String: [String: Reference]] = [:]
    private(set) var root: Reference?

    /// The payload's `chunks` list: the root alone.
    var topList: String { SnapshotFormat.chunkList(root.map { [$0] } ?? []) }

    /// The reference the tree holds now at `period` (nil: none).
    func reference(at period: String) -> Reference? {
        guard let parent = SnapshotFormat.parentPeriod(period) else { return root }
        return parts[parent]?[period]
    }

    /// Sets (or removes, with nil) the reference at `period` in its index chunk; returns the one
    /// it replaced.
    @discardableResult
    mutating func set(_ reference: Reference?, at period: String) -> Reference? {
        guard let parent = SnapshotFormat.parentPeriod(period) else {
            let replaced = root
            root = reference
            return replaced
        }
        let replaced = parts[parent]?[period]
        if let reference {
            parts[parent, default: [:]][period] = reference
        } else {
            parts[parent]?[period] = nil
            if parts[parent]?.isEmpty == true { parts[parent] = nil }
        }
        return replaced
    }

    /// The sorted parts of the index chunk at `period`.
    func sortedParts(of period: String) -> [Reference] {
        (parts[period] ?? [:]).values.sorted { $0.period < $1.period }
    }

    /// Rewrites the index chunks above `days` (which were set already), deepest first: `write`
    /// turns an index chunk's period, bytes, parts (the tree's own table, shared, not copied) and
    /// the reference it replaces into its hash (writing its file); `replaced` hears of every
    /// reference set, with the one it replaced.
    mutating func rewriteIndexes(above days: Set<String>, replaced: (String, Reference?) -> Void,
                                 write: (String, [UInt8], [String: Reference], Reference?) throws -> String) throws {
        var level = Set(days.compactMap(SnapshotFormat.parentPeriod))
        while !level.isEmpty {
            var next = Set<String>()
            for period in level.sorted() {
                if let parent = SnapshotFormat.parentPeriod(period) { next.insert(parent) }
                let children = sortedParts(of: period)
                if children.isEmpty {
                    replaced(period, set(nil, at: period))
                    continue
                }
                let hash = try write(period, SnapshotFormat.indexChunk(period: period, parts: children), parts[period] ?? [:],
                                     reference(at: period))
                replaced(period, set(Reference(period: period, sha256: hash, sessions: children.reduce(0) { $0 + $1.sessions }), at: period))
            }
            level = next
        }
    }

    /// Reads a tree from the root's reference; `node(sha256)` gives an index chunk's parts by
    /// period (nil when the chunk cannot be read). The tree keeps those tables as they are (a
    /// cache that holds them too shares their storage until a change rewrites one). Nil when any
    /// index chunk is missing or not where it belongs.
    static func load(root: Reference?, node: (String) -> [String: Reference]?) -> ChunkTree? {
        var tree = ChunkTree()
        guard let root else { return tree }
        guard root.period.isEmpty else { return nil }
        tree.root = root
        var pending = [root]
        while let reference = pending.popLast() {
            guard let children = node(reference.sha256),
                  children.allSatisfy({ $0.key == $0.value.period && SnapshotFormat.parentPeriod($0.key) == reference.period })
            else { return nil }
            tree.parts[reference.period] = children
            for child in children.values where !SnapshotFormat.isDay(child.period) { pending.append(child) }
        }
        return tree
    }
}
