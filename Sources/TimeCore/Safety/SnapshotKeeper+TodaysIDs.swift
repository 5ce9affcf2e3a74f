/// Today's finished sessions' ids, which decide what today's chunk holds and what the payload
/// keeps inline (`inlineBlock`). Read from the store once a day, and kept: a change then updates
/// them from the sessions it marked (`Store.changedSessionIDs`, the same marks that decide which
/// days' chunks a change rewrites), so a change that finishes a session no longer reads the whole
/// day again (on a busy day, hundreds of rows and a sort); a change that does not need them
/// keeps them in step from its marks all the same (`keepTodaysIDsInStep`). Read whole again after anything the
/// marks do not cover: another day, a rolled-back change, a re-attached keeper (restores), a
/// session written in a transaction this keeper did not record (the store's count of session
/// writes when the change began differs from the one after the last recorded change), a
/// truncation (`noteRewrite`), another connection's commit (`PRAGMA data_version`).
struct TodaysIDs {
    var day: String
    /// Ascending.
    var ids: [Int64]
    /// The store's counts when these ids were last right: rows of `sessions` written, truncations.
    var sessionWrites: UInt64
    var rewrites: UInt64
    var dataVersion: Int64

    /// Whether these ids were right when the current change began, so that its marks bring them up to date.
    func holds(_ store: Store, today: String, dataVersion version: Int64) -> Bool {
        day == today && sessionWrites == store.sessionWritesAtBegin
            && rewrites == store.database.writeCounts.rewrites && dataVersion == version
    }

    /// Puts `id` in or takes it out, keeping the order.
    mutating func set(_ id: Int64, present: Bool) {
        let low = ids.insertionIndex(of: id)
        let found = low < ids.count && ids[low] == id
        if present && !found { ids.insert(id, at: low) }
        if !present && found { ids.remove(at: low) }
    }
}

extension Array where Element: Comparable {
    /// Where `value` is, or would go, in this ascending array (a binary search).
    func insertionIndex(of value: Element) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if self[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Whether this ascending array holds `value`.
    func containsSorted(_ value: Element) -> Bool {
        let index = insertionIndex(of: value)
        return index < count && self[index] == value
    }
}

extension SnapshotKeeper {
    /// The ids of the sessions finished in `today` (UTC), ascending, as the store holds them now.
    func todaysCompletedIDs(_ store: Store, today: String, dataVersion version: Int64) throws -> [Int64] {
        let counts = store.database.writeCounts
        let sessionWrites = counts.of(["sessions"])
        if var kept = todaysIDs, kept.holds(store, today: today, dataVersion: version) {
            // Taken out while it changes, so that an insert does not copy the day's ids first (a
            // read that fails leaves none kept: the next change reads the day whole).
            todaysIDs = nil
            for id in store.changedSessionIDs {
                // The open session (a Pause's, a Resume's, a note's) is known unfinished without a read.
                kept.set(id, present: store.isKeptOpen(id) ? false : try store.isCompleted(id, inPeriod: today))
            }
            kept.sessionWrites = sessionWrites
            todaysIDs = kept
            todaysIDsWereKept = true
            return kept.ids
        }
        todaysIDsWereKept = false
        let ids = try store.completedSessionIDs(inPeriod: today)
        todaysIDs = TodaysIDs(day: today, ids: ids, sessionWrites: sessionWrites, rewrites: counts.rewrites, dataVersion: version)
        return ids
    }

    /// A change that does not need today's ids (a Pause, a note, an edit of another day) still
    /// keeps them in step with the sessions it marked, so that the next change that needs them
    /// (a Stop, a switch) finds them kept rather than reading the day whole. Nothing is read when
    /// they were not kept.
    func keepTodaysIDsInStep(_ store: Store, today: String, dataVersion version: Int64) throws {
        guard todaysIDs?.holds(store, today: today, dataVersion: version) == true else { return }
        _ = try todaysCompletedIDs(store, today: today, dataVersion: version)
    }
}
