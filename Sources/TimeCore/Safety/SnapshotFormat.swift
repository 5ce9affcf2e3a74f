/// The snapshot file format.
///
/// A snapshot file is one JSON object:
/// `{"createdAt":…,"format":"time-tracker-snapshot","schemaVersion":4,"sha256":"…","payload":{…}}`
/// where `sha256` is the SHA-256 of the payload's exact bytes, written canonically (its keys in one
/// fixed order, no white space), so it identifies the data state: two equal states have the same
/// hash. The order was the keys' byte order up to 2026-12; since then the parts a change rewrites
/// least come first and the open session last (`payloadText`), so that a timer change hashes only
/// the end of the payload (ResumingSHA256). A reader takes the keys in any order, so both read
/// alike; a state kept by an older version keeps its older name.
///
/// Payload versions move with the store schema:
/// - v2: categories, projects, settings, `sessions` with `activeSeconds` and `runningSince`, no notes.
/// - v3: v2 plus `note` on every session.
/// - v4: sessions with exact `segments` and `unrecordedSeconds`; completed sessions live in
///   content-addressed chunk files, one per UTC period of their start (a month of the current
///   year, a whole year before it), named by their SHA-256, so a change rewrites only the period
///   it touched and the payload lists a few dozen chunks even for decades of history. The open
///   session and the finished sessions begun on the UTC day of the snapshot are in the payload
///   itself (`openSession`, `sessions`), so the timer's changes rewrite no chunk; those sessions
///   are left out of their month's chunk. Older payloads migrate forward into `sessions` too.
/// - v5: v4 plus `away`: the away setting and the unanswered away spans (SnapshotFormat+Away).
/// - v6: v5 plus `importKey` on a session that was imported (absent otherwise) and the data's
///   random id, `settings.dataId`.
/// - v7: the same fields as v6. The store of v7 keeps an undo history, which snapshots do not
///   hold (a snapshot is a data state; the history of how it came about stays in the store): a
///   store restored from a snapshot starts with an empty history. v6 → v7 changes nothing.
/// - v8: v7 plus `gid`, the global id of sync (docs/sync.md), on every category, project and
///   session. v7 → v8 adds nothing: a restored record without one is given a new one.
/// - v9: the chunks form a tree (SnapshotFormat+Tree): one chunk per UTC day at every age, day
///   chunks listed by month index chunks, months by year index chunks, years by one root index
///   chunk, which is all the payload's `chunks` list names. v8's flat list is a tree of depth one.
/// - v10: v9 plus `rateCents` and `weeklyTarget` on a project that has them (absent otherwise),
///   and `currency`, `weeklyTarget` and `untrackedReminderMinutes` in `settings`
///   (SnapshotFormat+Plans). v9 → v10 adds nothing: what is absent is none.
/// - v11: v10 plus `focus` on a session with completed focus phases (`[[start, end], …]`) and the
///   payload's `focus` object (settings and cycle) when not the defaults (SnapshotFormat+Focus).
///   v10 → v11 adds nothing: no phases, default settings, the cycle off.
public enum SnapshotFormat {
    public static let currentVersion: Int64 = 11
    public static let oldestVersion: Int64 = 2
    static let formatName = "time-tracker-snapshot"

    public enum Failure: Error, Equatable, CustomStringConvertible {
        case malformed(String)
        case checksumMismatch
        case newerVersion(Int64)
        case unknownVersion(Int64)
        case missingChunk(String)

        public var description: String {
            switch self {
            case .malformed(let reason): "the snapshot is malformed (\(reason))"
            case .checksumMismatch: "the snapshot's checksum does not match its contents"
            case .newerVersion(let v): "the snapshot was written by a newer version of Time (format \(v); this version reads up to \(currentVersion))"
            case .unknownVersion(let v): "the snapshot has an unknown format version \(v)"
            case .missingChunk(let name): "the snapshot's part \(name) is missing or damaged"
            }
        }
    }

    // MARK: Writing (v4)

    static func file(payload: String, version: Int64 = currentVersion, createdAt: Int64) -> (bytes: [UInt8], stateHash: String) {
        file(payload: payload, stateHash: SHA256.hex(payload), version: version, createdAt: createdAt)
    }

