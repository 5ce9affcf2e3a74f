@testable import TimeCore

/// What a snapshot file's chunk tree holds, read the way a person would check it: every chunk
/// file it names (index chunks followed down), and the session ids of each day's chunk.
struct ChunkTreeContents {
    var files: Set<String> = []
    var sessionsByPeriod: [String: [Int64]] = [:]
    var indexPeriods: [String] = []

    var sessionIDs: [Int64] { sessionsByPeriod.values.flatMap { $0 }.sorted() }

    init(snapshot path: String) throws {
        let folder = Files.directoryName(path)
        let header = try SnapshotFormat.read(SnapshotSlots.snapshotBytes(at: path))
        var pending = header.payload["chunks"]?.arrayValue ?? []
        while let reference = pending.popLast() {
            guard let hash = reference["sha256"]?.stringValue, let period = reference["period"]?.stringValue else { continue }
            let name = "chunk-\(hash).json"
            files.insert(name)
            let chunk = try JSON.parse(Files.read(folder + "/" + name))
            if let parts = chunk["parts"]?.arrayValue {
                indexPeriods.append(period)
                pending += parts
            } else {
                sessionsByPeriod[period] = (chunk["sessions"]?.arrayValue ?? []).compactMap { $0["id"]?.intValue }
            }
        }
        indexPeriods.sort()
    }
}
