import Glibc

/// What a shortcut does: one call to the agent. The command is `busctl`'s (systemd's, in C: it
/// starts in about a third of timectl's time and needs nothing of ours on PATH).
public enum ShortcutAction: String, CaseIterable, Sendable {
    case toggle
    case showWeek = "show-week"

    /// The name a desktop shows in its shortcut settings.
    public var title: String { self == .toggle ? "Toggle the timer" : "Show this week" }

    public var command: String {
        let call = "busctl --user call io.github.timetracker.Time1 /io/github/timetracker/Time1 io.github.timetracker.Time1"
        return self == .toggle ? call + " Toggle" : call + " ShowWeeklyReport s \"\""
    }

    /// Our own name for the binding where a desktop keeps one (GNOME's path, KDE's component).
    var id: String { "time-tracker-" + rawValue }
}

/// The desktops whose shortcuts we write, and the ones we can only tell what to add.
public enum Desktop: String, CaseIterable, Sendable {
    case gnome, kde, xfce, sway, i3, other

    /// The desktop of this session, from `XDG_CURRENT_DESKTOP` (`ubuntu:GNOME`, `KDE`, `XFCE`,
    /// `sway`), else sway's or i3's socket.
    public static func detect(_ environment: [String: String]) -> Desktop {
        let names = (environment["XDG_CURRENT_DESKTOP"] ?? "").lowercased().split(separator: ":").map(String.init)
        for name in names {
            if name == "gnome" || name == "gnome-classic" || name == "gnome-flashback" { return .gnome }
            if name == "kde" { return .kde }
            if name == "xfce" { return .xfce }
            if name == "sway" { return .sway }
            if name == "i3" { return .i3 }
        }
        if environment["SWAYSOCK"] != nil { return .sway }
        if environment["I3SOCK"] != nil { return .i3 }
        return .other
    }

    public static func named(_ name: String) -> Desktop? { Desktop(rawValue: name.lowercased()) }

    public var label: String {
        switch self {
        case .gnome: return "GNOME"
        case .kde: return "KDE Plasma"
        case .xfce: return "Xfce"
        case .sway: return "sway"
        case .i3: return "i3"
        case .other: return "this desktop"
        }
    }
}

/// A shortcut as a desktop has it: the key, and where it is kept.
public struct BoundShortcut: Equatable, Sendable {
    public var action: ShortcutAction
    public var key: KeyCombo
    public var place: String
}

/// Why a shortcut could not be written or read, in words a person can act on.
public struct ShortcutError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The environment as a dictionary (no Foundation here).
public func currentEnvironment() -> [String: String] {
    var result: [String: String] = [:]
    var pointer = environ
    while let entry = pointer.pointee {
        let text = String(cString: entry)
        if let equals = text.firstIndex(of: "=") { result[String(text[..<equals])] = String(text[text.index(after: equals)...]) }
        pointer += 1
    }
    return result
}
