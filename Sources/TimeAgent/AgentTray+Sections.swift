import TimeCore
import Tray

/// The tray menu's Undo entry and pending away spans: each entry calls the same function as the
/// D-Bus method it mirrors (`Undo`, `ResolveAway`).
extension AgentTray {
    private enum SectionID {
        static let undo: Int32 = 5000
        /// Away span submenus from here, four ids each (the submenu and its three choices).
        static let firstAway: Int32 = 6000
        /// The not-tracking reminder's entries in the Reminders submenu.
        static let untrackedTitle: Int32 = 7000, firstUntracked: Int32 = 7001
        static let awaySpansShown = 20
    }

    func fillSections() {
        sections.undo = { [unowned self] in self.undoEntries() }
        sections.away = { [unowned self] in self.awayEntries() }
        sections.focus = { [unowned self] in self.focusEntries() }
    }

    static let untrackedChoices: [UInt32] = [0, 15, 30, 60]

    /// After the reminder choices, a `When not tracking` submenu: Off, 15, 30, 60 minutes
    /// (UntrackedReminderMinutes), each as the property's Set does it.
    func untrackedReminderEntries() -> [TrayMenuItem] {
        let current = service.tracker.planSettings.untrackedReminderMinutes
        let choices = Self.untrackedChoices.enumerated().map { index, minutes in
            TrayMenuItem(id: SectionID.firstUntracked + Int32(index), label: minutes == 0 ? "Off" : "After \(minutes) min",
                         toggle: .radio(minutes == current)) { [unowned self] in
                self.service.desktopCommand("not-tracking reminder") { try self.service.tracker.setUntrackedReminderMinutes(minutes) }
            }
        }
        return [TrayMenuItem(id: SectionID.untrackedTitle, label: "When not tracking", children: choices)]
    }

    private func undoEntries() -> [TrayMenuItem] {
        let description = (try? service.tracker.canUndo()) ?? ""
        guard !description.isEmpty else { return [] }
        return [TrayMenuItem(id: SectionID.undo, label: "Undo: \(description)") { [unowned self] in
            self.service.desktopCommand("undo") { _ = try self.service.tracker.undo() }
        }]
    }

    private func awayEntries() -> [TrayMenuItem] {
        let tracker = service.tracker
        let spans = ((try? tracker.pendingAway()) ?? []).suffix(SectionID.awaySpansShown)
        return spans.enumerated().map { index, span in
            let base = SectionID.firstAway + Int32(index) * 4
            let text = AwayNotificationText(span: span, end: span.end ?? tracker.clock.now(), project: tracker.projectName(of: span))
            let choices = [("keep", "Keep"), ("discard", "Discard"), ("stop", text.stopLabel)]
            let children = choices.enumerated().map { offset, choice in
                TrayMenuItem(id: base + 1 + Int32(offset), label: choice.1) { [unowned self] in
                    self.service.desktopCommand("away \(choice.0)") { try self.service.resolveAway(id: span.id, choice: choice.0) }
                }
            }
            return TrayMenuItem(id: base, label: "\(text.summary): \(text.body)", children: children)
        }
    }
}
