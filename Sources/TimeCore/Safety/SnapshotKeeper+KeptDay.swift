/// The finished sessions of the last day other than today whose chunk a change wrote, each serialised
/// as the chunk holds it, so that the next change to that day (a person correcting one day session
/// by session; an EditSession years back) reads and serialises only the sessions it marked rather
/// than the whole day again. Kept under the rule of today's ids (SnapshotKeeper+TodaysIDs.swift):
/// brought up to date from a change's marks (`Store.changedSessionIDs`) only when no session or
/// segment was written since the last recorded change but by this one (the store's count of those
/// writes when the change began is the one after the last recorded change), nothing was truncated
/// (`noteRewrite`, which a rolled-back change calls too) and no other connection committed
/// (`PRAGMA data_version`); read whole otherwise.
struct KeptDay {
    var day: String
    /// Each session's part of the chunk (`SnapshotFormat.writeSession`), by id.
    var parts: [Int64: String]
    /// Ascending, as the chunk lists them.
    var ids: [Int64]
    /// The store's counts when these parts were last right: rows of sessions and segments written, truncations.
    var writes: UInt64
    var rewrites: UInt64
    var dataVersion: Int64

    static let tables = Store.openSessionTables
    /// The most sessions a change may mark for the kept day to follow them.
    static let marksFollowed = 64

    /// Whether these parts were right when the current change began, so that its marks bring them up to date.
    func holds(_ store: Store, dataVersion version: Int64) -> Bool {
        writes == store.sessionAndSegmentWritesAtBegin
            && rewrites == store.database.writeCounts.rewrites && dataVersion == version
    }
}

extension SnapshotKeeper {
    /// The chunk of `day` and how many sessions it holds: from the sessions grouped by a full
    /// record, from the kept day (any day but today), or read (today, less its inline sessions).
    func dayChunk(_ day: String, _ store: Store, today: String, firstInlineID: Int64, grouped: [String: [WorkSession]]?,
                  dataVersion: Int64) throws -> (bytes: [UInt8], count: Int) {
        if let grouped {
            let sessions = grouped[day] ?? []
            return (SnapshotFormat.chunk(period: day, sessions: sessions), sessions.count)
        }
        if day != today {
            let parts = try chunkParts(of: day, store, dataVersion: dataVersion)
            return (SnapshotFormat.chunk(period: day, parts: parts), parts.count)
        }
        let sessions = try store.completedSessions(inPeriod: day, leavingOut: (today, firstInlineID))
        return (SnapshotFormat.chunk(period: day, sessions: sessions), sessions.count)
    }

    /// At every recorded change: the kept day brought up to date from the change's marks, so
    /// that a change to another day (today's Pause, Stop or switch) leaves it kept for the next
    /// change to it; dropped when it no longer holds. Nothing is read but a marked session that
    /// the store does not keep (a Stop's or an edit's is kept: Store+KeptReads.swift).
    func keepDayInStep(_ store: Store, dataVersion version: Int64) throws {
        guard var kept = keptDay else { return }
        // Taken out while it changes: a read that fails leaves none kept.
        keptDay = nil
        // A change of many sessions (an import, a merge) has its days read whole: following
        // each of its sessions one by one would cost more than that.
        guard kept.holds(store, dataVersion: version),
              store.changedSessionIDs.count <= KeptDay.marksFollowed else { return }
        for id in store.changedSessionIDs {
            let known = kept.parts[id] != nil
            if let session = try store.finishedSession(id: id), session.end != nil, CivilDate.utcDayKey(session.start) == kept.day {
                kept.parts[id] = SnapshotFormat.sessionPart(session)
                if !known { kept.ids.insert(id, at: kept.ids.insertionIndex(of: id)) }
            } else if known {
                kept.parts[id] = nil
                kept.ids.remove(at: kept.ids.insertionIndex(of: id))
            }
        }
        kept.writes = store.database.writeCounts.of(KeptDay.tables)
        keptDay = kept
    }

    /// The parts of the chunk of `day` (not today: its sessions are split with the payload's
    /// inline list), in the chunk's order: the kept day's (`keepDayInStep` brought it up to date
    /// at this change), or read whole, to be kept.
    func chunkParts(of day: String, _ store: Store, dataVersion version: Int64) throws -> [String] {
        if let kept = keptDay, kept.day == day {
            keptDayReads.kept += 1
            return kept.ids.map { kept.parts[$0]! }
        }
        keptDayReads.whole += 1
        let sessions = try store.completedSessions(inPeriod: day)
        var parts: [Int64: String] = [:]
        parts.reserveCapacity(sessions.count)
        let list = sessions.map { session -> String in
            let part = SnapshotFormat.sessionPart(session)
            parts[session.id] = part
            return part
        }
        let counts = store.database.writeCounts
        keptDay = KeptDay(day: day, parts: parts, ids: sessions.map(\.id), writes: counts.of(KeptDay.tables),
                          rewrites: counts.rewrites, dataVersion: version)
        return list
    }
}
