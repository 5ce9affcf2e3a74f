import Glibc

/// Whether a key is already taken in KDE Plasma's `kglobalshortcutsrc`: each `[component]` group's
/// `action=active,default,title` lines, the active field holding one or more keys separated by tabs.
/// Read as text so nothing of the person's file is changed.
enum KdeConflicts {
    static func file(environment: [String: String]) -> String {
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((environment["HOME"] ?? "") + "/.config")
        return config + "/kglobalshortcutsrc"
    }

    /// The file's text; empty when there is none yet.
    static func read(environment: [String: String]) -> String {
        guard let handle = fopen(file(environment: environment), "r") else { return "" }
        defer { fclose(handle) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, handle)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The title and place (`component, action`) of the entry outside `except` whose active key is `key`.
    static func owner(of key: KeyCombo, except: String, in text: String) -> (String, String)? {
        var group = ""
        for raw in text.split(separator: "\n") {
            let line = raw.trimmingSpaces
            if line.hasPrefix("[") && line.hasSuffix("]") { group = String(line.dropFirst().dropLast()); continue }
            guard group != except, !line.hasPrefix("#"), let equals = line.firstIndex(of: "="),
                  !line.hasPrefix("_k_friendly_name") else { continue }
            let name = String(line[..<equals])
            let fields = line[line.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
            guard let active = fields.first else { continue }
            let keys = active.split(separator: "\t").map { KeyCombo(String($0)) }
            guard keys.contains(key) else { continue }
            let title = fields.count > 2 ? fields[2...].joined(separator: ",").trimmingSpaces : name
            return (title.isEmpty ? name : title, "\(group), \(name)")
        }
        return nil
    }
}
