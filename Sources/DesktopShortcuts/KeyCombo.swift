/// A key with its modifiers, as a person presses it, in each desktop's spelling: GTK's
/// accelerator syntax (`<Super>t`, what GNOME and Xfce store and the window's capture row gives),
/// KDE's (`Meta+T`) and sway/i3's (`Mod4+t`). Pure: parsed and written without a desktop.
public struct KeyCombo: Equatable, Sendable {
    public enum Modifier: String, CaseIterable, Sendable { case control, alt, shift, superKey }

    public var modifiers: Set<Modifier>
    /// The key's X keysym name: `t`, `F9`, `space`, `Pause`.
    public var key: String

    public init(modifiers: Set<Modifier>, key: String) { (self.modifiers, self.key) = (modifiers, key) }

    /// Reads `<Super>t`, `<Primary><Alt>F9`, `Super+T`, `Meta+Shift+F9`, `Mod4+t`, `ctrl+alt+space`.
    public init?(_ text: String) {
        var rest = Substring(text.filter { $0 != " " })
        var modifiers: Set<Modifier> = []
        while rest.hasPrefix("<"), let close = rest.firstIndex(of: ">") {
            guard let modifier = Self.modifier(rest[rest.index(after: rest.startIndex)..<close]) else { return nil }
            modifiers.insert(modifier)
            rest = rest[rest.index(after: close)...]
        }
        var parts = rest.split(separator: "+", omittingEmptySubsequences: false).map(String.init)
        // "Ctrl++" names the plus key.
        if rest.hasSuffix("++") { parts = Array(parts.dropLast(2)) + ["plus"] }
        guard let last = parts.popLast(), !last.isEmpty else { return nil }
        for part in parts {
            guard let modifier = Self.modifier(Substring(part)) else { return nil }
            modifiers.insert(modifier)
        }
        guard let key = Self.keysym(last) else { return nil }
        self.init(modifiers: modifiers, key: key)
    }

    private static func modifier(_ name: Substring) -> Modifier? {
        switch name.lowercased() {
        case "control", "ctrl", "primary", "ctl": return .control
        case "alt", "mod1": return .alt
        case "shift": return .shift
        case "super", "meta", "mod4", "logo", "win": return .superKey
        default: return nil
        }
    }

    /// A key's keysym name: one letter or digit in lower case, a function key `F1`–`F35`, or a
    /// named key. nil for anything else (a typo should not become a binding nobody can press).
    private static func keysym(_ name: String) -> String? {
        if name.count == 1, let c = name.unicodeScalars.first, c.isASCII,
           (c.properties.isAlphabetic || ("0"..."9").contains(Character(c))) {
            return name.lowercased()
        }
        let lower = name.lowercased()
        if lower.hasPrefix("f"), let n = Int(lower.dropFirst()), (1...35).contains(n) { return "F\(n)" }
        if let known = named.first(where: { $0.lowercased() == lower }) { return known }
        // KDE writes Qt's names (`Del`, `PgUp`, `Media Play`, `,`): read them back as the keysym.
        return qtNames.first { $0.value.filter { $0 != " " }.lowercased() == lower }?.key
    }

    private static let named = ["space", "Return", "Tab", "Escape", "BackSpace", "Delete", "Insert", "Home", "End",
                                "Page_Up", "Page_Down", "Left", "Right", "Up", "Down", "Pause", "Print", "Scroll_Lock",
                                "comma", "period", "slash", "semicolon", "minus", "equal", "plus", "grave",
                                "bracketleft", "bracketright", "backslash", "apostrophe",
                                "AudioPlay", "AudioStop", "AudioNext", "AudioPrev"]

    private var ordered: [Modifier] { Modifier.allCases.filter(modifiers.contains) }

    /// GNOME's and Xfce's form (GTK's accelerator syntax): `<Control><Super>t`.
    public var gtk: String {
        ordered.map { "<" + ["Control", "Alt", "Shift", "Super"][Modifier.allCases.firstIndex(of: $0)!] + ">" }.joined() + key
    }

    /// KDE's form (Qt's key sequence): `Meta+Ctrl+T`.
    public var kde: String {
        let names: [Modifier: String] = [.superKey: "Meta", .control: "Ctrl", .alt: "Alt", .shift: "Shift"]
        let order: [Modifier] = [.superKey, .control, .alt, .shift]
        let key = self.key.count == 1 ? self.key.uppercased() : (Self.qtNames[self.key] ?? self.key)
        return (order.filter(modifiers.contains).compactMap { names[$0] } + [key]).joined(separator: "+")
    }

    private static let qtNames = ["space": "Space", "Return": "Return", "BackSpace": "Backspace", "Page_Up": "PgUp",
                                  "Page_Down": "PgDown", "Escape": "Esc", "Delete": "Del", "Insert": "Ins",
                                  "comma": ",", "period": ".", "slash": "/", "semicolon": ";", "minus": "-",
                                  "equal": "=", "plus": "+", "grave": "`", "bracketleft": "[", "bracketright": "]",
                                  "backslash": "\\", "apostrophe": "'", "Print": "Print", "Scroll_Lock": "ScrollLock",
                                  "AudioPlay": "Media Play", "AudioStop": "Media Stop", "AudioNext": "Media Next",
                                  "AudioPrev": "Media Previous"]

    /// sway's and i3's form: `Mod4+Ctrl+t`.
    public var sway: String {
        let names: [Modifier: String] = [.superKey: "Mod4", .control: "Ctrl", .alt: "Mod1", .shift: "Shift"]
        let order: [Modifier] = [.superKey, .control, .alt, .shift]
        return (order.filter(modifiers.contains).compactMap { names[$0] } + [key]).joined(separator: "+")
    }

    /// What a person reads: `Super+T`, `Ctrl+Alt+F9`.
    public var label: String {
        let names: [Modifier: String] = [.superKey: "Super", .control: "Ctrl", .alt: "Alt", .shift: "Shift"]
        let order: [Modifier] = [.superKey, .control, .alt, .shift]
        return (order.filter(modifiers.contains).compactMap { names[$0] } + [key.count == 1 ? key.uppercased() : key])
            .joined(separator: "+")
    }
}
