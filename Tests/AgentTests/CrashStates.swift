import Foundation

/// The file-system operations the crash recorder (Tests/CrashRecorder) wrote down, and the states a
/// power cut after any of them may leave on disk, by the rules POSIX gives a file system:
/// - a file's bytes up to its last completed fsync/fdatasync are kept; its later writes and cuts
///   are each kept or lost, in any order, and a write may be torn at the 512-byte sector;
/// - a name made (create, rename, link, unlink, mkdir) is kept once its folder was flushed;
///   before that each such change may or may not have happened;
/// - after a `syncfs`, everything written before it is kept;
/// - SQLite's `-shm` is a cache SQLite rebuilds after a crash: it is left out.
/// Paths are kept relative to the recorded root.
struct RecordedRun {
    enum Operation {
        case create(String, UInt64)
        case rename(String, String, UInt64)
        case link(String, String, UInt64)
        case unlink(String)
        case makeFolder(String)
        case write(UInt64, Int, [UInt8])
        case truncate(UInt64, Int)
        case sync(UInt64)
        case syncFolder(String)
        case syncAll
    }

    /// File operations, in order.
    var operations: [Operation] = []
    /// Acknowledged changes: how many operations came before each, and its state's fingerprint.
    var acknowledgments: [(afterOperations: Int, fingerprint: String)] = []

    init(log: String, root: String) throws {
        let text = try String(contentsOfFile: log, encoding: .utf8)
        func relative(_ path: Substring) -> String {
            let path = String(path)
            return path == root ? "" : String(path.dropFirst(root.count + 1))
        }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            func number(_ index: Int) -> UInt64 { UInt64(Int64(parts[index]).map { UInt64(bitPattern: $0) } ?? 0) }
            switch parts.first {
            case "C": operations.append(.create(relative(parts[1]), number(2)))
            case "R": operations.append(.rename(relative(parts[1]), relative(parts[2]), number(3)))
            case "L": operations.append(.link(relative(parts[1]), relative(parts[2]), number(3)))
            case "U": operations.append(.unlink(relative(parts[1])))
            case "M": operations.append(.makeFolder(relative(parts[1])))
            case "W": operations.append(.write(number(1), Int(parts[2]) ?? 0, RecordedRun.bytes(hex: parts[3])))
            case "T": operations.append(.truncate(number(1), Int(parts[2]) ?? 0))
            case "S": operations.append(.sync(number(1)))
            case "D": operations.append(.syncFolder(relative(parts[1])))
            case "F": operations.append(.syncAll)
            case "A": acknowledgments.append((operations.count, String(parts[2])))
            default: throw CrashStateFailure("unreadable line in the recorder's log: \(line.prefix(80))")
            }
        }
    }

    static func bytes(hex: Substring) -> [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(hex.utf8.count / 2)
        var high: UInt8?
        for c in hex.utf8 {
            let value = c <= 57 ? c - 48 : c - 87
            if let h = high { result.append(h << 4 | value); high = nil } else { high = value }
        }
        return result
    }

    /// The fingerprints a recovery after `operationCount` operations may bring back: the last
    /// acknowledged state or a later one. Nil when nothing was acknowledged yet (anything goes).
    func allowedStates(after operationCount: Int) -> Set<String>? {
        guard let last = acknowledgments.lastIndex(where: { $0.afterOperations <= operationCount }) else { return nil }
        return Set(acknowledgments[last...].map(\.fingerprint))
    }
}

struct CrashStateFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The file system as a power cut sees it, replayed operation by operation.
struct CrashModel {
    enum DataChange { case write(Int, [UInt8]), truncate(Int) }
    enum NameChange {
        case bind(String, Int)
        case rename(String, String, Int)
        case unbind(String)
        case folder(String)

        var folders: [String] {
            switch self {
            case .bind(let p, _), .unbind(let p), .folder(let p): [CrashModel.parent(p)]
            case .rename(let a, let b, _): [CrashModel.parent(a), CrashModel.parent(b)]
            }
        }
    }
    struct File {
        var durable: [UInt8] = []
        var pending: [DataChange] = []
    }

    /// How one crash state is chosen among the possible ones.
    enum Choice: String { case flushedOnly = "only what was flushed", everything = "everything written", random = "a random subset" }

