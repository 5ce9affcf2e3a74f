import CGLib
import CSHA256

/// SHA-256 digests in lower-case hex. On a CPU with the SHA extensions the blocks go through
/// them (CSHA256: about eight times GLib's speed, and every change hashes its snapshot, its slot
/// and the chunks it writes); elsewhere through GLib's GChecksum (already in the process, no
/// Foundation needed). Both give the same digest: the tests compare them on every length.
public enum SHA256 {
    static let hardwareAvailable = time_sha256_hardware_available() == 1
    /// Whether the SHA extensions are used; the tests turn them off to check GLib's path.
    nonisolated(unsafe) static var usesHardware = hardwareAvailable

    public static func hex<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        if let digest = bytes.withContiguousStorageIfAvailable({ hex(UnsafeRawBufferPointer($0)) }) { return digest }
        return Array(bytes).withUnsafeBytes { hex($0) }
    }

    public static func hex(_ text: String) -> String {
        var copy = text
        return copy.withUTF8 { hex(UnsafeRawBufferPointer($0)) }
    }

    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        usesHardware ? hardwareHex(bytes) : glibHex(bytes)
    }

    private static func glibHex(_ bytes: UnsafeRawBufferPointer) -> String {
        let checksum = g_checksum_new(G_CHECKSUM_SHA256)
        defer { g_checksum_free(checksum) }
        if let base = bytes.baseAddress, bytes.count > 0 {
            g_checksum_update(checksum, base.assumingMemoryBound(to: guchar.self), gssize(bytes.count))
        }
        return String(cString: g_checksum_get_string(checksum))
    }

    /// The eight words a digest starts from (FIPS 180-4, H(0)).
    static let initialState: [UInt32] = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]

    private static func hardwareHex(_ bytes: UnsafeRawBufferPointer) -> String {
        var state = initialState
        return hardwareFinish(&state, bytes, hashedAlready: 0)
    }

    /// Runs whole 64-byte blocks through the hardware's block function.
    static func hardwareBlocks(_ state: inout [UInt32], _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count >= 64 else { return }
        time_sha256_blocks(&state, base.assumingMemoryBound(to: UInt8.self), bytes.count / 64)
    }

    /// FIPS 180-4's padding around the hardware's block function: `state` has taken the first
    /// `hashedAlready` bytes of the message (whole blocks) and `bytes` is the rest; the whole
    /// blocks straight from `bytes`, then its tail, a 1 bit, zeros and the message's length in
    /// bits in one or two more.
    static func hardwareFinish(_ state: inout [UInt32], _ bytes: UnsafeRawBufferPointer, hashedAlready: Int) -> String {
        let whole = bytes.count / 64, rest = bytes.count % 64
        var tail = [UInt8](repeating: 0, count: 128)
        if let base = bytes.baseAddress {
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            if whole > 0 { time_sha256_blocks(&state, bytes, whole) }
            for index in 0..<rest { tail[index] = bytes[whole * 64 + index] }
        }
        tail[rest] = 0x80
        let tailBlocks = rest + 9 <= 64 ? 1 : 2
        let bits = UInt64(hashedAlready + bytes.count) &* 8
        for index in 0..<8 { tail[tailBlocks * 64 - 1 - index] = UInt8(truncatingIfNeeded: bits >> (8 * UInt64(index))) }
        time_sha256_blocks(&state, tail, tailBlocks)
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: 64)
        for (word, value) in state.enumerated() {
            for nibble in 0..<8 { text[word * 8 + nibble] = digits[Int((value >> (28 - 4 * UInt32(nibble))) & 15)] }
        }
        return String(decoding: text, as: UTF8.self)
    }
}
