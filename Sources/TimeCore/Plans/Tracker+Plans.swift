/// Rates, targets, the currency and the not-tracking reminder: each setting is one durable,
/// undoable change through the gate, like every other change.
extension Tracker {
    public var planSettings: PlanSettings { (try? store.planSettings()) ?? PlanSettings() }

    /// `EUR`; `""` shows amounts without a currency.
    public func setCurrency(_ raw: String) throws {
        let code = try PlanSettings.currencyCode(raw)
        guard code != planSettings.currency else { return }
        try change { try store.setMeta(PlanSettings.Key.currency, code) }
    }

    /// Seconds per week over all projects; 0 for none.
    public func setWeeklyTarget(_ seconds: Int64) throws {
        let target = try PlanSettings.checkedTarget(seconds, of: "all projects")
        guard target != planSettings.weeklyTarget else { return }
        try change { try store.setMeta(PlanSettings.Key.weeklyTarget, String(target)) }
    }

    /// Minutes at the desk with no session open before the not-tracking reminder; 0 turns it off.
    public func setUntrackedReminderMinutes(_ minutes: UInt32) throws {
        guard minutes <= PlanSettings.maximumUntrackedMinutes else {
            throw TrackerError.invalidArgument("UntrackedReminderMinutes must be between 0 (off) and \(PlanSettings.maximumUntrackedMinutes) (a day); got \(minutes).")
        }
        guard minutes != planSettings.untrackedReminderMinutes else { return }
        try change { try store.setMeta(PlanSettings.Key.untrackedMinutes, String(minutes)) }
    }

    /// The weekly target of one project and of all of them: what the week is measured against.
    public func weeklyTarget(of project: ProjectID? = nil) -> Int64 {
        guard let project else { return planSettings.weeklyTarget }
        return self.project(id: project)?.weeklyTarget ?? 0
    }
}

/// Which weekly targets were announced as reached in a week (`all` for the overall target, a
/// project's id for its own), so that each is announced once a week, also across restarts. A
/// note of what the agent showed, not the person's data: written outside the change gate (no
/// step, no snapshot); a store rebuilt from a snapshot may announce a target again.
extension Tracker {
    private static let announcedKey = "targets_announced"

    public func announcedTargets(inWeek week: String) -> Set<String> {
        guard let value = try? store.meta(Tracker.announcedKey) else { return [] }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0] == week else { return [] }
        return Set(parts[1].split(separator: ",").map(String.init))
    }

    public func noteAnnouncedTargets(_ keys: Set<String>, inWeek week: String) throws {
        guard readOnlyReason == nil else { return }
        try store.begin()
        do {
            try store.setMeta(Tracker.announcedKey, week + " " + keys.sorted().joined(separator: ","))
            try store.commit()
        } catch {
            store.rollback()
            throw error
        }
    }
}
