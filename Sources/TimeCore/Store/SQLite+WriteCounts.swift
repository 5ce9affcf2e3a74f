import CSQLite

/// What was written through one connection, as SQLite's update hook reports it: every INSERT,
/// UPDATE and DELETE of a row of a rowid table, whoever makes it (the tracker, sync, imports,
/// an undo's changeset, triggers and foreign-key actions). A reader that keeps what it derived
/// from a table compares the table's count with the one it read at (SnapshotKeeper's payload).
/// Not seen by the hook, so covered otherwise: a DELETE without WHERE that SQLite runs as a
/// truncation (its callers call `noteRewrite`), and other connections' commits
/// (`PRAGMA data_version`). Tables WITHOUT ROWID are not counted at all (the store's one is
/// sync_dirty, which no reader of the counts needs).
public struct WriteCounts {
    /// Rows written, by table name.
    public fileprivate(set) var byTable: [String: UInt64] = [:]
    /// Bumped by `noteRewrite`: whatever was derived from any table is stale.
    public fileprivate(set) var rewrites: UInt64 = 0
    /// The row ids of `meta` updated since the last `takeMetaRowsWritten` (`inserted` for any
    /// row inserted or deleted: a key that was not there has no row id to compare with).
    fileprivate var metaRows: Set<Int64> = []
    public static let inserted = Int64.min
    /// The highest row id inserted into each table since the last rewrite (Store's id high-water marks).
    public fileprivate(set) var highestInserted: [String: Int64] = [:]

    /// Writes to these tables so far (a sum: it moves when any of them is written).
    public func of(_ tables: [String]) -> UInt64 { tables.reduce(0) { $0 &+ (byTable[$1] ?? 0) } }
}

/// The hook's context: the counts live here, so the hook needs no reference to the connection.
final class WriteCounter {
    var counts = WriteCounts()

    func install(on handle: OpaquePointer) {
        sqlite3_update_hook(handle, { context, operation, _, table, rowID in
            guard let context, let table else { return }
            let counter = Unmanaged<WriteCounter>.fromOpaque(context).takeUnretainedValue()
            let name = String(cString: table)
            counter.counts.byTable[name, default: 0] &+= 1
            if operation == SQLITE_INSERT, rowID > counter.counts.highestInserted[name] ?? .min {
                counter.counts.highestInserted[name] = rowID
            }
            if name == "meta" { counter.counts.metaRows.insert(operation == SQLITE_UPDATE ? rowID : WriteCounts.inserted) }
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    static func remove(from handle: OpaquePointer) { sqlite3_update_hook(handle, nil, nil) }
}

extension SQLiteDatabase {
    /// What was written through this connection so far.
    public var writeCounts: WriteCounts { writeCounter.counts }

    /// The row ids of `meta` written since the last call (WriteCounts.inserted among them for a
    /// row inserted or deleted); the set starts again empty.
    public func takeMetaRowsWritten() -> Set<Int64> {
        defer { writeCounter.counts.metaRows = [] }
        return writeCounter.counts.metaRows
    }

    /// Tables were emptied by a DELETE without WHERE, which SQLite may run without telling the
    /// update hook: whatever was derived from the store is stale.
    public func noteRewrite() {
        writeCounter.counts.rewrites &+= 1
        writeCounter.counts.highestInserted = [:]
    }

    /// `PRAGMA data_version`: moves when another connection commits to the same file.
    public func dataVersion() throws -> Int64 { try integerPragma("data_version") }
}
