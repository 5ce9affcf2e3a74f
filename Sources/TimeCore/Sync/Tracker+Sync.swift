import Glibc

/// Sync's settings in the store's `meta`: they survive restarts, so the device keeps its id.
public struct SyncSettings: Equatable, Sendable {
    public var folder: String
    public var device: String
    public var name: String
}

extension Tracker {
    public func syncSettings() throws -> SyncSettings? {
        guard let folder = try store.meta("sync_folder"), !folder.isEmpty, let device = try store.meta("sync_device") else { return nil }
        return SyncSettings(folder: folder, device: device, name: try store.meta("sync_name") ?? "")
    }

    /// This data's device id: made once, kept when sync is disabled and enabled again.
    public func syncDeviceID() throws -> String {
        if let device = try store.meta("sync_device"), SyncLayout.isDeviceID(device) { return device }
        let device = SyncRecord.newID()
        try change(recordingStep: false) { try store.setMeta("sync_device", device) }
        return device
    }

    /// Checks the folder (created when its parent exists), then records it as this device's sync folder.
    public func enableSync(folder raw: String, name rawName: String) throws -> SyncSettings {
        let folder = raw.trimmingWhitespace()
        guard folder.hasPrefix("/") else {
            throw TrackerError.invalidArgument("The sync folder must be an absolute path (such as ~/Sync expanded); got \"\(Files.shownInMessage(raw))\".")
        }
        let root = SyncLayout(folder: folder).root
        if !Files.exists(folder) && Files.kind(Files.directoryName(folder)) == .directory { mkdir(folder, 0o700) }
        guard Files.kind(folder) == .directory else {
            throw TrackerError.invalidArgument("The sync folder \(Files.shownInMessage(folder)) does not exist and its parent folder does not either; create it (or let Syncthing create it) first.")
        }
        do {
            try Files.makePrivateDirectory(root)
            try Files.writeDurably(Array("ok\n".utf8), to: root + "/.write-test")
            Files.remove(root + "/.write-test")
        } catch {
            throw TrackerError.invalidArgument("The sync folder \(Files.shownInMessage(folder)) cannot be written (\(error)); check its permissions.")
        }
        var name = try TextInput.normalizedNote(rawName.replacingNewlines()).trimmingWhitespace()
        if name.isEmpty { name = SyncSettings.hostName() }
        let device = try syncDeviceID()
        try change(recordingStep: false) {
            try SyncTriggers.make(in: store)  // before anything is written with sync on
            try store.setMeta("sync_folder", folder)
            try store.setMeta("sync_name", name)
        }
        return SyncSettings(folder: folder, device: device, name: name)
    }

    public func disableSync() throws {
        try change(recordingStep: false) {
            try store.setMeta("sync_folder", "")
            try store.setMeta(SyncEngine.publishedKey, "")  // changes from now on are not noted
            try SyncPublishing.forget(store)  // enabling again compares everything anew
            try SyncTriggers.drop(in: store)
        }
    }
}

extension SyncSettings {
    static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "this computer" }
        let name = String(cString: buffer)
        return name.isEmpty ? "this computer" : name
    }
}

private extension String {
    func replacingNewlines() -> String { String(map { $0 == "\n" || $0 == "\r" ? " " : $0 }) }
}