    /// The same with the payload's SHA-256 (`stateHash`) computed already.
    static func file(payload: String, stateHash hash: String, version: Int64 = currentVersion,
                     createdAt: Int64) -> (bytes: [UInt8], stateHash: String) {
        let header = "{\"createdAt\":\(createdAt),\"format\":\"\(formatName)\",\"schemaVersion\":\(version),\"sha256\":\"\(hash)\",\"payload\":"
        // Bytes from the start (one copy of the payload, not a string joined and then copied).
        var bytes: [UInt8] = []
        bytes.reserveCapacity(header.utf8.count + payload.utf8.count + 2)
        bytes.append(contentsOf: header.utf8)
        bytes.append(contentsOf: payload.utf8)
        bytes.append(contentsOf: [UInt8(ascii: "}"), UInt8(ascii: "\n")])
        return (bytes, hash)
    }

    /// A session's canonical JSON; the keys are written in their sorted order by hand, since
    /// chunks hold thousands of sessions and this is the hot path of a snapshot.
    static func sessionJSON(_ session: WorkSession) -> JSON {
        var members: [(String, JSON)] = [("end", session.end.map(JSON.int) ?? .null)]
        if !session.focus.isEmpty { members.append(("focus", focusJSON(session.focus))) }
        if !session.globalID.isEmpty { members.append(("gid", .string(session.globalID))) }
        members.append(("id", .int(session.id)))
        if !session.importKey.isEmpty { members.append(("importKey", .string(session.importKey))) }
        return .object(members + [
            ("note", .string(session.note)),
            ("projectId", .int(session.projectID)),
            ("segments", .array(session.segments.map { .array([.int($0.start), $0.end.map(JSON.int) ?? .null]) })),
            ("start", .int(session.start)),
            ("unrecordedSeconds", .int(session.unrecordedSeconds)),
        ])
    }

    /// Exactly `sessionJSON(session).serialized`, written without building the tree (which
    /// allocates for every member and every segment): a change that finishes a session writes
    /// up to 31 of them inline, a chunk a whole day's. `SessionWriterTests` holds it to the tree.
    static func writeSession(_ session: WorkSession, to out: inout String) {
        out += "{\"end\":"
        out += session.end.map { String($0) } ?? "null"
        if !session.focus.isEmpty {
            out += ",\"focus\":"
            focusJSON(session.focus).write(to: &out)
        }
        if !session.globalID.isEmpty {
            out += ",\"gid\":"
            JSON.writeString(session.globalID, to: &out)
        }
        out += ",\"id\":"
        out += String(session.id)
        if !session.importKey.isEmpty {
            out += ",\"importKey\":"
            JSON.writeString(session.importKey, to: &out)
        }
        out += ",\"note\":"
        JSON.writeString(session.note, to: &out)
        out += ",\"projectId\":"
        out += String(session.projectID)
        out += ",\"segments\":["
        for (index, segment) in session.segments.enumerated() {
            out += index == 0 ? "[" : ",["
            out += String(segment.start)
            out += ","
            out += segment.end.map { String($0) } ?? "null"
            out += "]"
        }
        out += "],\"start\":"
        out += String(session.start)
        out += ",\"unrecordedSeconds\":"
        out += String(session.unrecordedSeconds)
        out += "}"
    }

    static func chunk(period: String, sessions: [WorkSession]) -> [UInt8] {
        chunk(period: period, parts: sessions.map(sessionPart))
    }

    /// One session as a chunk or the inline list holds it (`writeSession` into a string of its own).
    static func sessionPart(_ session: WorkSession) -> String {
        var part = ""
        writeSession(session, to: &part)
        return part
    }

    /// A chunk from its sessions each already written by `writeSession`, in order (a day's
    /// sessions kept serialised between changes: SnapshotKeeper+KeptDay.swift).
    static func chunk(period: String, parts: [String]) -> [UInt8] {
        var out = "{\"period\":"
        JSON.writeString(period, to: &out)
        out += ",\"sessions\":["
        for (index, part) in parts.enumerated() {
            if index > 0 { out += "," }
            out += part
        }
        out += "]}"
        return Array(out.utf8)
    }

