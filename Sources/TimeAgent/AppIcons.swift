import Glibc

/// Time's own icons (the project's data/icons, installed in the hicolor theme) and where this
/// installation keeps them.
enum AppIcons {
    /// The application (desktop entry, notifications, the window).
    static let application = "io.github.timetracker.Time"
    /// The tray's icon in each state.
    static let running = "io.github.timetracker.Time-running-symbolic"
    static let paused = "io.github.timetracker.Time-paused-symbolic"
    static let idle = "io.github.timetracker.Time-idle-symbolic"

    /// The folder hosts must be told about (SNI's `IconThemePath`) when the installation that
    /// `executable` (PREFIX/bin/time-agent) belongs to keeps our icons outside the system's data
    /// folders (`XDG_DATA_DIRS`, by default /usr/local/share and /usr/share), e.g. under ~/.local:
    /// PREFIX/share/icons/hicolor/symbolic/apps, the folder that holds the tray's icons
    /// themselves. Every host finds an icon lying in a folder of its search path (GTK's and KDE's
    /// "unthemed" icons), while a theme folder (PREFIX/share/icons) is lost on waybar, which
    /// searches that path alone and so never sees hicolor's index. "" when the system's folders
    /// hold them (every host looks there) or no icons lie beside the agent (a build tree).
    static func themePath(executable: String, dataDirectories: String?) -> String {
        let bin = parent(of: executable)
        guard !bin.isEmpty else { return "" }
        let share = parent(of: bin) + "/share"
        let folder = share + "/icons/hicolor/symbolic/apps"
        guard access(folder + "/\(running).svg", R_OK) == 0 else { return "" }
        let listed = (dataDirectories.flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share")
            .split(separator: ":").map { trimmedSlashes(String($0)) }
        return listed.contains(trimmedSlashes(share)) ? "" : folder
    }

    /// `themePath` for this process (/proc/self/exe, `XDG_DATA_DIRS`).
    static func themePathOfThisAgent() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard length > 0 else { return "" }
        let executable = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return themePath(executable: executable, dataDirectories: getenv("XDG_DATA_DIRS").map { String(cString: $0) })
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    private static func trimmedSlashes(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }
}
