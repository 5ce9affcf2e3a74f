/// Reads a duration the way a person types it: `1:30`, `1:30:15`, `90m`, `2h`, `45s`, `1h30m`,
/// `1h 30m`, `1h30m15s`, `1.5h`, or a bare number of minutes (`45`).
///
/// Units are `h`, `m` and `s` only; an upper-case `M` is refused because it reads as "months".
public enum DurationParser {
    public static let maximumSeconds: Int64 = 7 * 24 * 3600

    public static let acceptedForms =
        "accepted forms: 1:30, 1:30:15, 90m, 2h, 45s, 1h30m, 1h 30m, 1h30m15s, 1.5h, or a bare number of minutes such as 45"

    public static func seconds(from input: String) throws -> Int64 {
        let text = input.trimmingWhitespace()
        guard !text.isEmpty else { throw invalid("The duration is empty") }
        if text.hasPrefix("-") { throw invalid("The duration \"\(shown(text))\" is negative; durations must be positive") }

        let seconds: Int64
        if text.contains(":") {
            seconds = try clockForm(text)
        } else if let minutes = try decimal(text, scale: 60, whole: text) {
            seconds = minutes
        } else {
            seconds = try unitForm(text)
        }
        guard seconds > 0 else { throw invalid("The duration \"\(shown(text))\" is zero; enter a positive duration") }
        guard seconds <= maximumSeconds else {
            throw invalid("The duration \"\(shown(text))\" is longer than 7 days; split it into several sessions")
        }
        return seconds
    }

    private static func invalid(_ reason: String) -> TrackerError {
        .invalidArgument("\(reason) (\(acceptedForms)).")
    }

    /// Long or odd input is shortened before it is echoed back in a message.
    private static func shown(_ text: String) -> String {
        let cleaned = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }.map(Character.init))
        return cleaned.count > 40 ? String(cleaned.prefix(40)) + "…" : cleaned
    }

    /// `H:MM` or `H:MM:SS`; minutes and seconds below 60.
    private static func clockForm(_ text: String) throws -> Int64 {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2 || parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }),
              parts[0].count <= 4, parts.dropFirst().allSatisfy({ $0.count == 2 })
        else { throw invalid("\"\(shown(text))\" is not a duration") }
        let numbers = parts.map { Int64($0)! }
        guard numbers.dropFirst().allSatisfy({ $0 < 60 }) else {
            throw invalid("In \"\(shown(text))\" minutes and seconds must be below 60")
        }
        return numbers[0] * 3600 + numbers[1] * 60 + (numbers.count == 3 ? numbers[2] : 0)
    }

    /// `1h30m15s`, with optional spaces, each unit at most once and in the order h, m, s.
    private static func unitForm(_ text: String) throws -> Int64 {
        let units: [(Character, Int64)] = [("h", 3600), ("m", 60), ("s", 1)]
        var total: Int64 = 0
        var nextUnit = 0
        var number = ""
        var sawAny = false
        var spaceAfterNumber = false
        for character in text + " " {
            if character.isASCIIDigit || character == "." {
                // "1 30m" is not 130 minutes: a number ends at white space.
                if spaceAfterNumber { throw invalid("\"\(shown(text))\" is not a duration") }
                number.append(character)
                continue
            }
            if character == " " || character == "\t" {
                if !number.isEmpty { spaceAfterNumber = true }
                continue
            }
            spaceAfterNumber = false
            if character == "M" { throw invalid("\"M\" in \"\(shown(text))\" is ambiguous (months?); use m for minutes") }
            let lower = Character(character.lowercased())
            guard let unitIndex = units.firstIndex(where: { $0.0 == lower }), !number.isEmpty, unitIndex >= nextUnit else {
                throw invalid("\"\(shown(text))\" is not a duration")
            }
            guard let value = try decimal(number, scale: units[unitIndex].1, whole: text) else {
                throw invalid("\"\(shown(text))\" is not a duration")
            }
            let (sum, overflow) = total.addingReportingOverflow(value)
            total = overflow ? Int64.max : sum
            number = ""
            nextUnit = unitIndex + 1
            sawAny = true
        }
        guard sawAny, number.isEmpty else { throw invalid("\"\(shown(text))\" is not a duration") }
        return total
    }

    /// A decimal number times `scale`, exact to the second; nil when `text` is not a plain decimal.
    private static func decimal(_ text: String, scale: Int64, whole: String) throws -> Int64? {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count <= 2, !pieces[0].isEmpty, pieces.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
              pieces.count == 1 || !pieces[1].isEmpty
        else { return nil }
        // Anything with more than 9 integer digits is far beyond 7 days whatever the unit.
        guard pieces[0].count <= 9, pieces.count == 1 || pieces[1].count <= 6 else { return Int64.max }
        var value = Int64(pieces[0])! * scale
        if pieces.count == 2 {
            let fraction = Int64(pieces[1])!
            var denominator: Int64 = 1
            for _ in pieces[1] { denominator *= 10 }
            guard (fraction * scale) % denominator == 0 else {
                throw invalid("\"\(shown(whole))\" is not a whole number of seconds")
            }
            value += fraction * scale / denominator
        }
        return value
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension String {
    /// Trims spaces, tabs and line breaks (Unicode white space included) at both ends.
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.isWhiteSpace }) else { return "" }
        let last = scalars.lastIndex(where: { !$0.isWhiteSpace })!
        return String(scalars[first...last])
    }
}

private extension Unicode.Scalar {
    /// Unicode's White_Space; an ASCII character without looking up its properties (a tenth of
    /// the time, and every name, note and duration given is trimmed).
    var isWhiteSpace: Bool {
        isASCII ? self == " " || (0x09...0x0D).contains(value) : properties.isWhitespace
    }
}
