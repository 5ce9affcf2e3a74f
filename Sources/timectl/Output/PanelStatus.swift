import DBusCore
import TextEscape
import TimeClient
import TimeJSON

/// The timer as a panel sees it: the agent's properties, extrapolated to `now`
/// (elapsed = ActiveSeconds + (now − RunningSince) while running).
struct PanelStatus {
    enum Style: String, CaseIterable {
        case waybar, json, plain
    }

    /// False when no agent owns the name.
    var agentRunning = true
    var state = "idle"
    var project = ""
    var color = ""
    var category = ""
    var sessionID: Int64 = 0
    var sessionStart: Int64 = 0
    var runningSince: Int64 = 0
    var activeSeconds: Int64 = 0
    var note = ""
    var reminderMinutes: Int64 = 0
    var storageState = "ok"
    var storageMessage = ""
    /// The focus timer (PanelStatus+Focus): its phase, the phase's end, today's focus phases.
    var focusState = "off"
    var focusEnds: Int64 = 0
    var focusCount: Int64 = 0

    static let offline = PanelStatus(agentRunning: false)

    init(agentRunning: Bool = true) { self.agentRunning = agentRunning }

    init(properties p: [String: DBusValue]) {
        state = p["State"]?.stringValue ?? "idle"
        project = p["Project"]?.stringValue ?? ""
        color = p["ProjectColor"]?.stringValue ?? ""
        category = p["Category"]?.stringValue ?? ""
        sessionID = p["SessionId"]?.integer ?? 0
        sessionStart = p["SessionStart"]?.integer ?? 0
        runningSince = p["RunningSince"]?.integer ?? 0
        activeSeconds = p["ActiveSeconds"]?.integer ?? 0
        note = p["Note"]?.stringValue ?? ""
        reminderMinutes = p["ReminderMinutes"]?.integer ?? 0
        storageState = p["StorageState"]?.stringValue ?? "ok"
        storageMessage = p["StorageMessage"]?.stringValue ?? ""
        focusState = p["FocusState"]?.stringValue ?? "off"
        focusEnds = p["FocusEnds"]?.integer ?? 0
        focusCount = p["FocusCount"]?.integer ?? 0
    }

    var isRunning: Bool { agentRunning && state == "running" }

    /// Active seconds of the open session at `now` (a fraction kept for tick alignment).
    func elapsed(at now: Double) -> Double {
        guard state != "idle" else { return 0 }
        if state == "running" && runningSince > 0 {
            return Double(activeSeconds) + max(0, now - Double(runningSince))
        }
        return Double(activeSeconds)
    }

    /// Seconds from `now` until the elapsed time next reaches a whole minute.
    func secondsToNextMinute(at now: Double) -> Double {
        let e = elapsed(at: now)
        let intoMinute = e - (e / 60).rounded(.down) * 60
        return 60 - intoMinute
    }

    func render(_ style: Style, now: Double) -> String {
        switch style {
        case .waybar: return waybar(now: now).text
        case .json: return json(now: now).text
        case .plain: return plain(now: now)
        }
    }

    /// The label: "Writing 1:23", "Writing 1:23 (paused)", "idle".
    func label(now: Double) -> String {
        guard agentRunning else { return "not running" }
        let clock = Format.hoursMinutes(Int64(elapsed(at: now)))
        switch state {
        case "running": return "\(project) \(clock)" + focusSuffix(now: now)
        case "paused": return "\(project) \(clock) (paused)" + focusSuffix(now: now)
        default: return "idle"
        }
    }

    func tooltip(now: Double) -> String {
        guard agentRunning else { return "time-agent is not running. \(startHint)" }
        var lines: [String] = []
        let elapsed = Format.hms(Int64(elapsed(at: now)))
        switch state {
        case "running", "paused":
            lines.append(category.isEmpty ? project : "\(project) — \(category)")
            let since = sessionStart > 0 ? ", started \(LocalTime.clockString(sessionStart))" : ""
            lines.append("\(state == "running" ? "Running" : "Paused"): \(elapsed)\(since)")
            if !focusLine.isEmpty { lines.append(focusLine) }
            if !note.isEmpty { lines.append(note) }
        default:
            lines.append("Not tracking")
        }
        if storageState != "ok" && !storageMessage.isEmpty { lines.append(storageMessage) }
        return lines.joined(separator: "\n")
    }

    var cssClass: String { agentRunning ? state : "offline" }

    /// Progress towards the next reminder, 0…100 (only while reminders are on and a session is open).
    func percentage(now: Double) -> Int64? {
        guard agentRunning, state != "idle", reminderMinutes > 0 else { return nil }
        let period = Double(reminderMinutes * 60)
        let e = elapsed(at: now)
        return Int64((e - (e / period).rounded(.down) * period) / period * 100)
    }

    /// Waybar's custom-module JSON (return-type json). Text and tooltip are Pango markup: escaped.
    func waybar(now: Double) -> JSON {
        var members: [(String, JSON)] = [
            ("text", .string(TextEscape.markup(label(now: now)))),
            ("tooltip", .string(TextEscape.markup(tooltip(now: now)))),
            ("class", .string(cssClass)),
            ("alt", .string(cssClass)),
        ]
        if let percentage = percentage(now: now) { members.append(("percentage", .int(percentage))) }
        return .object(members)
    }

    func json(now: Double) -> JSON {
        .object([
            ("agent", .bool(agentRunning)),
            ("state", .string(agentRunning ? state : "offline")),
            ("project", .string(project)),
            ("color", .string(color)),
            ("category", .string(category)),
            ("session", .int(sessionID)),
            ("session_start", .int(sessionStart)),
            ("running_since", .int(runningSince)),
            ("active_seconds", .int(activeSeconds)),
            ("elapsed", .int(Int64(elapsed(at: now)))),
            ("note", .string(note)),
        ] + focusJSON)
    }

    /// One line for i3blocks, polybar or a shell prompt.
    func plain(now: Double) -> String { label(now: now) }
}

