import Glibc

/// Writes what `timectl report` was asked to write into a file ("-" for stdout): a chart (SVG,
/// or PNG drawn by the agent, so timectl never loads librsvg and starts as fast as before) or the
/// report itself (`-o`).
enum ReportFile {
    static func save(_ bytes: [UInt8], to path: String) throws {
        let fd = path == "-" ? STDOUT_FILENO : open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw RefusedError(message: "cannot write \(path): \(String(cString: strerror(errno)))")
        }
        defer { if fd != STDOUT_FILENO { close(fd) } }
        var rest = bytes[...]
        while !rest.isEmpty {
            let written = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            guard written > 0 else { throw RefusedError(message: "cannot write \(path): \(String(cString: strerror(errno)))") }
            rest = rest.dropFirst(written)
        }
    }
}
