/// Reading a kept snapshot back whole: the file, every chunk it names (from the slot that carried
/// it when its own file is gone or torn), every record.
extension SnapshotKeeper {
    /// Reads and fully verifies one snapshot: its checksum, every chunk it refers to, every record.
    public func state(of entry: Entry) throws -> DataState {
        // A kept file is not flushed (the slot is the durable record): after a power cut its name
        // may hold a recycled file's older bytes, whole and checksummed. Those are not its state.
        let header = try SnapshotFormat.read(try SnapshotSlots.snapshotBytes(at: entry.path))
        // (Names that carry no hash, as hand-made fixtures' do, are not compared.)
        guard header.stateHash == entry.stateHash || entry.stateHash.count != 64 else { throw SnapshotFormat.Failure.checksumMismatch }
        return try SnapshotKeeper.state(at: entry.path)
    }

    public static func state(at path: String) throws -> DataState {
        let header = try SnapshotFormat.read(try SnapshotSlots.snapshotBytes(at: path))
        let payload = try SnapshotFormat.migrate(header.payload, from: header.version)
        let folder = Files.directoryName(path)
        // A slot carries the chunks that were not yet durable when it was written: a chunk file a
        // power cut took or tore is read from there.
        let carried = SnapshotSlots.carried(at: path)
        return try SnapshotFormat.state(from: payload) { hash in
            guard hash.count == 64, hash.allSatisfy({ $0.isHexDigit }) else { throw SnapshotFormat.Failure.missingChunk(hash) }
            if let bytes = try? Files.read(folder + "/" + chunkName(hash)), SHA256.hex(bytes) == hash { return bytes }
            guard let bytes = carried[hash] else { throw SnapshotFormat.Failure.missingChunk(hash) }
            return bytes
        }
    }
}
