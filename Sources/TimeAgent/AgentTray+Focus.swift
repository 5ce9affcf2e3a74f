import TimeCore
import Tray

/// The focus timer in the tray: the label and the title line show the phase and its minutes left
/// (`◔ 12 min`), a `Focus` submenu starts, skips and stops it. While a phase counts down it
/// drives the label's one tick (at each minute its time left crosses), so the label changes at
/// most once a minute, during a break too, when the session is paused.
extension AgentTray {
    enum FocusID {
        static let submenu: Int32 = 8000, start: Int32 = 8001, skip: Int32 = 8002, stop: Int32 = 8003
    }

    /// `Focus` with Start focus (the open or the last project), Skip (the phase running or
    /// waiting) and Stop focus, each the same function as its D-Bus method.
    func focusEntries() -> [TrayMenuItem] {
        let tracker = service.tracker
        let state = tracker.focusState
        let status = try? tracker.status()
        let canStart = status?.project != nil || !(status?.lastProjectName ?? "").isEmpty
        let startLabel = state.phase == .focus ? "Start focus again" : "Start focus"
        let children = [
            TrayMenuItem(id: FocusID.start, label: startLabel, enabled: canStart) { [unowned self] in
                self.service.desktopCommand("focus") { _ = try self.service.tracker.startFocus("") }
            },
            TrayMenuItem(id: FocusID.skip, label: state.phase == .waiting ? "Start \(FocusText.name(of: state.next))" : "Skip",
                         enabled: !state.isOff) { [unowned self] in
                self.service.desktopCommand("skip phase") { try self.service.tracker.skipPhase() }
            },
            TrayMenuItem(id: FocusID.stop, label: "Stop focus", enabled: !state.isOff) { [unowned self] in
                self.service.desktopCommand("stop focus") { try self.service.tracker.stopFocus() }
            },
        ]
        return [TrayMenuItem(id: FocusID.submenu, label: "Focus", children: children)]
    }
}

extension TrayLook {
    /// `◔ 12 min`, `◔ break 3 min`, `◔ long break 12 min`, `◔ focus paused`, `◔ break waits`;
    /// nil without a cycle.
    static func focusText(_ state: FocusState, now: Int64, minute: Int64 = 60) -> String? {
        let left = (max(0, state.ends - now) + minute - 1) / minute
        switch state.phase {
        case .off: return nil
        case .focus: return state.pausedLeft == nil ? "◔ \(left) min" : "◔ focus paused"
        case .shortBreak: return "◔ break \(left) min"
        case .longBreak: return "◔ long break \(left) min"
        case .waiting: return "◔ \(FocusText.name(of: state.next)) waits"
        }
    }

    /// Seconds until the minutes left change, while a phase counts down; nil otherwise.
    static func focusTickWait(_ state: FocusState, now: Int64, minute: Int64 = 60) -> Int64? {
        guard state.isTiming else { return nil }
        let left = max(0, state.ends - now)
        let wait = left % minute
        return wait == 0 ? minute : wait
    }

    /// The title line gains the phase; while it counts down, the label is the phase alone (its
    /// minutes are what changes), else the phase follows the running time.
    mutating func showFocus(_ state: FocusState, now: Int64, minute: Int64 = 60) {
        guard let text = Self.focusText(state, now: now, minute: minute) else { return }
        title += " · \(text)"
        if state.isTiming {
            appearance.label = text
            appearance.labelGuide = "◔ long break 00 min"
        } else if !appearance.label.isEmpty {
            appearance.label += " \(text)"
        }
        appearance.tooltipMarkup += "\n" + TrayAppearance.markupEscaped(text)
    }
}
