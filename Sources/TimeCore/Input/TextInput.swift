/// Normalization and limits for the text people type: notes, project and category names, colors.
public enum TextInput {
    public static let maximumNoteBytes = 64 * 1024
    public static let maximumNameCharacters = 200

    /// A note as stored: line breaks unified to LF, control characters removed, tabs become spaces,
    /// surrounding white space trimmed; an empty result means "no note".
    public static func normalizedNote(_ raw: String) throws -> String {
        var scalars = String.UnicodeScalarView()
        var previousWasCR = false
        for scalar in raw.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar.value {
            case 0x0D: scalars.append("\n")
            case 0x0A: if !previousWasCR { scalars.append("\n") }
            case 0x09: scalars.append(" ")
            case 0x00...0x1F, 0x7F...0x9F: continue
            default: scalars.append(scalar)
            }
        }
        let note = String(scalars).trimmingWhitespace()
        guard note.utf8.count <= maximumNoteBytes else {
            throw TrackerError.invalidArgument(
                "The note is \(note.utf8.count) bytes long; notes are limited to \(maximumNoteBytes / 1024) KiB.")
        }
        return note
    }

    /// A project or category name: trimmed, single line, not empty, at most 200 characters.
    public static func normalizedName(_ raw: String, kind: String) throws -> String {
        let name = raw.trimmingWhitespace()
        guard !name.isEmpty else { throw TrackerError.invalidArgument("The \(kind) name is empty; give it a name.") }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw TrackerError.invalidArgument("A \(kind) name cannot contain line breaks or control characters.")
        }
        guard name.count <= maximumNameCharacters else {
            throw TrackerError.invalidArgument(
                "The \(kind) name is \(name.count) characters long; the limit is \(maximumNameCharacters).")
        }
        return name
    }

    /// The form under which names are compared: trimmed and lower-cased, Unicode-aware ("Écriture" = "écriture").
    public static func nameKey(_ name: String) -> String {
        name.trimmingWhitespace().lowercased()
    }

    public static let palette = [
        "#3366cc", "#dc3912", "#ff9900", "#109618", "#990099", "#0099c6",
        "#dd4477", "#66aa00", "#b82e2e", "#316395", "#994499", "#22aa99",
    ]

    /// `#rrggbb` in lower case, or nil when `raw` is not such a color (`#rgb` is widened).
    public static func normalizedColor(_ raw: String) -> String? {
        let text = raw.trimmingWhitespace().lowercased()
        guard text.hasPrefix("#") else { return nil }
        let digits = text.dropFirst()
        guard digits.allSatisfy({ $0.isHexDigit && $0.isASCII }) else { return nil }
        switch digits.count {
        case 6: return text
        case 3: return "#" + digits.map { "\($0)\($0)" }.joined()
        default: return nil
        }
    }

    public static func color(_ raw: String) throws -> String {
        guard let color = normalizedColor(raw) else {
            throw TrackerError.invalidArgument("\"\(raw.prefix(40))\" is not a color; use the form #rrggbb, e.g. #3366cc.")
        }
        return color
    }
}
