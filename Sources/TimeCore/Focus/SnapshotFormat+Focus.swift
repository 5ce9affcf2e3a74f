/// Store v13 and snapshot payload v11: the focus timer.
///
/// A session's completed focus phases are one more column of `sessions` (`focus`, `start-end`
/// pairs), read and written with the session, so chunks, undo and the session's other readers
/// carry them at no extra query; in a snapshot they are the session's `focus` array of
/// `[start, end]` pairs, written only when it has some. The settings and the cycle are the
/// payload's `focus` object, written only when they differ from the defaults (so a v10 state
/// writes the same bytes as before).
extension FocusSpan {
    /// NULL for none, as `import_key`: a column added with a default reads, in the undo history's
    /// changesets of rows written before the migration, as NULL before and the default after, so
    /// an old row's first edit would look like a focus change and its undo would break NOT NULL.
    /// With the column, its own sync trigger: while sync is on, a change of a session's focus
    /// phases is noted as its `focus` field (docs/sync.md), as SyncStore's triggers note the others.
    static let schema = """
        ALTER TABLE sessions ADD COLUMN focus TEXT;
        CREATE TRIGGER sync_notes_sessions_focus AFTER UPDATE OF focus ON sessions
            WHEN (SELECT value FROM meta WHERE key = 'sync_folder') <> '' AND OLD.focus IS NOT NEW.focus
            BEGIN INSERT OR IGNORE INTO sync_dirty SELECT 'session', NEW.gid, 'focus'; END;
        """
}

extension FocusSpan {
    /// The `focus` column's value: NULL for none.
    static func storeValue(_ spans: [FocusSpan]) -> SQLValue { spans.isEmpty ? .null : .text(storeText(spans)) }
}

extension Store {
    /// A session's completed focus phases.
    func updateFocus(of session: WorkSession) throws {
        try database.run("UPDATE sessions SET focus = ? WHERE id = ?", FocusSpan.storeValue(session.focus), .integer(session.id))
    }

    /// The focus phases of the completed sessions overlapping [from, to) and of an open one that
    /// began in the window (an open session that began earlier is the tracker's, held in memory),
    /// by session: only the `focus` column of the sessions that have any, and no segments, since
    /// `FocusCount` is computed after every change.
    func focusPhases(overlapping from: Int64, _ to: Int64) throws -> [(session: SessionID, phases: [FocusSpan])] {
        let earliest = from.subtractingSaturated(try longestSpan())
        return try database.query(
            "SELECT id, focus FROM sessions WHERE start >= ? AND start < ? AND (end IS NULL OR end > ? OR (end = start AND start >= ?)) AND coalesce(focus, '') != ''",
            .integer(earliest), .integer(to), .integer(from), .integer(from)) { (session: $0.int(0), phases: FocusSpan.spans(storeText: $0.string(1))) }
    }
}

extension SnapshotFormat {
    /// `[[start,end],…]`, a session's `focus` member.
    static func focusJSON(_ spans: [FocusSpan]) -> JSON {
        .array(spans.map { .array([.int($0.start), .int($0.end)]) })
    }

    static func decodeFocusSpans(_ json: JSON?) throws -> [FocusSpan] {
        guard let json else { return [] }
        guard let list = json.arrayValue else { throw Failure.malformed("a session's focus is not a list") }
        return try list.map { pair in
            guard let values = pair.arrayValue, values.count == 2, let start = values[0].intValue, let end = values[1].intValue, end >= start
            else { throw Failure.malformed("a focus phase is not [start, end]") }
            return FocusSpan(start: start, end: end)
        }
    }

    /// The payload's `focus` object, "" for the defaults (then the key is left out).
    static func focusDataJSON(_ data: FocusData) -> String {
        guard !data.isDefault else { return "" }
        let settings = data.settings
        return JSON.object([
            ("autoStart", .bool(settings.autoStart)), ("breakMinutes", .int(Int64(settings.breakMinutes))),
            ("focusMinutes", .int(Int64(settings.focusMinutes))), ("longBreakEvery", .int(Int64(settings.longBreakEvery))),
            ("longBreakMinutes", .int(Int64(settings.longBreakMinutes))), ("pauseInBreaks", .bool(settings.pauseInBreaks)),
            ("state", data.state.json),
        ]).serialized(.compact)
    }

    /// A payload's focus data; v10 and older have none (the defaults).
    static func decodeFocusData(_ json: JSON?) throws -> FocusData {
        guard let json else { return FocusData() }
        var settings = FocusSettings()
        func minutes(_ key: String, _ range: ClosedRange<UInt32>) throws -> UInt32 {
            guard let value = json[key]?.intValue, value >= Int64(range.lowerBound), value <= Int64(range.upperBound)
            else { throw Failure.malformed("bad focus setting \(key)") }
            return UInt32(value)
        }
        settings.focusMinutes = try minutes("focusMinutes", FocusSettings.minutesRange)
        settings.breakMinutes = try minutes("breakMinutes", FocusSettings.minutesRange)
        settings.longBreakMinutes = try minutes("longBreakMinutes", FocusSettings.minutesRange)
        settings.longBreakEvery = try minutes("longBreakEvery", FocusSettings.everyRange)
        guard let auto = json["autoStart"]?.boolValue, let pause = json["pauseInBreaks"]?.boolValue, let stateJSON = json["state"]
        else { throw Failure.malformed("bad focus settings") }
        (settings.autoStart, settings.pauseInBreaks) = (auto, pause)
        guard let state = try? FocusState(json: stateJSON) else { throw Failure.malformed("bad focus state") }
        return FocusData(settings: settings, state: state)
    }
}
