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

    /// Makes a file that is no longer wanted (a pruned snapshot) the next temporary file, when
    /// none is ready: renaming and overwriting it costs far less than deleting one file and
    /// creating another (on ext4 both are slow, and a new inode is searched for among recently
    /// deleted ones). True when `old` is gone, whether it was taken or not.
    public func recycle(_ old: String) -> Bool {
        // A file with another name too (a hard link, as some backups make) keeps its bytes.
        var info = stat()
        guard descriptor < 0, lstat(old, &info) == 0, info.st_nlink == 1 else { return false }
        guard rename(old, path) == 0 else { return false }
        descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        if descriptor < 0 { unlink(path) }
        return true
    }

    func take() -> Int32? {
        guard descriptor >= 0 else { return nil }
        defer { descriptor = -1 }
        return descriptor
    }

    deinit {
        guard descriptor >= 0 else { return }
        // Removed only while the name is still this file: another keeper of the folder may have
        // made its own file under the same name since.
        var mine = stat(), named = stat()
        if fstat(descriptor, &mine) == 0, lstat(path, &named) == 0, mine.st_dev == named.st_dev, mine.st_ino == named.st_ino {
            unlink(path)
        }
        close(descriptor)
    }
}

public enum Files {
    /// A path as an error message shows it: a caller's megabyte of "path" must not come back as
    /// a megabyte of message (no real path is that long: PATH_MAX is 4096).
    public static func shownInMessage(_ path: String) -> String {
        guard path.count > 300 else { return path }
        return "\(path.prefix(200))… (\(path.utf8.count) bytes)"
    }

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
    /// A folder made here is made durable (its parent is flushed): otherwise a power cut could
    /// take the new folder, and every file acknowledged in it, away (the crash-state tests).
    public static func makePrivateDirectory(_ path: String) throws {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            let parent = built.isEmpty ? "/" : built
            built += "/" + component
            if mkdir(built, 0o700) == 0 {
                try syncDirectory(parent)
            } else if errno != EEXIST {
                throw FileError("create the folder", built)
            }
        }
        guard kind(path) == .directory else { throw FileError("use as a folder", path, code: ENOTDIR) }
        if chmod(path, 0o700) != 0 { throw FileError("set permissions of", path) }
    }

    /// The whole file. Read straight into the result at the size the file has (an 11 MB store
    /// in one system call); files that report no size, like those in /proc, are read in pieces.
    public static func read(_ path: String) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw FileError("open", path) }
        defer { close(fd) }
        var info = stat()
        let expected = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
        var failure: Int32?
        // One byte more than expected, so that a file that grew is noticed without another read.
        var result = [UInt8](unsafeUninitializedCapacity: expected + 1) { buffer, count in
            count = 0
            while count < buffer.count {
                let got = Glibc.read(fd, buffer.baseAddress! + count, buffer.count - count)
                if got < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                if got == 0 { return }
                count += got
            }
        }
        if let failure { throw FileError("read", path, code: failure) }
        guard result.count > expected else { return result }
        var piece = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = piece.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                throw FileError("read", path)
            }
            if got == 0 { return result }
            result.append(contentsOf: piece[0..<got])
        }
    }

    /// Whether two byte strings are equal, compared by memcmp (an element-wise `==` over an 11 MB
    /// store takes ten times as long).
    public static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }

    /// Failure injection for tests of "the disk is full": the next writes fail with this errno.
    nonisolated(unsafe) public static var injectedWriteFailure: Int32?

    /// Writes a new file durably and atomically: a temporary file, fsync, rename over `path`,
    /// fsync of the folder (unless `syncFolder` is false because the caller does it once for several),
    /// then reads it back and compares. Files are created 0600.
    ///
    /// `prepared` is a temporary file created ahead of time (see `PreparedFile`): creating a file
    /// costs a journal commit of its own, which is then off the path of the change.
    /// `flush: false` leaves out the fsync (for a file another one makes durable: a snapshot slot).
    public static func writeDurably(_ bytes: [UInt8], to path: String, syncFolder: Bool = true, prepared: PreparedFile? = nil,
                                    flush: Bool = true) throws {
        if let code = injectedWriteFailure { throw FileError("write", path, code: code) }
        let temporary: String
        let fd: Int32
        if let prepared, let descriptor = prepared.take() {
            // It may hold an older file's bytes: overwritten below, and cut to length after.
            temporary = prepared.path
            fd = descriptor
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
        if failure == nil && ftruncate(fd, off_t(bytes.count)) != 0 { failure = FileError("truncate", temporary) }
        try settle(fd, temporary, as: path, failure: failure, syncFolder: syncFolder, flush: flush)
        guard same(try read(path), bytes) else { throw FileError("verify", path, code: EIO) }
    }

    /// The end of a durable write: fsync and close the temporary file, rename it over `path`
    /// and fsync the folder; on any failure (also one before) the temporary file is removed.
    private static func settle(_ fd: Int32, _ temporary: String, as path: String, failure: FileError?, syncFolder: Bool,
                               flush: Bool = true) throws {
        var failure = failure
        if failure == nil && flush && fsync(fd) != 0 { failure = FileError("flush to disk", temporary) }
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
    }

    /// Copies a file durably: into a temporary file by the kernel (sendfile, so an 11 MB store
    /// never passes through our memory), fsync, rename over `destination`, fsync of the folder
    /// unless `syncFolder` is false; then both are compared byte for byte.
    public static func copyDurably(_ source: String, to destination: String, syncFolder: Bool = true) throws {
        if let code = injectedWriteFailure { throw FileError("write", destination, code: code) }
        let input = open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard input >= 0 else { throw FileError("open", source) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0 else { throw FileError("read", source) }
        let temporary = destination + ".tmp"
        let output = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard output >= 0 else { throw FileError("create", temporary) }
        let failure = copyContents(from: input, to: output, count: Int(info.st_size))
            .map { FileError("copy \(source) to", temporary, code: $0) }
        try settle(output, temporary, as: destination, failure: failure, syncFolder: syncFolder)
        guard sameContents(source, destination) else { throw FileError("verify", destination, code: EIO) }
    }

    /// Copies `count` bytes, and whatever follows if the file grew; nil, or the errno of the failure.
    private static func copyContents(from input: Int32, to output: Int32, count: Int) -> Int32? {
        var copied = 0
        while copied < count {
            let sent = sendfile(output, input, nil, count - copied)
            if sent < 0 {
                if errno == EINTR { continue }
                if errno == EINVAL || errno == ENOSYS { break }   // no in-kernel copy here: copy below
                return errno
            }
            if sent == 0 { return nil }
            copied += sent
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(input, $0.baseAddress, $0.count) }
            if got < 0 {
                if errno == EINTR { continue }
                return errno
            }
            if got == 0 { return nil }
            var written = 0
            while written < got {
                let put = buffer.withUnsafeBytes { write(output, $0.baseAddress! + written, got - written) }
                if put < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += put
            }
        }
    }

    /// Whether two files hold the same bytes. Files of different sizes are not read; equal sizes
    /// are compared a megabyte at a time, stopping at the first difference.
    public static func sameContents(_ first: String, _ second: String) -> Bool {
        let a = open(first, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard a >= 0 else { return false }
        defer { close(a) }
        let b = open(second, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard b >= 0 else { return false }
        defer { close(b) }
        var infoA = stat(), infoB = stat()
        guard fstat(a, &infoA) == 0, fstat(b, &infoB) == 0, infoA.st_size == infoB.st_size else { return false }
        var bufferA = [UInt8](repeating: 0, count: 1 << 20), bufferB = bufferA
        while true {
            guard let gotA = readFully(a, into: &bufferA), let gotB = readFully(b, into: &bufferB), gotA == gotB else { return false }
            if gotA == 0 { return true }
            let equal = bufferA.withUnsafeBytes { x in bufferB.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, gotA) == 0 } }
            if !equal { return false }
        }
    }

    /// Fills `buffer` unless the file ends first; the count read, or nil on a read error.
    private static func readFully(_ fd: Int32, into buffer: inout [UInt8]) -> Int? {
        var filled = 0
        while filled < buffer.count {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if got < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if got == 0 { break }
            filled += got
        }
        return filled
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

    /// The names in a folder but "." and "..", sorted unless `sorted` is false (a folder of thousands of
    /// chunk files is listed at every start, and sorting them would be work thrown away).
    public static func list(_ directory: String, sorted: Bool = true) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return sorted ? names.sorted() : names
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
