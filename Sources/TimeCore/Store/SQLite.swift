import CSQLite

/// A failure reported by SQLite, with the result code and SQLite's own explanation.
public struct SQLiteError: Error, CustomStringConvertible {
    public let code: Int32
    public let message: String
    public var description: String { "SQLite error \(code): \(message)" }

    /// SQLITE_CONSTRAINT and its extended codes (unique, foreign key, ...).
    var isConstraintViolation: Bool { code & 0xff == SQLITE_CONSTRAINT }
}

/// SQLITE_TRANSIENT is a macro (a cast of -1) that Swift cannot import.
private let transientDestructor = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A value bound to, or read from, a statement column.
public enum SQLValue: Equatable, Sendable {
    case null
    case integer(Int64)
    case text(String)

    var integer: Int64? { if case .integer(let v) = self { return v } else { return nil } }
    var text: String? { if case .text(let v) = self { return v } else { return nil } }
}

/// One open SQLite connection. Owns the `sqlite3*` handle and closes it when released.
public final class SQLiteDatabase {
    let handle: OpaquePointer
    public let path: String
    private var statementCache: [String: Statement] = [:]
    /// Rows written through this connection (SQLite+WriteCounts.swift).
    let writeCounter = WriteCounter()
    /// Frames in the WAL after each commit, once a store counts them (Store+Checkpoint.swift).
    let walFrameCount = WALFrameCount()

    public struct OpenMode: Sendable {
        let flags: Int32
        public static let readWrite = OpenMode(flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX)
        public static let readWriteCreate = OpenMode(flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX)
        public static let readOnly = OpenMode(flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX)
    }

    public init(path: String, mode: OpenMode) throws {
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, mode.flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(db)
            throw SQLiteError(code: rc, message: message)
        }
        handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 2000)
        writeCounter.install(on: db)
    }

    deinit {
        WriteCounter.remove(from: handle)
        WALFrameCount.remove(from: handle)
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Gives back the page cache: a start reads the whole store (`quick_check`), and an idle
    /// agent needs none of those pages kept.
    public func releaseMemory() { sqlite3_db_release_memory(handle) }

    func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)))
    }

    /// Runs one or more statements that take no parameters (schema, pragmas).
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            throw SQLiteError(code: rc, message: message)
        }
    }

    /// A prepared statement, compiled once per connection and reused.
    func statement(_ sql: String) throws -> Statement {
        if let cached = statementCache[sql] {
            cached.reset()
            return cached
        }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs a statement that returns no rows.
    public func run(_ sql: String, _ values: SQLValue...) throws {
        let statement = try self.statement(sql)
        try statement.bind(values)
        while try statement.step() {}
        statement.reset()
    }

    /// Runs a query and maps each row.
    public func query<T>(_ sql: String, _ values: SQLValue..., row: (Row) throws -> T) throws -> [T] {
        let statement = try self.statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        var result: [T] = []
        while try statement.step() { result.append(try row(Row(statement: statement))) }
        return result
    }

    /// Runs a query for its first row only.
    public func queryFirst<T>(_ sql: String, _ values: SQLValue..., row: (Row) throws -> T) throws -> T? {
        let statement = try self.statement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        return try statement.step() ? try row(Row(statement: statement)) : nil
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    public var changes: Int32 { sqlite3_changes(handle) }
    /// Rows inserted, updated or deleted through this connection since it opened, by triggers
    /// too: when it has not moved, nothing was written.
    public var totalChanges: Int64 { sqlite3_total_changes64(handle) }

    public func integerPragma(_ name: String) throws -> Int64 {
        try queryFirst("PRAGMA \(name)") { $0.int(0) } ?? 0
    }

    /// `PRAGMA quick_check` (or `integrity_check`) answers the single row "ok" for a sound file.
    public func check(thorough: Bool = false) throws -> [String] {
        try query(thorough ? "PRAGMA integrity_check" : "PRAGMA quick_check") { $0.string(0) }
    }
}

/// A compiled `sqlite3_stmt`, finalized when released.
final class Statement {
    let handle: OpaquePointer
    unowned let database: SQLiteDatabase

    init(database: SQLiteDatabase, sql: String) throws {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw database.error(rc) }
        handle = statement
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    func bind(_ values: [SQLValue]) throws {
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let rc: Int32
            switch value {
            case .null: rc = sqlite3_bind_null(handle, index)
            case .integer(let v): rc = sqlite3_bind_int64(handle, index, v)
            case .text(let v): rc = sqlite3_bind_text(handle, index, v, -1, transientDestructor)
            }
            if rc != SQLITE_OK { throw database.error(rc) }
        }
    }

    /// Advances to the next row; false when done.
    func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(rc)
            sqlite3_reset(handle)
            throw error
        }
    }

    func reset() { sqlite3_reset(handle) }
}

/// The current row of a statement.
public struct Row {
    let statement: Statement
    public func int(_ column: Int32) -> Int64 { sqlite3_column_int64(statement.handle, column) }
    public func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement.handle, column) == SQLITE_NULL }
    public func optionalInt(_ column: Int32) -> Int64? { isNull(column) ? nil : int(column) }
    public func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(statement.handle, column) else { return "" }
        return String(cString: text)
    }
    public func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }
}
