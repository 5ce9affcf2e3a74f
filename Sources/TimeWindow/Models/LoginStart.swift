import CGtk
import Glibc

/// Whether the agent starts at login for this user: the XDG autostart entry `time-agent.desktop`
/// as the desktop reads it (the user's `~/.config/autostart` copy overrides the system's
/// `/etc/xdg/autostart` one by name; `Hidden=true` or `X-GNOME-Autostart-enabled=false` turns it
/// off). The window writes only the user's override, as the README tells a person to by hand,
/// and reads back what is in force, also when the file was changed by hand.
public struct LoginStart: Equatable {
    public static let fileName = "time-agent.desktop"

    /// The user's entry (`$XDG_CONFIG_HOME/autostart/time-agent.desktop`) and its text, if any.
    public var userPath: String
    public var userText: String?
    /// The first system entry found in `$XDG_CONFIG_DIRS` (default `/etc/xdg`), and its text.
    public var systemPath: String?
    public var systemText: String?

    public init(userPath: String, userText: String?, systemPath: String?, systemText: String?) {
        (self.userPath, self.userText, self.systemPath, self.systemText) = (userPath, userText, systemPath, systemText)
    }

    /// Reads the entries where this session's desktop looks for them.
    public static func read() -> LoginStart {
        let user = String(cString: g_get_user_config_dir()) + "/autostart/" + fileName
        var systemPath: String?
        var systemText: String?
        if var dirs = g_get_system_config_dirs() {
            while let dir = dirs.pointee {
                let path = String(cString: dir) + "/autostart/" + fileName
                if let text = readFile(path) { (systemPath, systemText) = (path, text); break }
                dirs += 1
            }
        }
        return LoginStart(userPath: user, userText: readFile(user), systemPath: systemPath, systemText: systemText)
    }

    /// The entry in force: the user's when there is one, else the system's.
    public var inForce: (path: String, text: String)? {
        if let userText { return (userPath, userText) }
        if let systemPath, let systemText { return (systemPath, systemText) }
        return nil
    }

    public var isOn: Bool { inForce.map { Self.enabled($0.text) } ?? false }

    /// What the row says under its title.
    public var summary: String {
        guard let entry = inForce else {
            return "Off: no autostart entry is installed (the agent still starts when the window or timectl first calls it)."
        }
        return (Self.enabled(entry.text) ? "On: " : "Off: ") + entry.path
            + (entry.path == userPath && systemPath != nil ? " (overrides \(systemPath!))" : "")
    }

    /// What to do to turn the login start on or off: the user's entry to write (its text), or to
    /// remove (nil); `.none` when it is already so.
    public enum Change: Equatable { case write(String), remove, none }

    public func change(on: Bool) -> Change {
        if on == isOn { return .none }
        if on {
            // The system's entry starts it: the user's override goes. Otherwise a whole entry of our own.
            if let systemText, Self.enabled(systemText) { return .remove }
            return .write(Self.entry(hidden: false, from: systemText))
        }
        return .write(Self.entry(hidden: true, from: userText ?? systemText))
    }

    /// An entry that starts the agent (or hides it), keeping the keys of `base` but the switches.
    static func entry(hidden: Bool, from base: String?) -> String {
        var lines: [String] = []
        var inMain = false
        for line in (base ?? "").split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let trimmed = line.trimmed(of: " \t")
            if trimmed.hasPrefix("[") { inMain = trimmed == "[Desktop Entry]" }
            if inMain, ["Hidden", "X-GNOME-Autostart-enabled"].contains(Self.key(trimmed)) { continue }
            lines.append(line)
        }
        while let last = lines.last, last.trimmed(of: " \t").isEmpty { lines.removeLast() }
        if !lines.contains(where: { $0.trimmed(of: " \t") == "[Desktop Entry]" }) {
            lines = ["[Desktop Entry]", "Type=Application", "Name=Time agent", "Comment=Starts the Time tracker agent with the session",
                     "Exec=time-agent --activate", "TryExec=time-agent", "Icon=io.github.timetracker.Time", "Terminal=false"]
        }
        // The switches go right under the group's header, so they stay in [Desktop Entry].
        let header = lines.firstIndex { $0.trimmed(of: " \t") == "[Desktop Entry]" }!
        lines.insert(contentsOf: ["Hidden=\(hidden)", "X-GNOME-Autostart-enabled=\(!hidden)"], at: header + 1)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Whether an entry starts the program: not `Hidden=true`, not `X-GNOME-Autostart-enabled=false`.
    public static func enabled(_ text: String) -> Bool {
        var inMain = false
        for raw in text.split(separator: "\n") {
            let line = raw.trimmed(of: " \t")
            if line.hasPrefix("[") { inMain = line == "[Desktop Entry]"; continue }
            guard inMain, let key = key(line) else { continue }
            let value = line[line.index(after: line.firstIndex(of: "=")!)...].trimmed(of: " \t")
            if key == "Hidden", value == "true" { return false }
            if key == "X-GNOME-Autostart-enabled", value == "false" { return false }
        }
        return true
    }

    private static func key(_ line: String) -> String? {
        guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { return nil }
        return line[..<equals].trimmed(of: " \t")
    }

    /// Makes the change; nil, or what went wrong in words a person can act on.
    public func apply(on: Bool) -> String? {
        switch change(on: on) {
        case .none: return nil
        case .remove:
            return unlink(userPath) == 0 || errno == ENOENT ? nil : "Could not remove \(userPath): \(String(cString: strerror(errno)))"
        case .write(let text):
            let folder = String(userPath[..<userPath.lastIndex(of: "/")!])
            if g_mkdir_with_parents(folder, 0o755) != 0 {
                return "Could not make the folder \(folder): \(String(cString: strerror(errno)))"
            }
            var error: UnsafeMutablePointer<GError>?
            if g_file_set_contents(userPath, text, gssize(text.utf8.count), &error) == 0 {
                let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
                if let error { g_error_free(error) }
                return "Could not write \(userPath): \(reason)"
            }
            return nil
        }
    }

    static func readFile(_ path: String) -> String? {
        var contents: UnsafeMutablePointer<CChar>?
        var length: gsize = 0
        guard g_file_get_contents(path, &contents, &length, nil) != 0, let contents else { return nil }
        defer { g_free(contents) }
        return String(cString: contents)
    }
}

extension StringProtocol {
    /// The text without leading and trailing characters of `set` (no Foundation here).
    func trimmed(of set: String) -> String {
        let drop = Set(set)
        var slice = Substring(self[...])
        while let first = slice.first, drop.contains(first) { slice.removeFirst() }
        while let last = slice.last, drop.contains(last) { slice.removeLast() }
        return String(slice)
    }
}
