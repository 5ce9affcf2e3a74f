/// Snapshot payload v10: a project's `rateCents` and `weeklyTarget` (written only when it has
/// them, so a project without either reads as in v9), and the plan settings `currency`,
/// `untrackedReminderMinutes` and `weeklyTarget` beside `reminderMinutes`, keys in byte order.
extension SnapshotFormat {
    /// `,"rateCents":8550,"weeklyTarget":72000` after a project's `name`.
    static func appendPlan(of project: Project, to out: inout String) {
        if let cents = project.rateCents {
            out += ",\"rateCents\":"
            out += String(cents)
        }
        if project.weeklyTarget != 0 {
            out += ",\"weeklyTarget\":"
            out += String(project.weeklyTarget)
        }
    }

    /// `,"untrackedReminderMinutes":…,"weeklyTarget":…` after `reminderMinutes` (`currency` comes first).
    static func appendPlanSettings(_ plans: PlanSettings, to out: inout String) {
        out += ",\"untrackedReminderMinutes\":"
        out += String(plans.untrackedReminderMinutes)
        out += ",\"weeklyTarget\":"
        out += String(plans.weeklyTarget)
    }

    static func decodePlan(_ json: JSON, into project: inout Project) throws {
        if let rate = json["rateCents"] {
            guard let cents = rate.intValue, cents >= 0, cents <= Money.maximumRateCents else { throw Failure.malformed("bad project rate") }
            project.rateCents = cents
        }
        if let target = json["weeklyTarget"] {
            guard let seconds = target.intValue, seconds >= 0, seconds <= PlanSettings.maximumWeeklyTarget else {
                throw Failure.malformed("bad project weekly target")
            }
            project.weeklyTarget = seconds
        }
    }

    /// The plan settings of a payload; a v9 or older one has none of them.
    static func decodePlanSettings(_ settings: JSON?) throws -> PlanSettings {
        var plans = PlanSettings()
        if let currency = settings?["currency"] {
            guard let code = currency.stringValue, (try? PlanSettings.currencyCode(code)) == code else { throw Failure.malformed("bad currency") }
            plans.currency = code
        }
        if let target = settings?["weeklyTarget"] {
            guard let seconds = target.intValue, seconds >= 0, seconds <= PlanSettings.maximumWeeklyTarget else {
                throw Failure.malformed("bad weekly target")
            }
            plans.weeklyTarget = seconds
        }
        if let minutes = settings?["untrackedReminderMinutes"] {
            guard let value = minutes.intValue, value >= 0, value <= Int64(PlanSettings.maximumUntrackedMinutes) else {
                throw Failure.malformed("bad not-tracking reminder")
            }
            plans.untrackedReminderMinutes = UInt32(value)
        }
        return plans
    }
}
