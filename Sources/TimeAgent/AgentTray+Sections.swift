import TimeCore
import Tray

/// The tray menu's Undo entry and pending away spans: each entry calls the same function as the
/// D-Bus method it mirrors (`Undo`, `ResolveAway`).
extension AgentTray {
    private enum SectionID {
        static let undo: Int32 = 5000
        /// Away span submenus from here, four ids each (the submenu and its three choices).
        static let firstAway: Int32 = 6000
        static let awaySpansShown = 20
    }

    func fillSections() {
        sections.undo = { [unowned self] in self.undoEntries() }
        sections.away = { [unowned self] in self.awayEntries() }
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
