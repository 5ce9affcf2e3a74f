/// Today's finished sessions that the payload holds itself (`inlineBlock`), serialized one by
/// one and kept between changes: a change that finishes a session (Stop, a switch) reads and
/// serializes that one session, not the day's thirty. They are kept on the same terms as today's
/// ids (SnapshotKeeper+TodaysIDs.swift): a session the change wrote is read again (every write of
/// a session marks it in `Store.changedSessionIDs`, an undo's too), and all of them whenever
/// the ids were read whole (another day, a refused change, a write the marks do not cover,
/// another connection's commit).
extension SnapshotKeeper {
    /// Beyond this many sessions to read, one query of the day's range reads them all.
    static let inlineReadsOneByOne = 4

    /// The payload's list of today's sessions from `firstID` on (`ids`: today's, ascending): the
    /// same bytes as serializing every one of them read from the store.
    func inlineList(_ store: Store, ids: [Int64], today: String, firstID: Int64) throws -> String {
        let changed = store.changedSessionIDs
        let missing = todaysIDsWereKept ? ids.filter { inlineParts[$0] == nil || changed.contains($0) } : ids
        if missing.count <= SnapshotKeeper.inlineReadsOneByOne {
            var parts = inlineParts
            for id in changed { parts[id] = nil }
            // More than the kept ids of today: some went into the day's chunk (a block filled).
            if parts.count > ids.count - missing.count { parts = parts.filter { ids.contains($0.key) } }
            var complete = true
            for id in missing {
                // What the day's query finds: finished, and begun today (UTC).
                guard let session = try store.finishedSession(id: id), session.end != nil,
                      CivilDate.utcDayKey(session.start) == today
                else { complete = false; break }
                parts[id] = SnapshotFormat.sessionPart(session)
            }
            if complete {
                inlineParts = parts
                let list = extendedList(ids: ids, missing: missing, changed: changed, parts: parts) ?? SnapshotKeeper.list(of: ids, from: parts)
                inlineListIDs = ids
                return list
            }
        }
        let sessions = try store.completedSessions(ofDay: today, fromID: firstID)
        inlineParts = Dictionary(sessions.map { ($0.id, SnapshotFormat.sessionPart($0)) }, uniquingKeysWith: { first, _ in first })
        inlineListIDs = sessions.map(\.id)
        return SnapshotFormat.sessionList(sessions)
    }

    /// The list kept (`inlineCache`) with the newest session after it, when that is all that
    /// changed (a Stop, a switch: the session they finished has the highest id); nil otherwise.
    private func extendedList(ids: [Int64], missing: [Int64], changed: Set<SessionID>, parts: [Int64: String]) -> String? {
        guard let kept = inlineCache, let newest = ids.last, missing == [newest], let part = parts[newest],
              ids.count == inlineListIDs.count + 1, ids.dropLast().elementsEqual(inlineListIDs),
              !changed.contains(where: inlineListIDs.containsSorted)
        else { return nil }
        guard !kept.isEmpty else { return "[" + part + "]" }
        var list = kept
        list.removeLast()
        list += ","
        list += part
        list += "]"
        return list
    }

    /// The parts of `ids` in their order, as `SnapshotFormat.sessionList` writes them.
    private static func list(of ids: [Int64], from parts: [Int64: String]) -> String {
        var text = ""
        for id in ids {
            guard let part = parts[id] else { continue }
            text += text.isEmpty ? "[" : ","
            text += part
        }
        return text.isEmpty ? "" : text + "]"
    }
}
