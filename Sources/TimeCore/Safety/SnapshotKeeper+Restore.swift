import Glibc

extension SnapshotKeeper {
    // MARK: Restoring

    /// Writes `state` into an empty store, keeping every id, and reads it back to compare
    /// record by record and relationship by relationship.
    public static func restore(_ state: DataState, into store: Store, stateHash: String?, sequence: Int? = nil) throws {
        let state = state.withGlobalIDs()
        let problems = state.relationshipProblems()
        guard problems.isEmpty else { throw RestoreFailure.inconsistent(problems.joined(separator: "; ")) }
        try store.begin()
        do {
            // Sync's settings are not data (no snapshot holds them): a store rolled forward in
            // place keeps its device id, folder and positions, so sync goes on as this device.
            let sync = try SyncStore.settings(of: store)
            try store.removeAll()
            for (key, value) in sync { try store.setMeta(key, value) }
            for category in state.categories { try store.insertCategory(category) }
            for project in state.projects { _ = try store.insertProject(project, keepingID: true) }
            for session in state.sessions { _ = try store.insertSession(session, keepingID: true) }
            try store.setMeta("reminder_minutes", String(state.reminderMinutes))
            try store.restoreAway(state.away)
            try store.setPlanSettings(state.plans)
            try store.setFocusData(state.focus)
            if !state.dataID.isEmpty { try store.setMeta("data_id", state.dataID) }
            if stateHash != nil || sequence != nil { try store.setSnapshotMark(SnapshotMark(state: stateHash, sequence: sequence)) }
            try SyncStore.forgetNotes(in: store)
            try store.commit()
        } catch {
            store.rollback()
            throw error
        }
        let differences = try DataState(store: store).differences(from: state)
        guard differences.isEmpty else { throw RestoreFailure.mismatch(differences.joined(separator: "; ")) }
    }

    public enum RestoreFailure: Error, CustomStringConvertible {
        case inconsistent(String)
        case mismatch(String)
        public var description: String {
            switch self {
            case .inconsistent(let what): "the snapshot's records do not fit together (\(what))"
            case .mismatch(let what): "the restored store differs from the snapshot (\(what))"
            }
        }
    }
}
