import Glibc

/// An exclusive lock on the data folder held for the life of the process, so only one agent
/// (or other writer) works on a store at a time. Released when the process ends, even by kill -9.
public final class InstanceLock {
    private let descriptor: Int32
    public let path: String

    public struct AlreadyLocked: Error, CustomStringConvertible {
        public let path: String
        public let holder: String
        public var description: String {
            "another time-agent is already running on this data folder\(holder.isEmpty ? "" : " (process \(holder))"); stop it first, or use it (timectl status)"
        }
    }

    public init(path: String) throws {
        self.path = path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileError("open the lock file", path) }
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let code = errno
            let holder = ((try? Files.read(path)) ?? []).filter { (48...57).contains($0) }
            close(fd)
            if code == EWOULDBLOCK { throw AlreadyLocked(path: path, holder: String(decoding: holder, as: UTF8.self)) }
            throw FileError("lock", path, code: code)
        }
        descriptor = fd
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit { close(descriptor) }
}

/// Where the data lives: `TIME_TRACKER_DATA_DIR`, else `$XDG_DATA_HOME/time-tracker`,
/// else `~/.local/share/time-tracker`.
public enum DataDirectory {
    public static func resolve(explicit: String? = nil, environment: [String: String] = currentEnvironment()) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let dir = environment["TIME_TRACKER_DATA_DIR"], !dir.isEmpty { return dir }
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/time-tracker" }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? homeFromPasswd()
        return home + "/.local/share/time-tracker"
    }

    public static func currentEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        for key in ["TIME_TRACKER_DATA_DIR", "XDG_DATA_HOME", "HOME"] {
            if let value = getenv(key) { result[key] = String(cString: value) }
        }
        return result
    }

    private static func homeFromPasswd() -> String {
        guard let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir else { return "/tmp" }
        return String(cString: dir)
    }
}
