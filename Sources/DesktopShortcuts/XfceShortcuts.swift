/// Xfce: the `xfce4-keyboard-shortcuts` channel of xfconf, property `/commands/custom/<Super>t`
/// holding the command (xfsettingsd grabs the key), through Xfce's `xfconf-query`. Ours is the
/// property whose value is our command; a key already bound to something else is left alone.
enum XfceShortcuts {
    static let channel = "xfce4-keyboard-shortcuts"

    static func set(_ key: KeyCombo, for action: ShortcutAction) throws {
        try makeCustom()
        var property = "/commands/custom/" + key.gtk
        let bound = try all()
        // The same key may be spelled otherwise there (`<Primary>` for `<Control>`): that property it is.
        if let same = bound.keys.first(where: { KeyCombo(String($0.dropFirst("/commands/custom/".count))) == key }) { property = same }
        if let other = bound[property], other != action.command {
            throw ShortcutError("\(key.label) already runs \"\(other)\" in Xfce's keyboard shortcuts; choose another key, or free it in Settings → Keyboard → Application Shortcuts.")
        }
        for (old, command) in bound where command == action.command && old != property {
            try query(["-p", old, "-r"])
        }
        try query(["-p", property, "-n", "-t", "string", "-s", action.command])
    }

    static func show(_ action: ShortcutAction) throws -> BoundShortcut? {
        guard let property = try all().first(where: { $0.value == action.command })?.key,
              let key = KeyCombo(String(property.dropFirst("/commands/custom/".count))) else { return nil }
        return BoundShortcut(action: action, key: key, place: "Xfce's keyboard shortcuts (\(channel) \(property))")
    }

    static func remove(_ action: ShortcutAction) throws -> Bool {
        let ours = try all().filter { $0.value == action.command }
        for property in ours.keys { try query(["-p", property, "-r"]) }
        return !ours.isEmpty
    }

    /// Every custom command: property → command (`xfconf-query -l -v` prints `property  value`).
    static func all() throws -> [String: String] {
        let result = Run.tool(["xfconf-query", "-c", channel, "-p", "/commands/custom", "-l", "-v"])
        if result.status == 127 { throw ShortcutError("Xfce's xfconf-query is not installed (package xfconf).") }
        // An empty channel is an error for xfconf-query; it has no shortcuts yet.
        guard result.status == 0 else { return [:] }
        var bound: [String: String] = [:]
        for line in result.output.split(separator: "\n") {
            guard line.hasPrefix("/commands/custom/"), let space = line.firstIndex(of: " ") else { continue }
            let property = String(line[..<space])
            if property == "/commands/custom/override" || property.hasSuffix("/startup-notify") { continue }
            bound[property] = line[space...].trimmingSpaces
        }
        return bound
    }

    /// Xfce reads `/commands/custom` only once `/commands/custom/override` is true, and then only
    /// it: as its own settings dialog does at a first change, the defaults are copied there first,
    /// so that every shortcut the person had keeps working.
    static func makeCustom() throws {
        let override = Run.tool(["xfconf-query", "-c", channel, "-p", "/commands/custom/override"])
        if override.status == 127 { throw ShortcutError("Xfce's xfconf-query is not installed (package xfconf).") }
        guard override.output.trimmingSpaces != "true" else { return }
        let defaults = Run.tool(["xfconf-query", "-c", channel, "-p", "/commands/default", "-l", "-v"])
        if defaults.status == 0 {
            for line in defaults.output.split(separator: "\n") {
                guard line.hasPrefix("/commands/default/"), let space = line.firstIndex(of: " ") else { continue }
                let property = "/commands/custom/" + line[..<space].dropFirst("/commands/default/".count)
                let value = line[space...].trimmingSpaces
                let type = property.hasSuffix("/startup-notify") && (value == "true" || value == "false") ? "bool" : "string"
                try query(["-p", property, "-n", "-t", type, "-s", value])
            }
        }
        try query(["-p", "/commands/custom/override", "-n", "-t", "bool", "-s", "true"])
    }

    private static func query(_ arguments: [String]) throws {
        let result = Run.tool(["xfconf-query", "-c", channel] + arguments)
        guard result.status == 0 else {
            throw ShortcutError("xfconf-query \(arguments.joined(separator: " ")) failed: \(result.output.trimmedLines)")
        }
    }
}
