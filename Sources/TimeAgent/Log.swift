import Glibc

/// Log lines on stderr. Under systemd (JOURNAL_STREAM set) each line starts with a syslog
/// priority prefix such as `<4>`, which the journal turns into the entry's priority.
public enum Log {
    nonisolated(unsafe) public static var verbose = false
    static let journal = getenv("JOURNAL_STREAM") != nil

    public static func error(_ message: String) { write(3, "error", message) }
    public static func warning(_ message: String) { write(4, "warning", message) }
    public static func info(_ message: String) { write(6, "info", message) }
    public static func debug(_ message: String) { if verbose { write(7, "debug", message) } }

    private static func write(_ priority: Int, _ label: String, _ message: String) {
        let line = journal ? "<\(priority)>\(message)\n" : "time-agent: \(label): \(message)\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}
