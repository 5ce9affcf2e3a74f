/// Hourly rates and amounts as exact integers of cents: a rate is typed as a decimal with at most
/// two places (`85`, `85.5`, `85.50`, `0.01`), an amount is seconds × rate rounded half up to the
/// cent, and both are written back as decimal strings. No floating point anywhere.
public enum Money {
    /// The highest hourly rate accepted: 1,000,000.00.
    public static let maximumRateCents: Int64 = 100_000_000

    public static let acceptedRateForms = "give a non-negative decimal with at most 2 places, such as 85, 85.5 or 199.99 (\"\" removes the rate)"

    /// The cents of a typed rate; nil for `""` (no rate). Anything else is refused, naming the forms.
    public static func rateCents(_ raw: String) throws -> Int64? {
        let text = raw.trimmingWhitespace()
        if text.isEmpty { return nil }
        let shown = text.count > 30 ? String(text.prefix(30)) + "…" : text
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, !parts[0].isEmpty, parts[0].count <= 9,
              parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } })
        else { throw TrackerError.invalidArgument("\"\(shown)\" is not a rate: \(acceptedRateForms).") }
        var cents = Int64(parts[0])! * 100
        if parts.count == 2 {
            guard (1...2).contains(parts[1].count) else {
                throw TrackerError.invalidArgument("\"\(shown)\" is not a rate: \(acceptedRateForms).")
            }
            cents += Int64(parts[1])! * (parts[1].count == 1 ? 10 : 1)
        }
        guard cents <= maximumRateCents else {
            throw TrackerError.invalidArgument("The rate \(shown) is above the highest accepted, \(rateText(maximumRateCents)) an hour.")
        }
        return cents
    }

    /// `85` for a whole rate, `85.50` otherwise (the form the contract shows).
    public static func rateText(_ cents: Int64) -> String {
        cents % 100 == 0 ? String(cents / 100) : amountText(cents)
    }

    /// `1234.50`: always two places.
    public static func amountText(_ cents: Int64) -> String {
        let sign = cents < 0 ? "-" : ""
        let magnitude = cents.magnitude
        let rest = magnitude % 100
        return "\(sign)\(magnitude / 100).\(rest < 10 ? "0" : "")\(rest)"
    }

    /// The cents of `centSeconds` (seconds × cents per hour, summed exactly), half up.
    public static func cents(ofCentSeconds centSeconds: Int64) -> Int64 {
        (centSeconds / 3600) + ((centSeconds % 3600) * 2 >= 3600 ? 1 : 0)
    }
}
