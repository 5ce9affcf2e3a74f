/// Whether a key is already taken in GNOME: another custom keybinding's `binding`, or one of the
/// built-in media-keys and window-manager keybindings. Only read, never written.
enum GnomeConflicts {
    /// The schemas whose keys are built-in keybindings (each value a key or a list of keys).
    static let builtIn = ["org.gnome.settings-daemon.plugins.media-keys", "org.gnome.desktop.wm.keybindings",
                          "org.gnome.shell.keybindings", "org.gnome.mutter.keybindings"]

    /// What holds `key` (`"name" (path)` or `the built-in key-name (schema)`), nil when it is free.
    static func owner(of key: KeyCombo, except ours: String, paths: [String]) throws -> String? {
        for other in paths where other != ours {
            let place = GnomeShortcuts.relocatable + ":" + other
            let binding = GnomeShortcuts.unquoted(try GnomeShortcuts.gsettings(["get", place, "binding"]))
            guard KeyCombo(binding) == key else { continue }
            let name = GnomeShortcuts.unquoted((try? GnomeShortcuts.gsettings(["get", place, "name"])) ?? "")
            return "\"\(name.isEmpty ? other : name)\" (\(other))"
        }
        for schema in builtIn {
            // A schema this GNOME does not have holds no key.
            let result = Run.tool(["gsettings", "list-recursively", schema])
            guard result.status == 0, let found = builtInOwner(of: key, listing: result.output) else { continue }
            return found
        }
        return nil
    }

    /// From `gsettings list-recursively` lines (`schema key value`), the built-in key bound to `key`.
    static func builtInOwner(of key: KeyCombo, listing: String) -> String? {
        for line in listing.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count == 3, parts[1] != "custom-keybindings" else { continue }
            if GnomeShortcuts.parseStrings(String(parts[2])).contains(where: { KeyCombo($0) == key }) {
                return "the built-in \(parts[1]) (\(parts[0]))"
            }
        }
        return nil
    }
}