    private(set) var files: [File] = []
    private var fileOfInode: [UInt64: Int] = [:]
    private(set) var names: [String: Int] = [:]
    private(set) var folders: Set<String> = [""]
    private(set) var pendingNames: [NameChange] = []

    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    static func apply(_ changes: [DataChange], to bytes: inout [UInt8]) {
        for change in changes {
            switch change {
            case .write(let offset, let data):
                if bytes.count < offset + data.count { bytes += [UInt8](repeating: 0, count: offset + data.count - bytes.count) }
                bytes.replaceSubrange(offset..<offset + data.count, with: data)
            case .truncate(let size):
                if size < bytes.count { bytes.removeSubrange(size...) } else { bytes += [UInt8](repeating: 0, count: size - bytes.count) }
            }
        }
    }

    static func apply(_ change: NameChange, names: inout [String: Int], folders: inout Set<String>) {
        switch change {
        case .bind(let path, let file): names[path] = file
        case .rename(let from, let to, let file):
            if folders.contains(from) {
                folders.remove(from)
                folders.insert(to)
            } else {
                if names[from] == file { names[from] = nil }
                names[to] = file
            }
        case .unbind(let path): names[path] = nil; folders.remove(path)
        case .folder(let path): folders.insert(path)
        }
    }

    mutating func replay(_ operation: RecordedRun.Operation) {
        func file(_ inode: UInt64) -> Int {
            if let index = fileOfInode[inode] { return index }
            files.append(File())
            fileOfInode[inode] = files.count - 1
            return files.count - 1
        }
        switch operation {
        case .create(let path, let inode):
            files.append(File())
            fileOfInode[inode] = files.count - 1
            pendingNames.append(.bind(path, files.count - 1))
        case .rename(let from, let to, let inode): pendingNames.append(.rename(from, to, fileOfInode[inode] ?? -1))
        case .link(_, let to, let inode): pendingNames.append(.bind(to, file(inode)))
        case .unlink(let path): pendingNames.append(.unbind(path))
        case .makeFolder(let path): pendingNames.append(.folder(path))
        case .write(let inode, let offset, let bytes): files[file(inode)].pending.append(.write(offset, bytes))
        case .truncate(let inode, let size): files[file(inode)].pending.append(.truncate(size))
        case .sync(let inode):
            let index = file(inode)
            CrashModel.apply(files[index].pending, to: &files[index].durable)
            files[index].pending.removeAll()
        case .syncFolder(let folder):
            var left: [NameChange] = []
            for change in pendingNames {
                if change.folders.contains(folder) { CrashModel.apply(change, names: &names, folders: &folders) } else { left.append(change) }
            }
            pendingNames = left
        case .syncAll:
            for index in files.indices {
                CrashModel.apply(files[index].pending, to: &files[index].durable)
                files[index].pending.removeAll()
            }
            for change in pendingNames { CrashModel.apply(change, names: &names, folders: &folders) }
            pendingNames.removeAll()
        }
    }

    /// Whether a crash here has more than one possible outcome.
    var hasPending: Bool { !pendingNames.isEmpty || files.contains { !$0.pending.isEmpty } }

    /// One crash state, written into `directory` (which must exist and be empty).
    func materialize(_ choice: Choice, into directory: String, using random: inout SeededGenerator) throws {
        func kept() -> Bool {
            switch choice {
            case .flushedOnly: false
            case .everything: true
            case .random: Bool.random(using: &random)
            }
        }
        var names = self.names, folders = self.folders
        for change in pendingNames where kept() { CrashModel.apply(change, names: &names, folders: &folders) }
        for folder in folders.sorted(by: { $0.count < $1.count }) where !folder.isEmpty {
            guard folders.contains(CrashModel.parent(folder)) else { continue }
            try FileManager.default.createDirectory(atPath: directory + "/" + folder, withIntermediateDirectories: true)
        }
        for (name, index) in names where index >= 0 && !name.hasSuffix("-shm") {
            guard folders.contains(CrashModel.parent(name)), FileManager.default.fileExists(atPath: directory + "/" + CrashModel.parent(name)) else { continue }
            var bytes = files[index].durable
            var changes = files[index].pending.filter { _ in kept() }
            if choice == .random {
                // Unflushed writes land in any order, and a write can be torn at a sector.
                changes.shuffle(using: &random)
                changes = changes.flatMap { change -> [DataChange] in
                    guard case .write(let offset, let data) = change, data.count > 512, Int.random(in: 0..<4, using: &random) == 0 else { return [change] }
                    return stride(from: 0, to: data.count, by: 512).compactMap { start in
                        Bool.random(using: &random) ? .write(offset + start, Array(data[start..<min(start + 512, data.count)])) : nil
                    }
                }
            }
            CrashModel.apply(changes, to: &bytes)
            guard FileManager.default.createFile(atPath: directory + "/" + name, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
                throw CrashStateFailure("could not write the crash state's \(name)")
            }
        }
    }
}
