/// Text written into a language that reads some characters as its own: Pango markup (tooltips,
/// notification bodies, libadwaita row titles), XML (introspection) and SVG (the weekly chart).
/// One function per place text can stand, so every module escapes the same way; JSON's string
/// writer shares the loop (`substituting`). No dependencies: modules that must not know each
/// other (DBusKit, TimeCore, Tray, Notifier, timectl, the window) all use it.
public enum TextEscape {
    /// Text between tags in Pango markup, XML or SVG. `&`, `<`, `>`, `"` and `'` become entities
    /// (all five, so the result is also safe inside a quoted attribute, where Pango and librsvg
    /// read it too); line feeds and tabs are kept (a notification body or tooltip has lines), a
    /// carriage return is written `&#13;` (a parser reads a bare one as a line feed).
    /// Characters XML 1.0 does not allow at all (C0 controls but tab, line feed and carriage
    /// return; U+FFFE, U+FFFF) become U+FFFD: GMarkup and libxml2 would refuse the whole
    /// document over one of them, even written as a character reference.
    public static func markup(_ text: String) -> String { escaped(text, inAttribute: false) }

    /// A quoted XML or SVG attribute value: as `markup`, and line breaks and tabs as character
    /// references, which a parser's attribute-value normalisation would otherwise turn into spaces.
    public static func attribute(_ text: String) -> String { escaped(text, inAttribute: true) }

    private static func escaped(_ text: String, inAttribute: Bool) -> String {
        guard needsWork(text) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 16)
        substituting(text, into: &out) { scalar in
            switch scalar {
            case "\n": inAttribute ? "&#10;" : nil
            case "\t": inAttribute ? "&#9;" : nil
            case "\r": "&#13;"
            default: entity(scalar)
            }
        }
        return out
    }

    /// Appends `text` to `output`, each Unicode scalar replaced by what `replacement` returns for
    /// it, or kept when it returns nil. Scalars, not Characters: a `&` followed by a combining
    /// mark is one Character but still a `&` to a markup parser.
    @inlinable
    public static func substituting(_ text: String, into output: inout String,
                                    _ replacement: (Unicode.Scalar) -> String?) {
        for scalar in text.unicodeScalars {
            if let replaced = replacement(scalar) {
                output += replaced
            } else {
                output.unicodeScalars.append(scalar)
            }
        }
    }

    /// Whether a character may stand in an XML 1.0 document at all (its `Char` production).
    /// A Swift String holds no surrogate code points, so only the controls and U+FFFE/U+FFFF remain.
    public static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: true
        case 0..<0x20, 0xFFFE, 0xFFFF: false
        default: true
        }
    }

    /// The entity of one of the five characters markup reserves, U+FFFD for one XML forbids,
    /// nil for the rest.
    static func entity(_ scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "&": "&amp;"
        case "<": "&lt;"
        case ">": "&gt;"
        case "\"": "&quot;"
        case "'": "&apos;"
        default: isXMLCharacter(scalar) ? nil : "\u{FFFD}"
        }
    }

    /// Most names need nothing: no reserved character, no control, no U+FFFE/U+FFFF (whose
    /// UTF-8 begins with 0xEF). Those are returned as they are, without copying.
    static func needsWork(_ text: String) -> Bool {
        text.utf8.contains { byte in
            switch byte {
            case 0..<0x20, UInt8(ascii: "&"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\""), UInt8(ascii: "'"), 0xEF: true
            default: false
            }
        }
    }
}
