/// Reads the store keeps between changes, read again only once a table they come from was
/// written: the update hook sees every write of this connection (SQLite+WriteCounts.swift), a
/// rollback or a truncation counts as a rewrite, and the snapshot keeper forgets them all when
/// another connection committed (`PRAGMA data_version`). A timer change reads the open session back
/// after its writes, and its snapshot's payload then finds it kept; a Pause finds the lasting
/// away span kept from the change before.
struct KeptRead<Value> {
    let value: Value
    let writes: UInt64
    let rewrites: UInt64
}

extension Store {
    /// `read()`'s value, kept in `kept` while none of `tables` is written.
    func keptRead<Value>(_ kept: inout KeptRead<Value>?, of tables: [String], _ read: () throws -> Value) rethrows -> Value {
        let counts = database.writeCounts
        let writes = counts.of(tables)
        if let kept, kept.writes == writes, kept.rewrites == counts.rewrites { return kept.value }
        let value = try read()
        kept = KeptRead(value: value, writes: writes, rewrites: counts.rewrites)
        return value
    }

    /// Another connection committed: nothing read before is known to hold (the id high-water
    /// marks neither: its inserts were not seen by this connection's hook).
    func forgetKeptReads() {
        keptOpenSession = nil
        keptAwaySpan = nil
        knownHighWater = [:]
    }
}
