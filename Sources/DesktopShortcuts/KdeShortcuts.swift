import Glibc

/// KDE Plasma: kglobalaccel, the way it runs a command for a key: a desktop file in
/// `$XDG_DATA_HOME/kglobalaccel/` (its `X-KDE-Shortcuts` and `Exec`; not `NoDisplay`, which it
/// skips), the key kept in `kglobalshortcutsrc` under that file's name
/// (`_launch=Meta+T,none,Toggle the timer`, written with KDE's kwriteconfig5 and read back with
/// kreadconfig5). kglobalaccel 5 reads both when it starts (at login): a key registered over its
/// D-Bus interface instead would belong to no program and stay inactive.
enum KdeShortcuts {
    static func component(_ action: ShortcutAction) -> String { action.id + ".desktop" }

    static func desktopFile(_ action: ShortcutAction, environment: [String: String]) -> String {
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? ((environment["HOME"] ?? "") + "/.local/share")
        return data + "/kglobalaccel/" + component(action)
    }

    static func set(_ key: KeyCombo, for action: ShortcutAction, environment: [String: String]) throws {
        // kglobalshortcutsrc's `_launch` value is comma-separated (key,default,title): a comma key
        // would be cut off there and never read back.
        if key.key == "comma" {
            throw ShortcutError("KDE Plasma cannot keep \(key.label): its shortcut file separates fields with commas; choose another key, such as \(KeyCombo(modifiers: key.modifiers, key: "period").label).")
        }
        if let (owner, where_) = KdeConflicts.owner(of: key, except: component(action), in: KdeConflicts.read(environment: environment)) {
            throw ShortcutError("\(key.label) already runs \"\(owner)\" in KDE Plasma's shortcuts (\(where_)); choose another key, or free it in System Settings → Shortcuts.")
        }
        let file = desktopFile(action, environment: environment)
        let text = """
            [Desktop Entry]
            Type=Application
            Name=\(action.title)
            Comment=Time tracker: \(action.title.lowercased())
            Exec=\(action.command)
            Icon=io.github.timetracker.Time
            X-KDE-Shortcuts=\(key.kde)

            """
        try write(text, to: file)
        try kwrite(action, "_k_friendly_name", action.title)
        try kwrite(action, "_launch", "\(key.kde),none,\(action.title)")
    }

    static func show(_ action: ShortcutAction) throws -> BoundShortcut? {
        let result = Run.tool(["kreadconfig5", "--file", "kglobalshortcutsrc", "--group", component(action), "--key", "_launch"])
        if result.status == 127 { throw ShortcutError("KDE's kreadconfig5 is not installed (package kde-cli-tools or libkf5config-bin).") }
        let first = result.output.split(separator: ",").first.map { $0.trimmingSpaces } ?? ""
        guard result.status == 0, first != "none", let key = KeyCombo(first) else { return nil }
        return BoundShortcut(action: action, key: key,
                             place: "KDE's global shortcuts (kglobalshortcutsrc, \(component(action)); from the next login on" +
                                (kglobalaccelRuns() ? ", or once kglobalaccel5 restarts)" : ")"))
    }

    static func remove(_ action: ShortcutAction, environment: [String: String]) throws -> Bool {
        let had = try show(action) != nil
        _ = Run.tool(["kwriteconfig5", "--file", "kglobalshortcutsrc", "--group", component(action), "--key", "_launch", "--delete"])
        _ = Run.tool(["kwriteconfig5", "--file", "kglobalshortcutsrc", "--group", component(action), "--key", "_k_friendly_name", "--delete"])
        unlink(desktopFile(action, environment: environment))
        return had
    }

    static func kglobalaccelRuns() -> Bool {
        Run.tool(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path", "/org/freedesktop/DBus",
                  "--method", "org.freedesktop.DBus.NameHasOwner", "org.kde.kglobalaccel"]).output.contains("true")
    }

    private static func kwrite(_ action: ShortcutAction, _ key: String, _ value: String) throws {
        let result = Run.tool(["kwriteconfig5", "--file", "kglobalshortcutsrc", "--group", component(action), "--key", key, value])
        if result.status == 127 { throw ShortcutError("KDE's kwriteconfig5 is not installed (package kde-cli-tools or libkf5config-bin).") }
        guard result.status == 0 else { throw ShortcutError("kwriteconfig5 failed: \(result.output.trimmedLines)") }
    }

    private static func write(_ text: String, to path: String) throws {
        let folder = String(path[..<path.lastIndex(of: "/")!])
        var built = ""
        for part in folder.split(separator: "/") {
            built += "/" + part
            if mkdir(built, 0o755) != 0 && errno != EEXIST { throw ShortcutError("Could not make \(built): \(String(cString: strerror(errno)))") }
        }
        guard let file = fopen(path + ".tmp", "w") else { throw ShortcutError("Could not write \(path): \(String(cString: strerror(errno)))") }
        fputs(text, file)
        fclose(file)
        guard rename(path + ".tmp", path) == 0 else { throw ShortcutError("Could not write \(path): \(String(cString: strerror(errno)))") }
    }
}
