/// GNOME: a custom keybinding of gnome-settings-daemon, through GSettings (its `gsettings` tool):
/// a path of our own in `org.gnome.settings-daemon.plugins.media-keys` `custom-keybindings`, with
/// the relocatable `…custom-keybinding` schema's `name`, `command` and `binding` under it. The
/// other paths in the list (the person's own shortcuts) are kept as they are.
enum GnomeShortcuts {
    static let schema = "org.gnome.settings-daemon.plugins.media-keys"
    static let relocatable = "org.gnome.settings-daemon.plugins.media-keys.custom-keybinding"

    static func path(_ action: ShortcutAction) -> String {
        "/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings/\(action.id)/"
    }

    static func set(_ key: KeyCombo, for action: ShortcutAction) throws {
        var paths = try list()
        if let owner = try GnomeConflicts.owner(of: key, except: path(action), paths: paths) {
            throw ShortcutError("\(key.label) already runs \(owner) in GNOME's keyboard shortcuts; choose another key, or free it in Settings → Keyboard → Keyboard Shortcuts.")
        }
        let place = relocatable + ":" + path(action)
        for (name, value) in [("name", action.title), ("command", action.command), ("binding", key.gtk)] {
            try gsettings(["set", place, name, quoted(value)])
        }
        if !paths.contains(path(action)) {
            paths.append(path(action))
            try gsettings(["set", schema, "custom-keybindings", "[" + paths.map(quoted).joined(separator: ", ") + "]"])
        }
    }

    static func show(_ action: ShortcutAction) throws -> BoundShortcut? {
        guard try list().contains(path(action)) else { return nil }
        let place = relocatable + ":" + path(action)
        let binding = try unquoted(gsettings(["get", place, "binding"]))
        guard let key = KeyCombo(binding) else { return nil }
        return BoundShortcut(action: action, key: key, place: "GNOME's custom shortcuts (\(path(action)))")
    }

    static func remove(_ action: ShortcutAction) throws -> Bool {
        let paths = try list()
        guard paths.contains(path(action)) else { return false }
        let place = relocatable + ":" + path(action)
        for name in ["name", "command", "binding"] { try gsettings(["reset", place, name]) }
        let kept = paths.filter { $0 != path(action) }
        try gsettings(["set", schema, "custom-keybindings", kept.isEmpty ? "@as []" : "[" + kept.map(quoted).joined(separator: ", ") + "]"])
        return true
    }

    /// The paths in `custom-keybindings` (GVariant text: `@as []` or `['/a/', '/b/']`).
    static func list() throws -> [String] {
        let text = try gsettings(["get", schema, "custom-keybindings"])
        return parseStrings(text)
    }

    static func parseStrings(_ text: String) -> [String] {
        var result: [String] = []
        var current: String?
        var escaped = false
        for c in text {
            if var value = current {
                if escaped { value.append(c); escaped = false; current = value; continue }
                if c == "\\" { escaped = true; continue }
                if c == "'" { result.append(value); current = nil; continue }
                value.append(c)
                current = value
            } else if c == "'" {
                current = ""
            }
        }
        return result
    }

    static func quoted(_ value: String) -> String {
        "'" + value.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
    }

    static func unquoted(_ text: String) -> String { parseStrings(text).first ?? "" }

    @discardableResult
    static func gsettings(_ arguments: [String]) throws -> String {
        let result = Run.tool(["gsettings"] + arguments)
        guard result.status == 0 else {
            if result.status == 127 { throw ShortcutError("GNOME's gsettings tool is not installed (package libglib2.0-bin).") }
            throw ShortcutError("gsettings \(arguments.prefix(2).joined(separator: " ")) failed: \(result.output.trimmedLines)"
                                + (result.output.contains("No such schema") ? " (GNOME's settings daemon, gnome-settings-daemon, provides it)" : ""))
        }
        return result.output
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    var trimmedLines: String {
        split(separator: "\n").map { $0.trimmingSpaces }.filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        var slice = Substring(self[...])
        while let c = slice.first, c == " " || c == "\t" || c == "\r" { slice.removeFirst() }
        while let c = slice.last, c == " " || c == "\t" || c == "\r" || c == "\n" { slice.removeLast() }
        return String(slice)
    }
}
