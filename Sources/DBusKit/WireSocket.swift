import Glibc

/// A connected Unix stream socket; closed on deinit.
final class WireSocket {
    private let fd: Int32
    private var chunk = [UInt8](repeating: 0, count: 16_384)

    /// Connects; nil when the socket cannot be reached (libdbus then tries, and says why not).
    init?(_ name: UnixSocketAddress.Name) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // A path is ended by a zero byte; an abstract name starts with one and is counted, not ended.
        let bytes: [UInt8]
        switch name {
        case .path(let path):
            guard !path.contains(0) else { return nil }
            bytes = path + [0]
        case .abstract(let abstract): bytes = [0] + abstract
        }
        guard bytes.count <= MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        guard connected == 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Writes all of `bytes`; false when the peer is gone.
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Appends what arrives before `deadline` (CLOCK_MONOTONIC milliseconds); false on end of
    /// stream, an error or the deadline.
    func receive(into buffer: inout [UInt8], deadline: Int) -> Bool {
        while true {
            let remaining = deadline - WireSocket.monotonicMilliseconds()
            guard remaining > 0 else { return false }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: remaining))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return false }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return false }
            chunk.withUnsafeBufferPointer { buffer.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<count])) }
            return true
        }
    }

    static func monotonicMilliseconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int(now.tv_sec) * 1000 + Int(now.tv_nsec) / 1_000_000
    }
}
