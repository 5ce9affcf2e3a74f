import Glibc

/// The SHA-256 of a message that begins, change after change, with the same long run of bytes:
/// the payload of a snapshot, whose categories, projects, settings and today's sessions stay as
/// they were while a Pause or a Resume rewrites only the open session at its end. The hash state
/// after each of a few marked places (`resumable`, cut down to whole 64-byte blocks) is kept
/// with the bytes before it; the next message that begins with those exact bytes (compared,
/// never assumed) is hashed from there. The digest is always the plain SHA-256 of the whole
/// message: the same bytes hash the same whichever way they went (ResumingSHA256Tests checks it
/// against GLib's one-shot digest). Without the CPU's SHA extensions every message is hashed whole.
struct ResumingSHA256 {
    /// The bytes up to the furthest kept place (whole blocks), and the hash state at each place.
    private var prefix: [UInt8] = []
    private var kept: [(length: Int, state: [UInt32])] = []
    /// Bytes hashed by the last call, and bytes it resumed past (for the tests).
    private(set) var lastHashed = 0, lastResumed = 0

    /// `resumable`: offsets in `message` (ascending) after which the next message is likely to
    /// differ: where the parts that change least end.
    mutating func hex(_ message: String, resumable: [Int]) -> String {
        var message = message
        return message.withUTF8 { hex(UnsafeRawBufferPointer($0), resumable: resumable) }
    }

    mutating func hex(_ bytes: UnsafeRawBufferPointer, resumable: [Int]) -> String {
        guard SHA256.usesHardware, bytes.count > 0 else {
            lastHashed = bytes.count
            lastResumed = 0
            return SHA256.hex(bytes)
        }
        // The furthest kept place whose bytes this message repeats; the places past it go.
        var valid = kept.count
        while valid > 0 {
            let length = kept[valid - 1].length
            if length <= bytes.count, prefix.withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress!, length) == 0 }) { break }
            valid -= 1
        }
        kept.removeSubrange(valid...)
        var state = kept.last?.state ?? SHA256.initialState
        let resumed = kept.last?.length ?? 0
        var at = resumed
        for offset in resumable {
            let cut = min(offset, bytes.count) / 64 * 64
            guard cut > at else { continue }
            SHA256.hardwareBlocks(&state, UnsafeRawBufferPointer(rebasing: bytes[at..<cut]))
            at = cut
            kept.append((at, state))
        }
        if at > resumed { prefix = Array(bytes[0..<at]) }
        lastResumed = resumed
        lastHashed = bytes.count - resumed
        return SHA256.hardwareFinish(&state, UnsafeRawBufferPointer(rebasing: bytes[at...]), hashedAlready: at)
    }
}
