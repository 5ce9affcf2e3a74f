import Glibc

/// Copies of the store exactly as it lies on disk (main file and whichever of `-wal`, `-shm`,
/// `-journal` exist), made at launch under the instance lock before any SQLite connection, so
/// that even SQLite's own recovery on open can be undone. The newest 5 distinct copies are kept.
public enum RawArchiver {
    public static let keptArchives = 5
    public static let sidecarSuffixes = ["", "-wal", "-shm", "-journal"]

    /// Archives the store's files and verifies every copy byte for byte. Returns the folder that
    /// holds a copy equal to the files now (a new one, or the newest when nothing changed), or nil
    /// when there is nothing to archive.
    @discardableResult
    public static func archive(store: String, into archives: String) throws -> String? {
        let names = sidecarSuffixes.map { Files.baseName(store) + $0 }
        let present = names.filter { Files.kind(Files.directoryName(store) + "/" + $0) == .regular }
        guard !present.isEmpty else { return nil }
        try Files.makePrivateDirectory(archives)
        let folder = Files.directoryName(store)
        let existing = list(archives)
        let identity = identityLine(of: present.map { folder + "/" + $0 })
        // Unchanged since the newest archive (same files, sizes, modification times and inodes):
        // that archive is already a verified copy of them, so nothing is read.
        if let newest = existing.last, (try? Files.read(archives + "/" + newest + "/" + identityFile)) == Array(identity.utf8) {
            return archives + "/" + newest
        }
        if let newest = existing.last, matches(archive: archives + "/" + newest, folder: folder, names: present) {
            try? Files.writeDurably(Array(identity.utf8), to: archives + "/" + newest + "/" + identityFile)
            return archives + "/" + newest
        }
        let incoming = archives + "/.incoming"
        Files.remove(incoming)
        try Files.makePrivateDirectory(incoming)
        // Each copy is compared with its original, as it is on disk, once it is written.
        for name in present.sorted() {
            try Files.copyDurably(folder + "/" + name, to: incoming + "/" + name, syncFolder: false)
        }
        try Files.writeDurably(Array(identity.utf8), to: incoming + "/" + identityFile, syncFolder: false)
        try Files.syncDirectory(incoming)
        let sequence = (existing.last.flatMap { Int($0.split(separator: "-")[1]) } ?? 0) + 1
        let final = archives + "/raw-\(pad(sequence, 6))"
        try Files.move(incoming, to: final)
        try Files.syncDirectory(archives)
        for old in list(archives).dropLast(keptArchives) { Files.remove(archives + "/" + old) }
        return final
    }

    /// Archive folders, oldest first.
    public static func list(_ archives: String) -> [String] {
        Files.list(archives).filter { $0.hasPrefix("raw-") && Int($0.split(separator: "-")[1]) != nil }
    }

    /// Names each archived file with its size, modification time and inode when it was copied.
    static let identityFile = ".identity"

    static func identityLine(of paths: [String]) -> String {
        paths.map { path -> String in
            var info = stat()
            guard stat(path, &info) == 0 else { return "\(Files.baseName(path)) missing" }
            return "\(Files.baseName(path)) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) \(info.st_ino)"
        }.joined(separator: "\n") + "\n"
    }

    /// Whether an archive holds exactly the files `names` of `folder`, byte for byte.
    static func matches(archive: String, folder: String, names: [String]) -> Bool {
        let archived = Files.list(archive).filter { !$0.hasPrefix(".") }
        guard Set(archived) == Set(names) else { return false }
        return names.allSatisfy { Files.sameContents(archive + "/" + $0, folder + "/" + $0) }
    }

    /// Puts the store's files back exactly as archived (and removes sidecars the archive did not
    /// have), so a failed open leaves no trace. True when the files now equal the archive.
    @discardableResult
    public static func putBack(archive: String, store: String) -> Bool {
        let folder = Files.directoryName(store)
        let archived = Set(Files.list(archive).filter { !$0.hasPrefix(".") })
        for suffix in sidecarSuffixes {
            let name = Files.baseName(store) + suffix
            let live = folder + "/" + name
            if archived.contains(name) {
                if !Files.sameContents(archive + "/" + name, live) {
                    do { try Files.copyDurably(archive + "/" + name, to: live) } catch { return false }
                }
            } else if Files.kind(live) == .regular {
                Files.remove(live)
            }
        }
        return true
    }
}
