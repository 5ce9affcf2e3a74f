/// What a person plans and bills by (store schema v11, snapshot v10): each project may have an hourly rate and a
/// weekly target (columns of `projects`), and three settings live in `meta`: the currency shown
/// beside amounts, the overall weekly target, and the minutes at the desk without a session
/// open before the not-tracking reminder.
public struct PlanSettings: Equatable, Sendable {
    /// An ISO 4217 code (`EUR`), `""` for none.
    public var currency: String
    /// Seconds per week over all projects; 0 for none.
    public var weeklyTarget: Int64
    /// 0 turns the not-tracking reminder off.
    public var untrackedReminderMinutes: UInt32

    public init(currency: String = "", weeklyTarget: Int64 = 0, untrackedReminderMinutes: UInt32 = 0) {
        self.currency = currency
        self.weeklyTarget = weeklyTarget
        self.untrackedReminderMinutes = untrackedReminderMinutes
    }

    /// A week holds 168 hours: no target can be more.
    public static let maximumWeeklyTarget: Int64 = 7 * 24 * 3600
    public static let maximumUntrackedMinutes: UInt32 = 24 * 60

    static let schema = """
        ALTER TABLE projects ADD COLUMN rate_cents INTEGER;
        ALTER TABLE projects ADD COLUMN weekly_target INTEGER NOT NULL DEFAULT 0;
        """

    enum Key {
        static let currency = "currency", weeklyTarget = "weekly_target", untrackedMinutes = "untracked_reminder_minutes"
    }

    /// `EUR` from `eur` or ` EUR `; `""` stays none; anything but three letters is refused.
    /// Exactly what is stored and read back: "" or three capital letters. A front end normalizes
    /// what a person types (timectl upper-cases `eur`); the agent never changes a value it was given.
    public static func currencyCode(_ raw: String) throws -> String {
        if raw.isEmpty { return "" }
        guard raw.unicodeScalars.count == 3, raw.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) else {
            let shown = raw.count > 20 ? String(raw.prefix(20)) + "…" : raw
            throw TrackerError.invalidArgument("\"\(shown)\" is not a currency: give an ISO 4217 code of three capital letters, such as EUR, USD or CHF (\"\" for none).")
        }
        return raw
    }

    /// A weekly target as given over D-Bus (seconds), checked.
    public static func checkedTarget(_ seconds: Int64, of what: String) throws -> Int64 {
        guard seconds >= 0 && seconds <= maximumWeeklyTarget else {
            throw TrackerError.invalidArgument("The weekly target of \(what) must be between 0 (none) and \(maximumWeeklyTarget) seconds (the 168 hours of a week); got \(seconds).")
        }
        return seconds
    }

    /// The range's share of a weekly target: the target × the range's days ÷ 7, to the nearest
    /// second (half up); a week gets the target itself.
    public static func share(of target: Int64, days: Int) -> Int64 {
        let scaled = target * Int64(days)
        return scaled / 7 + ((scaled % 7) * 2 >= 7 ? 1 : 0)
    }
}

extension Store {
    public func planSettings() throws -> PlanSettings {
        PlanSettings(currency: try meta(PlanSettings.Key.currency) ?? "",
                     weeklyTarget: try meta(PlanSettings.Key.weeklyTarget).flatMap { Int64($0) } ?? 0,
                     untrackedReminderMinutes: try meta(PlanSettings.Key.untrackedMinutes).flatMap { UInt32($0) } ?? 0)
    }

    /// Writes the settings that differ from the store's (a restore writes all of them into an empty store).
    func setPlanSettings(_ settings: PlanSettings) throws {
        let current = try planSettings()
        if settings.currency != current.currency { try setMeta(PlanSettings.Key.currency, settings.currency) }
        if settings.weeklyTarget != current.weeklyTarget { try setMeta(PlanSettings.Key.weeklyTarget, String(settings.weeklyTarget)) }
        if settings.untrackedReminderMinutes != current.untrackedReminderMinutes {
            try setMeta(PlanSettings.Key.untrackedMinutes, String(settings.untrackedReminderMinutes))
        }
    }

    /// A project's rate and weekly target.
    func updateProjectPlan(_ project: Project) throws {
        try database.run("UPDATE projects SET rate_cents = ?, weekly_target = ? WHERE id = ?",
                         project.rateCents.map(SQLValue.integer) ?? .null, .integer(project.weeklyTarget), .integer(project.id))
    }
}
