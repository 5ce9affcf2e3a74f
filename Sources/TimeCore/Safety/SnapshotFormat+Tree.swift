/// The chunk tree of payload v9.
///
/// Completed sessions are kept in one leaf chunk per UTC day of their start,
/// `{"period":"2024-03-15","sessions":[…]}`, at every age: an edit years back rewrites a day, never
/// a month or a year. Index chunks list the chunks below them, `{"parts":[…],"period":"2024-03"}`:
/// a month lists its days, a year its months, the root (period "") its years; the payload's
/// `chunks` list names only the root. Every chunk is a content-addressed file `chunk-<sha256>.json`,
/// and a reference is `{"period":…,"sha256":…,"sessions":…}` (the sessions under it), so a change
/// on one day rewrites four small files (day, month, year, root) whatever the history's size, and
/// the snapshot of a timer change names one chunk.
extension SnapshotFormat {
    /// The period of the index chunk that lists `period`: a day's month, a month's year, a year's
    /// root (""). Nil for the root.
    static func parentPeriod(_ period: String) -> String? {
        if period.isEmpty { return nil }
        guard let dash = period.lastIndex(of: "-") else { return "" }
        return String(period[..<dash])
    }

    /// True when `ancestor` is `period` or an index above it ("" is above every period).
    static func covers(_ ancestor: String, _ period: String) -> Bool {
        ancestor.isEmpty || ancestor == period || period.hasPrefix(ancestor + "-")
    }

    /// True for a day's leaf period ("YYYY-MM-DD"); a month or year listed in an index chunk is an
    /// index chunk itself. (At the top of a v8 payload, months and years are leaves.)
    static func isDay(_ period: String) -> Bool { period.utf8.count == 10 }

    /// An index chunk's canonical bytes; `parts` sorted by period.
    static func indexChunk(period: String, parts: [ChunkReference]) -> [UInt8] {
        var out = Array(#"{"parts":"#.utf8)
        writeChunkList(parts, to: &out)
        out += #","period":"#.utf8
        JSON.writeString(period, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// The references an index chunk lists, when `bytes` is one (nil for a day's chunk or bad bytes).
    static func indexParts(_ bytes: [UInt8]) -> [ChunkReference]? { indexChunkContents(bytes)?.parts }

    /// An index chunk's period and the references it lists (nil for a day's chunk or bad bytes).
    static func indexChunkContents(_ bytes: [UInt8]) -> (period: String, parts: [ChunkReference])? {
        if let contents = canonicalIndexContents(bytes) { return contents }
        guard let json = try? JSON.parse(bytes), let period = json["period"]?.stringValue,
              let parts = json["parts"]?.arrayValue else { return nil }
        var result: [ChunkReference] = []
        for part in parts {
            guard let period = part["period"]?.stringValue, let hash = part["sha256"]?.stringValue,
                  let count = part["sessions"]?.intValue else { return nil }
            result.append(ChunkReference(period: period, sha256: hash, sessions: Int(count)))
        }
        return (period, result)
    }

    /// The parts of an index chunk in exactly the canonical form `indexChunk` writes, read without
    /// the general JSON parser (a start reads every index chunk of the history); nil for anything
    /// else, which the parser then reads. Periods and hashes written by `indexChunk` need no
    /// escapes, so a backslash sends the chunk to the parser too.
    static func canonicalIndexContents(_ bytes: [UInt8]) -> (period: String, parts: [ChunkReference])? {
        var at = 0
        func expect(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard at + count <= bytes.count else { return false }
            let matches = text.withUTF8Buffer { literal in (0..<count).allSatisfy { bytes[at + $0] == literal[$0] } }
            if matches { at += count }
            return matches
        }
        func string() -> String? {
            let start = at
            while at < bytes.count, bytes[at] != UInt8(ascii: "\""), bytes[at] != UInt8(ascii: "\\"), bytes[at] >= 0x20 { at += 1 }
            guard at < bytes.count, bytes[at] == UInt8(ascii: "\"") else { return nil }
            defer { at += 1 }
            return String(decoding: bytes[start..<at], as: UTF8.self)
        }
        func integer() -> Int? {
            let start = at
            while at < bytes.count, bytes[at] >= UInt8(ascii: "0"), bytes[at] <= UInt8(ascii: "9") { at += 1 }
            guard at > start, at - start <= 18, bytes[start] != UInt8(ascii: "0") || at - start == 1 else { return nil }
            return Int(String(decoding: bytes[start..<at], as: UTF8.self))
        }
        guard expect("{\"parts\":[") else { return nil }
        var parts: [ChunkReference] = []
        if !expect("]") {
            repeat {
                guard expect("{\"period\":\""), let period = string(), expect(",\"sessions\":"), let sessions = integer(),
                      expect(",\"sha256\":\""), let hash = string(), expect("}") else { return nil }
                parts.append(ChunkReference(period: period, sha256: hash, sessions: sessions))
            } while expect(",")
            guard expect("]") else { return nil }
        }
        guard expect(",\"period\":\""), let period = string(), expect("}"), at == bytes.count else { return nil }
        return (period, parts)
    }

    /// v8 → v9: nothing to convert. A v8 payload's `chunks` list names month and year chunks of
    /// sessions; read as a v9 tree it is a root of leaves, each checked against its period and
    /// count the same way.
    static func migrateV8toV9(_ payload: JSON) -> JSON { payload }

    /// The sessions of the chunks `references` name, read through `chunk(sha256)`, index chunks
    /// followed down to their days; every chunk is checked against its hash, period and count.
    static func chunkSessions(_ references: [JSON], depth: Int = 0, chunk: (String) throws -> [UInt8]) throws -> [WorkSession] {
        guard depth <= 4 else { throw Failure.malformed("chunk index too deep") }
        var sessions: [WorkSession] = []
        for reference in references {
            guard let hash = reference["sha256"]?.stringValue, let period = reference["period"]?.stringValue,
                  let count = reference["sessions"]?.intValue else { throw Failure.malformed("bad chunk reference") }
            let bytes = try chunk(hash)
            guard SHA256.hex(bytes) == hash, let json = try? JSON.parse(bytes), json["period"]?.stringValue == period
            else { throw Failure.missingChunk(hash) }
            if let parts = json["parts"]?.arrayValue {
                let below = try chunkSessions(parts, depth: depth + 1, chunk: chunk)
                guard below.count == count, parts.allSatisfy({ $0["period"]?.stringValue.map { covers(period, $0) && $0 != period } ?? false })
                else { throw Failure.missingChunk(hash) }
                sessions += below
            } else {
                guard let list = json["sessions"]?.arrayValue, list.count == count else { throw Failure.missingChunk(hash) }
                sessions += try list.map(decodeSession)
            }
        }
        return sessions
    }
}
