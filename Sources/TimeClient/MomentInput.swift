/// A moment a person gives to correct the timer ("I started at 9:15", "I stopped 10 minutes
/// ago"), in local time: everything `DateInput` reads with a time of day ('9:15' today,
/// 'yesterday 17:30', '2026-11-25 09:00', 'now', '@1764057600'), and a time back from now:
/// '10 minutes ago', '1 hour 30 min ago', '90s ago', or Hamster's '-10m', '-1h30m', '-10'
/// (a bare number is minutes). timectl and the window read it here; the agent decides whether
/// the moment may be used (the future, 24 hours back, overlaps).
public enum MomentInput {
    public static let accepted = "'9:15', '17:30:05', 'yesterday 17:30', '10 minutes ago', '-10m', 'now'"

    /// Unix seconds; nil when the text is not a moment (a bare day such as 'yesterday' is not one:
    /// it would mean its midnight).
    public static func parse(_ input: String, now: Int64) -> Int64? {
        let text = input.trimmed.lowercased()
        if text.hasPrefix("-") { return back(String(text.dropFirst()), now: now) }
        if text.hasSuffix(" ago") { return back(String(text.dropLast(4)), now: now) }
        guard let value = DateInput.parse(text, now: now), value.hasTime else { return nil }
        return value.time
    }

    /// `now` minus a duration typed with units as words or letters ('10 minutes', '1h 30m', '10').
    private static func back(_ text: String, now: Int64) -> Int64? {
        var words: [String] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            let unit = unitLetter(String(word))
            if let unit, let last = words.last, last.last?.isNumber == true {
                words[words.count - 1] = last + unit
            } else {
                words.append(String(word))
            }
        }
        guard !words.isEmpty, let seconds = DurationInput.seconds(words.joined(separator: " ")), seconds >= 0 else { return nil }
        return now - seconds
    }

    private static func unitLetter(_ word: String) -> String? {
        switch word {
        case "h", "hr", "hrs", "hour", "hours": "h"
        case "m", "min", "mins", "minute", "minutes": "m"
        case "s", "sec", "secs", "second", "seconds": "s"
        default: nil
        }
    }
}
