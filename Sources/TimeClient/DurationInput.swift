/// Reads a duration as the agent does (`1:30`, `1:30:15`, `90m`, `2h`, `45s`, `1h30m`, `1h 30m`,
/// `1.5h`, `45` = minutes), so that `timectl add P --duration 1h` (and the window's session editor) can put the start an hour before
/// the end. The agent still checks the text it is given (zero, over 7 days); nil means timectl
/// cannot read it at all.
public enum DurationInput {
    public static let accepted = "1h30m, 1:30, 1:30:15, 90m, 2h, 45s, 1.5h, 45 (minutes)"

    public static func seconds(_ input: String) -> Int64? {
        let text = input.trimmed
        guard !text.isEmpty, text.count <= 40 else { return nil }
        if text.contains(":") {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 || parts.count == 3,
                  parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigitCharacter) }),
                  parts[0].count <= 4, parts.dropFirst().allSatisfy({ $0.count == 2 }) else { return nil }
            let numbers = parts.map { Int64($0)! }
            guard numbers.dropFirst().allSatisfy({ $0 < 60 }) else { return nil }
            return numbers[0] * 3600 + numbers[1] * 60 + (numbers.count == 3 ? numbers[2] : 0)
        }
        if let minutes = decimal(Substring(text), scale: 60) { return minutes }
        // Units h, m, s, each at most once and in that order; spaces between the parts.
        var total: Int64 = 0
        var number = ""
        var next = 0
        for character in text + " " {
            if character.isASCIIDigitCharacter || character == "." {
                number.append(character)
            } else if character == " " || character == "\t" {
                continue
            } else {
                guard let unit = ["h", "m", "s"].firstIndex(of: character), unit >= next,
                      let value = decimal(Substring(number), scale: [3600, 60, 1][unit]) else { return nil }
                total += value
                number = ""
                next = unit + 1
            }
        }
        return next > 0 && number.isEmpty ? total : nil
    }

    /// "1.5" × scale, exact to the second.
    private static func decimal(_ text: Substring, scale: Int64) -> Int64? {
        let pieces = text.split(separator: ".", omittingEmptySubsequences: false)
        guard pieces.count <= 2, !pieces[0].isEmpty, pieces[0].count <= 9,
              pieces.allSatisfy({ $0.allSatisfy(\.isASCIIDigitCharacter) }),
              pieces.count == 1 || (!pieces[1].isEmpty && pieces[1].count <= 6) else { return nil }
        var value = Int64(pieces[0])! * scale
        if pieces.count == 2 {
            var denominator: Int64 = 1
            for _ in pieces[1] { denominator *= 10 }
            let fraction = Int64(pieces[1])! * scale
            guard fraction % denominator == 0 else { return nil }
            value += fraction / denominator
        }
        return value
    }
}

extension Character {
    public var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
