import DesktopShortcuts

/// `timectl shortcut`: Time's keyboard shortcut, written where this desktop keeps it (GNOME,
/// KDE Plasma, Xfce) and read back from there; for sway, i3 and others, the line to add.
struct Shortcut: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "shortcut",
        abstract: "Set, show or remove a keyboard shortcut that toggles the timer (or shows this week).",
        discussion: """
            Written where your desktop keeps its shortcuts: GNOME's custom shortcuts (GSettings), KDE
            Plasma's global shortcuts (kglobalaccel), Xfce's keyboard shortcuts (xfconf). For sway, i3
            and other window managers it prints the line to add to their configuration. Keys are
            written as '<Super>t', 'Super+T', 'Ctrl+Alt+F9'. The desktop is taken from
            XDG_CURRENT_DESKTOP; --desktop gnome|kde|xfce|sway|i3 chooses it.
            """,
        subcommands: [ShortcutSet.self, ShortcutShow.self, ShortcutRemove.self])

    init(_ arguments: ParsedArguments) throws {}
    func run(_ context: Context) throws { try ShortcutShow(action: nil, desktop: nil).run(context) }
}

private let actionOption = Option.value("--action", valueName: "action", help: "toggle (default) or show-week.")
private let desktopOption = Option.value("--desktop", valueName: "desktop", help: "gnome, kde, xfce, sway or i3 (default: this session's).")

private func parseAction(_ arguments: ParsedArguments) throws -> ShortcutAction? {
    guard let text = arguments.value("--action") else { return nil }
    guard let action = ShortcutAction(rawValue: text.lowercased()) else {
        throw arguments.usageError("--action is 'toggle' or 'show-week', not '\(text)'")
    }
    return action
}

private func parseDesktop(_ arguments: ParsedArguments) throws -> Desktop? {
    guard let text = arguments.value("--desktop") else { return nil }
    guard let desktop = Desktop.named(text), desktop != .other else {
        throw arguments.usageError("--desktop is one of gnome, kde, xfce, sway, i3, not '\(text)'")
    }
    return desktop
}

struct ShortcutSet: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "set",
        abstract: "Bind KEY to toggle the timer (or --action show-week); replaces Time's earlier key.",
        arguments: [Positional(name: "key", help: "The key with its modifiers: '<Super>t', 'Super+T', 'Ctrl+Alt+F9'.")],
        options: [actionOption, desktopOption])

    var key: KeyCombo, action: ShortcutAction, desktop: Desktop?

    init(_ arguments: ParsedArguments) throws {
        let text = arguments.required("key")
        guard let key = KeyCombo(text) else {
            throw arguments.usageError("'\(text)' is not a key; write it as '<Super>t', 'Super+T' or 'Ctrl+Alt+F9' (letters, digits, F1-F35, space and named keys)")
        }
        guard !key.modifiers.isEmpty || key.key.hasPrefix("F") || key.key.hasPrefix("Audio") || key.key == "Pause" else {
            throw arguments.usageError("'\(text)' alone would be taken from every program; add a modifier such as Super or Ctrl")
        }
        self.key = key
        action = try parseAction(arguments) ?? .toggle
        desktop = try parseDesktop(arguments)
    }

    func run(_ context: Context) throws {
        let shortcuts = Shortcuts(desktop: desktop)
        guard shortcuts.writes else {
            output("\(shortcuts.desktop.label) keeps key bindings in its own configuration. Add this line to \(shortcuts.configFile()) and reload it:")
            output(Shortcuts.line(key, action))
            return
        }
        do {
            try shortcuts.set(key, for: action)
            guard let bound = try shortcuts.show(action), bound.key == key else {
                throw RefusedError(message: "\(shortcuts.desktop.label) did not keep the shortcut (read back: none); see 'timectl shortcut show'.")
            }
            output("\(bound.key.label): \(action.title.lowercased()) (in \(bound.place)).")
        } catch let error as ShortcutError {
            throw RefusedError(message: error.message)
        }
    }
}

struct ShortcutShow: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "show", abstract: "Show Time's keyboard shortcuts as the desktop has them.", options: [actionOption, desktopOption])

    var action: ShortcutAction?, desktop: Desktop?
    init(action: ShortcutAction?, desktop: Desktop?) { (self.action, self.desktop) = (action, desktop) }
    init(_ arguments: ParsedArguments) throws {
        action = try parseAction(arguments)
        desktop = try parseDesktop(arguments)
    }

    func run(_ context: Context) throws {
        let shortcuts = Shortcuts(desktop: desktop)
        guard shortcuts.writes else {
            output("\(shortcuts.desktop.label) keeps key bindings in its own configuration (\(shortcuts.configFile())); for example:")
            output(Shortcuts.line(KeyCombo(modifiers: [.superKey], key: "t"), action ?? .toggle))
            return
        }
        do {
            for action in action.map({ [$0] }) ?? ShortcutAction.allCases {
                if let bound = try shortcuts.show(action) {
                    output("\(action.rawValue): \(bound.key.label) (\(bound.place))")
                } else {
                    output("\(action.rawValue): none")
                }
            }
        } catch let error as ShortcutError {
            throw RefusedError(message: error.message)
        }
    }
}

struct ShortcutRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "remove", abstract: "Remove Time's keyboard shortcut (all of them without --action); others stay.",
        options: [actionOption, desktopOption])

    var action: ShortcutAction?, desktop: Desktop?
    init(_ arguments: ParsedArguments) throws {
        action = try parseAction(arguments)
        desktop = try parseDesktop(arguments)
    }

    func run(_ context: Context) throws {
        let shortcuts = Shortcuts(desktop: desktop)
        guard shortcuts.writes else {
            output("Remove the bindsym line of Time from \(shortcuts.configFile()).")
            return
        }
        do {
            var removed: [String] = []
            for action in action.map({ [$0] }) ?? ShortcutAction.allCases where try shortcuts.remove(action) {
                removed.append(action.rawValue)
            }
            output(removed.isEmpty ? "No shortcut of Time was set." : "Removed: \(removed.joined(separator: ", ")).")
        } catch let error as ShortcutError {
            throw RefusedError(message: error.message)
        }
    }
}
