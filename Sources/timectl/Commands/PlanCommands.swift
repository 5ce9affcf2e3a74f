import TimeClient
import DBusCore

/// Rates, targets, the currency and the not-tracking reminder: `project set`, `currency`,
/// `target` and `reminders untracked`. Each setting is one change of the agent (undoable).
struct ProjectGroup: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "project",
        abstract: "Set a project's hourly rate and weekly target (see also 'timectl projects').",
        subcommands: [SetProjectPlan.self],
        runnable: false)
    init(_ arguments: ParsedArguments) throws {}
    func run(_ context: Context) throws {}
}

struct SetProjectPlan: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "set",
        abstract: "Set a project's hourly rate (for amounts in reports) and weekly target.",
        discussion: "A rate is a decimal with at most 2 places (85, 85.50); 'none' removes it. A target is a duration per week (20h, 7h30m); 'none' or 0 removes it.",
        arguments: [existingProject],
        options: [
            .value("--rate", valueName: "amount", help: "The hourly rate, e.g. 85 or 85.50 (the currency is 'timectl currency'); 'none' removes it."),
            .value("--target", valueName: "duration", help: "Hours to spend on it per week, e.g. 20h; 'none' removes it."),
        ])

    var project: String
    var changes: [String: DBusValue] = [:]

    init(_ arguments: ParsedArguments) throws {
        project = arguments.required("project")
        if let rate = arguments.value("--rate") {
            let text = rate.trimmed.lowercased()
            changes["rate"] = .string(text == "none" || text == "off" ? "" : rate.trimmed)
        }
        if let target = arguments.value("--target") { changes["weekly_target"] = .uint64(try weeklyDuration(target, "--target", arguments)) }
        if changes.isEmpty { throw arguments.usageError("nothing to set: give --rate or --target") }
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        let target = try agent.resolveProject(project)
        try agent.call("UpdateProject", [.uint64(target.id), .vardict(changes)])
        let updated = try agent.resolveProject("#\(target.id)")
        let currency = try agent.property("Currency").stringValue ?? ""
        output("\(updated.name): \(planWords(updated, currency: currency)).")
    }
}

/// "rate 85.50 EUR an hour, weekly target 20:00" (or "no rate, no weekly target").
func planWords(_ project: Project, currency: String) -> String {
    let rate = project.raw["rate"]?.stringValue ?? ""
    let target = project.raw["weekly_target"]?.integer ?? 0
    let rateText = rate.isEmpty ? "no rate" : "rate \(rate)\(currency.isEmpty ? "" : " " + currency) an hour"
    return rateText + ", " + (target == 0 ? "no weekly target" : "weekly target \(Format.hoursMinutes(target))")
}

/// A weekly target as typed (`40h`, `37:30`, `none`), in seconds.
func weeklyDuration(_ text: String, _ option: String, _ arguments: ParsedArguments) throws -> UInt64 {
    let value = text.trimmed.lowercased()
    if ["none", "off", "0"].contains(value) { return 0 }
    guard let seconds = DurationInput.seconds(value), seconds > 0, seconds <= 7 * 24 * 3600 else {
        throw arguments.usageError("\(option) takes a duration per week up to 168h, such as 40h or 37h30m, or 'none'; not '\(text)'")
    }
    return UInt64(seconds)
}

struct Currency: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "currency",
        abstract: "Show or set the currency shown beside amounts (an ISO 4217 code such as EUR).",
        arguments: [Positional(name: "code", help: "EUR, USD, CHF …; 'none' for none. Without it: show the setting.", optional: true)])

    var code: String?

    init(_ arguments: ParsedArguments) throws {
        guard let text = arguments.argument("code")?.trimmed else { return }
        let letters = text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        if text.lowercased() == "none" { code = "" } else if text.count == 3 && letters { code = text.uppercased() } else {
            throw arguments.usageError("a currency is an ISO 4217 code of three letters such as EUR, or 'none'; not '\(text)'")
        }
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        if let code { try agent.setProperty("Currency", .string(code)) }
        let current = try agent.property("Currency").stringValue ?? ""
        output(current.isEmpty ? "No currency: amounts are shown as plain numbers." : "Amounts are in \(current).")
    }
}

struct Target: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "target",
        abstract: "Show or set the hours you aim to track per week, over all projects.",
        discussion: "The tray and the timer notification then show the week against it ('week 31:20 of 40:00'), and one notification says when it is reached. A project's own target: 'timectl project set NAME --target 20h'.",
        arguments: [Positional(name: "duration", help: "Per week, e.g. 40h or 37h30m; 'none' removes it. Without it: show the setting and this week.", optional: true)])

    var seconds: UInt64?

    init(_ arguments: ParsedArguments) throws {
        guard let text = arguments.argument("duration") else { return }
        seconds = try weeklyDuration(text, "target", arguments)
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        if let seconds { try agent.setProperty("WeeklyTarget", .uint64(seconds)) }
        let status = (try agent.call("GetStatus").first?.variantDictionary) ?? [:]
        let target = status["week_target"]?.integer ?? 0, week = status["week"]?.integer ?? 0
        guard target > 0 else {
            output("No weekly target (set one with 'timectl target 40h').")
            return
        }
        output("Weekly target \(Format.hoursMinutes(target)); this week \(Format.hoursMinutes(week)) (\(week * 100 / target)%).")
    }
}

struct RemindersUntracked: ParsableCommand {
    static let configuration = CommandConfiguration(
        name: "untracked",
        abstract: "Show or set the minutes at your desk with no timer running before a reminder says so.",
        discussion: "Never while you are away, the screen is locked or the machine sleeps, never while a session is open; again after as many minutes more. Its notification offers 'Continue <last project>' and 'Start…'.",
        arguments: [Positional(name: "minutes", help: "A number of minutes, or 'off'. Without it: show the setting.", optional: true)])

    var minutes: UInt32?

    init(_ arguments: ParsedArguments) throws {
        guard let text = arguments.argument("minutes")?.trimmed.lowercased() else { return }
        if text == "off" || text == "0" {
            minutes = 0
        } else if let value = UInt32(text), value <= 24 * 60 {
            minutes = value
        } else {
            throw arguments.usageError("reminders untracked takes a number of minutes up to 1440 or 'off', not '\(text)'")
        }
    }

    func run(_ context: Context) throws {
        let agent = try context.agent()
        if let minutes { try agent.setProperty("UntrackedReminderMinutes", .uint32(minutes)) }
        let current = try agent.property("UntrackedReminderMinutes").integer ?? 0
        output(current == 0 ? "The not-tracking reminder is off." : "A reminder after \(current) minutes at your desk with no timer running.")
    }
}
