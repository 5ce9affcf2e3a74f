import CGLib

/// SHA-256 through GLib's GChecksum (already in the process through GLib; no Foundation needed).
public struct SHA256 {
    private let checksum: OpaquePointer

    public init() { checksum = g_checksum_new(G_CHECKSUM_SHA256) }

    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        g_checksum_update(checksum, base.assumingMemoryBound(to: guchar.self), gssize(bytes.count))
    }

    /// The lower-case hex digest; the hasher is freed afterwards.
    public func finish() -> String {
        defer { g_checksum_free(checksum) }
        return String(cString: g_checksum_get_string(checksum))
    }

    public static func hex<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let hasher = SHA256()
        if let done = bytes.withContiguousStorageIfAvailable({ hasher.update(UnsafeRawBufferPointer($0)) }) {
            _ = done
        } else {
            Array(bytes).withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finish()
    }

    public static func hex(_ text: String) -> String {
        var copy = text
        return copy.withUTF8 { hex($0) }
    }
}
