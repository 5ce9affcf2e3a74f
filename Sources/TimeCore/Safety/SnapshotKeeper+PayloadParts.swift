/// The payload's parts read from the store at each change (categories and projects; away state;
/// settings; focus), kept between changes with the store's write counts they were read at: a part
/// is read again only when a table (or a `meta` row) it comes from was written since
/// (SQLite+WriteCounts.swift). A timer change writes sessions and segments, so it reads only the
/// open session. The bytes are the same as reading everything each time (the store is the
/// truth, and what is kept was read from it).
struct PayloadParts {
    var records: SnapshotFormat.Records
    var away: String
    var settings: String
    var focus: String
    /// What the parts were read at.
    var recordsWrites: UInt64
    var awayWrites: UInt64
    var rewrites: UInt64
    var dataVersion: Int64
    /// The row ids of the `meta` keys no part reads (`keysNoPartReads`).
    var unreadMetaRows: Set<Int64>
    /// How many times the settings and focus parts were read (for the tests).
    var metaReads: UInt64 = 1

    static let recordTables = ["categories", "projects"]
    static let awayTables = ["away_spans"]
    /// The `meta` rows no part reads, which many changes write: the id counters of sessions and
    /// segments, the longest span. Any other `meta` row written (every setting, a key a later
    /// version adds too) makes the away, settings and focus parts be read again; a key missing
    /// here costs one read, never a stale part. (The snapshot's own mark is not in `meta`.)
    static let keysNoPartReads = ["last_session_id", "last_segment_id", "longest_span"]

    /// The parts as the store holds them now: `kept`'s where nothing they come from was written.
    /// `version`: `PRAGMA data_version`, read once per change by the keeper.
    static func current(in store: Store, kept: PayloadParts?, dataVersion version: Int64) throws -> PayloadParts {
        let database = store.database
        let metaWritten = database.takeMetaRowsWritten()
        let counts = database.writeCounts
        let recordsWrites = counts.of(recordTables), awayWrites = counts.of(awayTables)
        guard var parts = kept, parts.rewrites == counts.rewrites, parts.dataVersion == version else {
            var whole = try read(store, recordsWrites: recordsWrites, awayWrites: awayWrites, rewrites: counts.rewrites, dataVersion: version)
            whole.metaReads = (kept?.metaReads ?? 0) &+ 1
            return whole
        }
        if parts.recordsWrites != recordsWrites {
            parts.records = try records(store)
            parts.recordsWrites = recordsWrites
        }
        let metaChanged = metaWritten.contains(WriteCounts.inserted) || !metaWritten.isSubset(of: parts.unreadMetaRows)
        if metaChanged || parts.awayWrites != awayWrites {
            parts.away = SnapshotFormat.awayJSON(try store.awayState())
            parts.awayWrites = awayWrites
        }
        if metaChanged {
            (parts.settings, parts.focus) = try settingsAndFocus(store)
            parts.unreadMetaRows = try unreadMetaRows(store)
            parts.metaReads &+= 1
        }
        return parts
    }

    private static func read(_ store: Store, recordsWrites: UInt64, awayWrites: UInt64, rewrites: UInt64,
                             dataVersion: Int64) throws -> PayloadParts {
        let (settings, focus) = try settingsAndFocus(store)
        return PayloadParts(records: try records(store), away: SnapshotFormat.awayJSON(try store.awayState()),
                            settings: settings, focus: focus, recordsWrites: recordsWrites, awayWrites: awayWrites,
                            rewrites: rewrites, dataVersion: dataVersion, unreadMetaRows: try unreadMetaRows(store))
    }

    private static func records(_ store: Store) throws -> SnapshotFormat.Records {
        SnapshotFormat.records(categories: try store.categories(), projects: try store.projects())
    }

    private static func settingsAndFocus(_ store: Store) throws -> (String, String) {
        let settings = SnapshotFormat.settings(
            reminderMinutes: try store.meta("reminder_minutes").flatMap { UInt32($0) } ?? Tracker.defaultReminderMinutes,
            dataID: try store.meta("data_id") ?? "", plans: try store.planSettings())
        return (settings, SnapshotFormat.focusDataJSON(try store.focusData()))
    }

    private static func unreadMetaRows(_ store: Store) throws -> Set<Int64> {
        Set(try store.database.query("SELECT rowid FROM meta WHERE key IN (\(unreadKeyList))") { $0.int(0) })
    }

    /// The keys as SQL literals (constants of ours, without quotes in them).
    private static let unreadKeyList = keysNoPartReads.map { "'\($0)'" }.joined(separator: ", ")
}
