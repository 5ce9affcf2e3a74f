import CGtk
import DBusCore
import GtkKit
import TimeClient

/// Preferences' Sync group: off, or on with a folder (typed, or picked in the file chooser) and a
/// device name (the host name offered); `SyncState` and `SyncMessage` as they change; the devices
/// seen with their newest change.
final class SyncPreferences {
    let group = Prefs.group(title: "Sync",
                            description: "Sync keeps one history on several computers through a folder. Each computer writes only its own files there and reads the others'; Syncthing (or any folder sync: Nextcloud, Dropbox, a network share) copies the folder between them. Time never talks to the network itself.")
    let devicesGroup = Prefs.group(title: "Devices seen")
    private let context: WindowContext
    private let signals = SignalBag()
    private let status = Prefs.row(title: "Status")
    private let folder = Prefs.entryRow(title: "Sync folder", apply: false)
    private let choose = Make.iconButton("folder-open-symbolic", name: "Choose the sync folder").style("flat")
    private let device = Prefs.entryRow(title: "Device name", apply: false)
    private let turnOn = Make.button("Turn sync on", style: "suggested-action")
    private let turnOff = Make.button("Turn sync off", style: "destructive-action")
    private var deviceRows: [Widget] = []
    private var shown: PreferencesModel?

    init(context: WindowContext) {
        self.context = context
        gtk_widget_set_valign(choose.raw, GTK_ALIGN_CENTER)
        folder.addEntrySuffix(choose)
        device.editableText = String(cString: g_get_host_name())
        let buttons = Make.box(false, spacing: 12, [turnOn, turnOff]).align(GTK_ALIGN_END).margins(6)
        for row in [status, folder, device, buttons] { group.addRow(row) }
        signals.clicked(choose) { [weak self] in self?.chooseFolder() }
        signals.clicked(turnOn) { [weak self] in self?.enable() }
        signals.clicked(turnOff) { [weak self] in self?.disable() }
    }

    func show(_ model: PreferencesModel) {
        defer { shown = model }
        status.subtitle = model.syncStatus
        if model.syncOn, shown?.syncFolder != model.syncFolder { folder.editableText = model.syncFolder }
        // The folder and the name are chosen before turning it on; while it is on they say what is in use.
        for widget in [folder, choose, device] { widget.isSensitive = !model.syncOn && context.canChange }
        turnOn.isVisible = !model.syncOn
        turnOff.isVisible = model.syncOn
        turnOn.isSensitive = context.canChange
        turnOff.isSensitive = context.canChange
        guard shown?.devices != model.devices else { return }
        for row in deviceRows { adw_preferences_group_remove(devicesGroup.typed(), row.raw) }
        deviceRows = model.devices.map { Prefs.row(title: $0.name.isEmpty ? $0.id : $0.name, subtitle: PreferencesModel.deviceLine($0)) }
        if deviceRows.isEmpty { deviceRows = [Prefs.row(title: "None yet", subtitle: "Devices appear here once sync is on.")] }
        for row in deviceRows { devicesGroup.addRow(row) }
    }

    private func chooseFolder() {
        ChooseFile.folder(parent: group.window, title: "Sync folder") { [weak self] path in
            guard let self, let path else { return }
            self.folder.editableText = path
        }
    }

    private func enable() {
        let path = folder.editableText.trimmed(of: " \t"), name = device.editableText.trimmed(of: " \t")
        guard !path.isEmpty else {
            group.window.map { Widget.toast(in: $0, "Choose the folder to sync through first (Sync folder).") }
            return
        }
        call(PreferencesModel.enableSync(folder: path, device: name))
    }

    private func disable() { call(PreferencesModel.disableSync) }

    /// The agent's refusal (a folder that cannot be written) is said in its words.
    private func call(_ request: AgentRequest) {
        context.link.call(request) { [weak self] result in
            guard let self, case .failure(let error) = result, let window = self.group.window else { return }
            Widget.toast(in: window, error.message)
        }
    }
}

/// Preferences' Data group: where the data is (with Open folder), the store's state in the
/// agent's words, and Export everything (the complete json, which Import reads back).
final class DataPreferences {
    let group = Prefs.group(title: "Data")
    private let context: WindowContext
    private let signals = SignalBag()
    private let place = Prefs.row(title: "Where your data is")
    private let open = Make.button("Open folder").style("flat")
    private let storage = Prefs.row(title: "Store")
    private let exportRow = Prefs.row(title: "Export everything",
                                      subtitle: "Every project, category and session with its segments and notes, as JSON that Import reads back.")
    private let export = Make.button("Export everything").style("flat")

    init(context: WindowContext) {
        self.context = context
        for button in [open, export] { gtk_widget_set_valign(button.raw, GTK_ALIGN_CENTER) }
        place.addSuffix(open)
        exportRow.addSuffix(export)
        for row in [place, storage, exportRow] { group.addRow(row) }
        signals.clicked(open) { [weak self] in self?.openFolder() }
        signals.clicked(export) { [weak self] in self?.exportEverything() }
    }

    func show(_ model: PreferencesModel) {
        let folder = context.link.properties.values["DataFolder"]?.stringValue ?? ""
        place.subtitle = folder.isEmpty ? "Not told by this agent (an older version)" : folder
        open.isSensitive = !folder.isEmpty
        storage.subtitle = model.storageStatus
        export.isSensitive = context.link.status == .connected
    }

    private func openFolder() {
        guard let folder = context.link.properties.values["DataFolder"]?.stringValue, !folder.isEmpty,
              let uri = g_filename_to_uri(folder, nil, nil) else { return }
        defer { g_free(uri) }
        gtk_show_uri(group.window, uri, guint32(GDK_CURRENT_TIME))
    }

    private func exportEverything() {
        let name = "time-everything-\(LocalTime.dateString(context.now)).json"
        ChooseFile.run(parent: group.window, title: "Export everything", save: true, suggestedName: name) { [weak self] path in
            guard let self, let path else { return }
            self.context.link.call(PreferencesModel.exportEverything) { [weak self] result in
                guard let self, let window = self.group.window else { return }
                switch result {
                case .failure(let error): Widget.toast(in: window, error.message)
                case .success(let reply):
                    let text = reply.first?.stringValue ?? ""
                    var error: UnsafeMutablePointer<GError>?
                    if g_file_set_contents(path, text, gssize(text.utf8.count), &error) == 0 {
                        let reason = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
                        if let error { g_error_free(error) }
                        Widget.toast(in: window, "Could not write \(path): \(reason)")
                    } else {
                        Widget.toast(in: window, "Exported everything to \(path)")
                    }
                }
            }
        }
    }
}

extension Widget {
    /// A toast in the preferences window `window`.
    static func toast(in window: UnsafeMutablePointer<GtkWindow>, _ text: String) {
        guard let toast = adw_toast_new(text) else { return }
        adw_preferences_window_add_toast(cast(UnsafeMutableRawPointer(window)), toast)
    }
}
