import DBusCore
import Glibc

/// `timectl report --svg FILE` / `--png FILE`: the week's chart from the agent, written to a file
/// ("-" for stdout). The PNG is drawn by the agent (WeeklyReportPNG), so timectl never loads
/// librsvg and starts as fast as before.
enum ReportPicture {
    static func write(svg path: String, week: String, context: Context) throws {
        let reply = try context.agent().call("WeeklyReport", [.string(week), .string("svg")])
        try save(Array((reply.first?.stringValue ?? "").utf8), to: path)
    }

    static func write(png path: String, week: String, context: Context) throws {
        let reply = try context.agent().call("WeeklyReportPNG", [.string(week)])
        try save((reply.first?.arrayValue ?? []).compactMap(\.byteValue), to: path)
    }

    private static func save(_ bytes: [UInt8], to path: String) throws {
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