    struct ChunkReference: Equatable {
        var period: String
        var sha256: String
        var sessions: Int
    }

    /// The canonical JSON of the sessions a payload holds itself ("" when there are none, and
    /// the payload then has no `sessions` key).
    static func sessionList(_ sessions: [WorkSession]) -> String {
        guard !sessions.isEmpty else { return "" }
        var out = "["
        for (index, session) in sessions.enumerated() {
            if index > 0 { out += "," }
            writeSession(session, to: &out)
        }
        return out + "]"
    }

    /// The canonical JSON of a chunk list; also an index chunk's parts.
    /// Written by hand, keys in byte order, as `JSON.serialized` would write it: every change
    /// writes a few index chunks, and the root's lists every year of the history.
    static func chunkList(_ chunks: [ChunkReference]) -> String {
        var out: [UInt8] = []
        writeChunkList(chunks, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// `chunkList` written as bytes, as an index chunk holds it (every change years back writes
    /// three of them, of up to a few dozen references each).
    static func writeChunkList(_ chunks: [ChunkReference], to out: inout [UInt8]) {
        out.reserveCapacity(out.count + 2 + chunks.count * 112)
        out.append(UInt8(ascii: "["))
        for (index, chunk) in chunks.enumerated() {
            out += index == 0 ? #"{"period":"#.utf8 : #",{"period":"#.utf8
            JSON.writeString(chunk.period, to: &out)
            out += #","sessions":"#.utf8
            JSON.writeDecimal(Int64(chunk.sessions), to: &out)
            out += #","sha256":"#.utf8
            JSON.writeString(chunk.sha256, to: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "]"))
    }

    /// The canonical payload (`payloadText`), the chunk list spliced in already serialized.
    /// Written by hand, objects with their keys already in order: this runs on every change.
    static func payload(categories: [Category], projects: [Project], reminderMinutes: UInt32,
                        openSession: WorkSession?, chunkList: String, todaysSessions: String = "",
                        away: String = "", dataID: String = "", plans: PlanSettings = PlanSettings(),
                        focus: String = "") -> String {
        payload(records: records(categories: categories, projects: projects), openSession: openSession, chunkList: chunkList,
                todaysSessions: todaysSessions, away: away,
                settings: settings(reminderMinutes: reminderMinutes, dataID: dataID, plans: plans), focus: focus)
    }

    /// The same from its parts serialized already: `records` (categories and projects, which a
    /// timer change leaves as they were, so the keeper keeps them serialized) and `settings`.
    static func payload(records: Records, openSession: WorkSession?, chunkList: String, todaysSessions: String,
                        away: String, settings: String, focus: String = "") -> String {
        payloadText(records: records, openSession: openSession, chunkList: chunkList, todaysSessions: todaysSessions,
                    away: away, settings: settings, focus: focus).text
    }

    /// The payload, its parts in the order of how often a change rewrites them: the records and
    /// settings (almost never), the away spans, the chunk list and today's sessions (a finished
    /// session), the focus cycle, and last the open session (every timer change). `resumable`:
    /// where the first two groups end, from where `ResumingSHA256` can take up the hash of a
    /// payload that begins as the last one did.
    static func payloadText(records: Records, openSession: WorkSession?, chunkList: String, todaysSessions: String,
                            away: String, settings: String, focus: String) -> (text: String, resumable: [Int]) {
        var out = ""
        out.reserveCapacity(records.categories.utf8.count + records.projects.utf8.count + chunkList.utf8.count
                            + todaysSessions.utf8.count + away.utf8.count + settings.utf8.count + focus.utf8.count + 1024)
        func member(_ key: String, _ value: String) {
            guard !value.isEmpty else { return }
            out += out.isEmpty ? "{\"" : ",\""
            out += key
            out += "\":"
            out += value
        }
        member("categories", records.categories)
        member("projects", records.projects)
        member("settings", settings)
        member("away", away)
        let settled = out.utf8.count
        member("chunks", chunkList)
        member("sessions", todaysSessions)
        let finished = out.utf8.count
        member("focus", focus)
        out += ",\"openSession\":"
        if let openSession { writeSession(openSession, to: &out) } else { out += "null" }
        out += "}"
        return (out, [settled, finished])
    }

    /// `"gid":"…",` (v8), nothing for a record without one.
    static func appendGlobalID(_ globalID: String, to out: inout String) {
        guard !globalID.isEmpty else { return }
        out += "\"gid\":"
        JSON.writeString(globalID, to: &out)
        out += ","
    }

    /// The chunk hashes a snapshot file refers to, found by scanning its payload's bytes: every
    /// `"sha256":"` after the header is a chunk reference (inside JSON strings a quote is escaped,
    /// so the sequence cannot occur in a name or note). Much cheaper than parsing the file.
    static func chunkHashes(inFile bytes: [UInt8]) -> Set<String> {
        let marker = Array("\"sha256\":\"".utf8)
        let payloadMarker = Array(",\"payload\":".utf8)
        guard let payloadStart = firstIndex(of: payloadMarker, in: bytes, limit: 400) else { return [] }
        var hashes = Set<String>()
        var index = payloadStart
        let last = bytes.count - marker.count - 64
        while index <= last {
            if bytes[index] == 0x22 && bytes[index + 1] == 0x73 && Array(bytes[index..<index + marker.count]) == marker {
                let start = index + marker.count
                hashes.insert(String(decoding: bytes[start..<start + 64], as: UTF8.self))
                index = start + 64
            } else {
                index += 1
            }
        }
        return hashes
    }

    // MARK: Reading

    struct Header {
        var version: Int64
        var createdAt: Int64
        var stateHash: String
        var payload: JSON
    }

    /// Parses a snapshot file and checks its checksum over the payload's exact bytes.
    static func read(_ bytes: [UInt8]) throws -> Header {
        let (header, hash, payloadBytes) = try verified(bytes)
        guard let version = header["schemaVersion"]?.intValue, let createdAt = header["createdAt"]?.intValue
        else { throw Failure.malformed("missing header fields") }
        if version > currentVersion { throw Failure.newerVersion(version) }
        if version < oldestVersion { throw Failure.unknownVersion(version) }
        let payload: JSON
        do { payload = try JSON.parse(Array(payloadBytes)) } catch { throw Failure.malformed("\(error)") }
        return Header(version: version, createdAt: createdAt, stateHash: hash, payload: payload)
    }

    /// The file's header fields, its payload's SHA-256 as the header names it, and the payload (a
    /// slice: its indices are the payload's place in the file), once its bytes hash to it.
    static func verified(_ bytes: [UInt8]) throws -> (header: JSON, stateHash: String, payload: ArraySlice<UInt8>) {
        let range = try payloadRange(in: bytes)
        let header: JSON
        do { header = try JSON.parse(Array(bytes[0..<(range.lowerBound - payloadMarker.count)]) + Array("}".utf8)) } catch {
            throw Failure.malformed("\(error)")
        }
        guard header["format"]?.stringValue == formatName, let hash = header["sha256"]?.stringValue
        else { throw Failure.malformed("missing header fields") }
        let payload = bytes[range]
        guard SHA256.hex(payload) == hash else { throw Failure.checksumMismatch }
        return (header, hash, payload)
    }

    private static let payloadMarker = Array(",\"payload\":".utf8)

    /// Where the payload's exact bytes lie in a snapshot file: after `,"payload":` (within the
    /// header's first 400 bytes), up to the file's closing brace.
    static func payloadRange(in bytes: [UInt8]) throws -> Range<Int> {
        let marker = payloadMarker
        guard let markerAt = firstIndex(of: marker, in: bytes, limit: 400) else { throw Failure.malformed("no payload") }
        var end = bytes.count
        while end > 0, bytes[end - 1] == UInt8(ascii: "\n") { end -= 1 }
        guard end > markerAt + marker.count, bytes[end - 1] == UInt8(ascii: "}") else { throw Failure.malformed("truncated") }
        return (markerAt + marker.count)..<(end - 1)
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], limit: Int) -> Int? {
        let last = min(haystack.count - needle.count, limit)
        guard last >= 0 else { return nil }
        for start in 0...last where haystack[start] == needle[0] && Array(haystack[start..<start + needle.count]) == needle {
            return start
        }
        return nil
    }
}
