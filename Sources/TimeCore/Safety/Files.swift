import Glibc

/// A file operation that failed, with the path and the system's reason.
public struct FileError: Error, CustomStringConvertible, Equatable {
    public let operation: String
    public let path: String
    public let code: Int32

    public init(_ operation: String, _ path: String, code: Int32 = errno) {
        self.operation = operation; self.path = path; self.code = code
    }

    public var description: String { "could not \(operation) \(path): \(String(cString: strerror(code)))" }
}

/// The few file operations data safety needs, each checked, with durable writes.
/// A temporary file created ahead of use, so that a durable write does not pay for creating it.
/// `take()` hands over its descriptor once; `prepare()` makes the next one.
public final class PreparedFile {
    public let path: String
    private var descriptor: Int32 = -1

    public init(path: String) { self.path = path }

    /// Creates the file if it is not ready; failures are left for the write to report.
    public func prepare() {
        guard descriptor < 0 else { return }
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
    }

    func take() -> Int32? {
        guard descriptor >= 0 else { return nil }
        defer { descriptor = -1 }
        return descriptor
    }

    deinit {
        if descriptor >= 0 {
            close(descriptor)
            unlink(path)
        }
    }
}

public enum Files {
    public enum Kind { case missing, regular, directory, other }

    public static func kind(_ path: String) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        default: return .other
        }
    }

    public static func exists(_ path: String) -> Bool { kind(path) != .missing }

    public static func size(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Creates a directory (and its parents) private to the user, and tightens an existing one.
    public static func makePrivateDirectory(_ path: String) throws {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o700) != 0 && errno != EEXIST { throw FileError("create the folder", built) }
        }
        guard kind(path) == .directory else { throw FileError("use as a folder", path, code: ENOTDIR) }
        if chmod(path, 0o700) != 0 { throw FileError("set permissions of", path) }
    }

    public static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw FileError("open", path) }
        defer { close(fd) }
        var result: [UInt8] = []
        var info = stat()
        if fstat(fd, &info) == 0 { result.reserveCapacity(Int(info.st_size)) }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw FileError("read", path)
            }
            if count == 0 { break }
            result.append(contentsOf: buffer[0..<count])
        }
        return result
    }

    /// Failure injection for tests of "the disk is full": the next writes fail with this errno.
    nonisolated(unsafe) public static var injectedWriteFailure: Int32?

    /// Writes a new file durably and atomically: a temporary file, fsync, rename over `path`,
    /// fsync of the folder (unless `syncFolder` is false because the caller does it once for several),
    /// then reads it back and compares. Files are created 0600.
    ///
    /// `prepared` is a temporary file created ahead of time (see `PreparedFile`): creating a file
    /// costs a journal commit of its own, which is then off the path of the change.
    public static func writeDurably(_ bytes: [UInt8], to path: String, syncFolder: Bool = true, prepared: PreparedFile? = nil) throws {
        if let code = injectedWriteFailure { throw FileError("write", path, code: code) }
        let temporary: String
        let fd: Int32
        if let prepared, let descriptor = prepared.take() {
            temporary = prepared.path
            fd = descriptor
            if ftruncate(fd, 0) != 0 {
                let error = FileError("truncate", temporary)
                close(fd)
                unlink(temporary)
                throw error
            }
        } else {
            temporary = path + ".tmp"
            fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard fd >= 0 else { throw FileError("create", temporary) }
        var failure: FileError?
        bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = pwrite(fd, buffer.baseAddress! + written, buffer.count - written, off_t(written))
                if count < 0 {
                    if errno == EINTR { continue }
                    failure = FileError("write", temporary)
                    return
                }
                written += count
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = FileError("flush to disk", temporary) }
        if close(fd) != 0 && failure == nil { failure = FileError("close", temporary) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        guard rename(temporary, path) == 0 else {
            let error = FileError("rename", temporary)
            unlink(temporary)
            throw error
        }
        if syncFolder { try syncDirectory(of: path) }
        guard try read(path) == bytes else { throw FileError("verify", path, code: EIO) }
    }

    public static func syncDirectory(of path: String) throws {
        try syncDirectory(directoryName(path))
    }

    public static func syncDirectory(_ directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw FileError("open the folder", directory) }
        defer { close(fd) }
        if fsync(fd) != 0 { throw FileError("flush the folder", directory) }
    }

    public static func directoryName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    public static func baseName(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// Names in a directory, without "." and "..", sorted.
    public static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    public static func move(_ from: String, to destination: String) throws {
        guard rename(from, destination) == 0 else { throw FileError("move", from) }
    }

    public static func remove(_ path: String) {
        if kind(path) == .directory {
            for name in list(path) { remove(path + "/" + name) }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    public static func makePrivate(_ path: String) {
        _ = chmod(path, 0o600)
    }
}
