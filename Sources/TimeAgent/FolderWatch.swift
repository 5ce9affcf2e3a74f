import CGLib
import Glibc

/// Watches folders with inotify, its descriptor a GLib fd source on the agent's main loop: the
/// kernel wakes us when a file there is written, created or moved in, and never otherwise (what
/// GLib's own file monitor does on Linux, without a second main context). Knows no tracking.
final class FolderWatch {
    private let descriptor: Int32
    private var source: UInt32 = 0
    private var watched: [Int32: String] = [:]
    private let changed: (String) -> Void

    /// `changed` gets the folder in which something changed; a burst of events is one call per folder.
    init?(changed: @escaping (String) -> Void) {
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        self.changed = changed
        source = g_unix_fd_add_full(G_PRIORITY_DEFAULT, descriptor, G_IO_IN, folderWatchReadable,
                                    Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    deinit {
        if source != 0 { g_source_remove(source) }
        close(descriptor)
    }

    var folders: Set<String> { Set(watched.values) }

    func watch(_ folder: String) {
        guard !watched.values.contains(folder) else { return }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF)
        let handle = inotify_add_watch(descriptor, folder, mask)
        if handle >= 0 { watched[handle] = folder }
    }

    fileprivate func readable() {
        var buffer = [UInt8](repeating: 0, count: 8192)
        var folders = Set<String>()
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
                if let folder = watched[event.wd] { folders.insert(folder) }
                if event.mask & UInt32(IN_IGNORED) != 0 { watched[event.wd] = nil }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
        for folder in folders.sorted() { changed(folder) }
    }
}

private func folderWatchReadable(_ fd: Int32, _ condition: GIOCondition, _ data: gpointer?) -> gboolean {
    Unmanaged<FolderWatch>.fromOpaque(data!).takeUnretainedValue().readable()
    return 1  // G_SOURCE_CONTINUE
}
