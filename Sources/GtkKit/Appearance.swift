import CGtk

/// The colour scheme in force (libadwaita's style manager: the desktop's preference, or
/// `ADW_DEBUG_COLOR_SCHEME`), and its changes.
public enum Appearance {
    private static var manager: UnsafeMutableRawPointer? { adw_style_manager_get_default().map { UnsafeMutableRawPointer($0) } }

    public static var isDark: Bool {
        guard let manager = adw_style_manager_get_default() else { return false }
        return adw_style_manager_get_dark(manager) != 0
    }

    /// Runs `handler` whenever the scheme changes from light to dark or back, while `signals` lives.
    public static func onChange(_ signals: SignalBag, _ handler: @escaping () -> Void) {
        guard let manager else { return }
        signals.notify(manager, "dark", handler)
    }
}
