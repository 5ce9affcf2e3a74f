import CGtk

/// libadwaita 1.2's preferences: a window of pages, each of titled groups of rows. 1.2 has no
/// AdwSwitchRow or AdwSpinRow (1.4): a switch or a spin button is a suffix of an `AdwActionRow`.
public enum Prefs {
    /// An `AdwPreferencesWindow` over `parent` (searchable, as GNOME's own).
    public static func window(title: String, parent: UnsafeMutablePointer<GtkWindow>?) -> Widget {
        let window = Widget(adw_preferences_window_new())
        let gtkWindow: UnsafeMutablePointer<GtkWindow> = window.typed()
        gtk_window_set_title(gtkWindow, title)
        gtk_window_set_transient_for(gtkWindow, parent)
        gtk_window_set_modal(gtkWindow, 0)
        gtk_window_set_hide_on_close(gtkWindow, 0)
        return window
    }

    public static func page(title: String, icon: String) -> Widget {
        let page = Widget(adw_preferences_page_new())
        adw_preferences_page_set_title(page.typed(), title)
        adw_preferences_page_set_icon_name(page.typed(), icon)
        return page
    }

    public static func group(title: String, description: String = "") -> Widget {
        let group = Widget(adw_preferences_group_new())
        adw_preferences_group_set_title(group.typed(), title)
        if !description.isEmpty { adw_preferences_group_set_description(group.typed(), description) }
        return group
    }

    /// A row with a title, a subtitle (plain text: markup is switched off) and suffix widgets.
    public static func row(title: String, subtitle: String = "") -> Widget {
        let row = Widget(adw_action_row_new())
        adw_preferences_row_set_use_markup(row.typed(), 0)
        adw_preferences_row_set_title(row.typed(), title)
        row.subtitle = subtitle
        return row
    }

    /// A text row (`AdwEntryRow`); with `apply`, an apply button: its `apply` signal runs on Enter
    /// or the button.
    public static func entryRow(title: String, apply: Bool = true) -> Widget {
        let row = Widget(adw_entry_row_new())
        adw_preferences_row_set_use_markup(row.typed(), 0)
        adw_preferences_row_set_title(row.typed(), title)
        adw_entry_row_set_show_apply_button(row.typed(), apply ? 1 : 0)
        return row
    }

    /// A spin button from `lower` to `upper` in whole steps.
    public static func spin(_ lower: Double, _ upper: Double, step: Double = 1) -> Widget {
        let spin = Widget(gtk_spin_button_new_with_range(lower, upper, step))
        gtk_spin_button_set_numeric(spin.opaque, 1)
        gtk_widget_set_valign(spin.raw, GTK_ALIGN_CENTER)
        return spin
    }

    public static func toggleSwitch() -> Widget {
        let toggle = Widget(gtk_switch_new())
        gtk_widget_set_valign(toggle.raw, GTK_ALIGN_CENTER)
        return toggle
    }
}

extension Widget {
    /// Adds a page to a preferences window, a group to a page, or a row to a group.
    public func addPage(_ page: Widget) { adw_preferences_window_add(typed(), page.typed()) }
    public func addGroup(_ group: Widget) { adw_preferences_page_add(typed(), group.typed()) }
    public func addRow(_ row: Widget) { adw_preferences_group_add(typed(), row.raw) }

    /// A widget at the end of an action row; `activates` makes a press on the row press it.
    public func addSuffix(_ widget: Widget, activates: Bool = false) {
        adw_action_row_add_suffix(typed(), widget.raw)
        if activates { adw_action_row_set_activatable_widget(typed(), widget.raw) }
    }

    /// A widget at the end of an entry row.
    public func addEntrySuffix(_ widget: Widget) { adw_entry_row_add_suffix(typed(), widget.raw) }

    /// An action row's second line.
    public var subtitle: String {
        get { adw_action_row_get_subtitle(typed()).map { String(cString: $0) } ?? "" }
        set { if subtitle != newValue { adw_action_row_set_subtitle(typed(), newValue) } }
    }

    /// A group's line under its title.
    public func setGroupDescription(_ text: String) { adw_preferences_group_set_description(typed(), text) }

    /// A spin button's value.
    public var spinValue: Double {
        get { gtk_spin_button_get_value(opaque) }
        set { if spinValue != newValue { gtk_spin_button_set_value(opaque, newValue) } }
    }

    /// A switch's position.
    public var switchOn: Bool {
        get { gtk_switch_get_active(opaque) != 0 }
        set { if switchOn != newValue { gtk_switch_set_active(opaque, newValue ? 1 : 0) } }
    }

    /// Shows a toast in a preferences window.
    public func preferencesToast(_ title: String) {
        guard let toast = adw_toast_new(title) else { return }
        adw_preferences_window_add_toast(typed(), toast)
    }
}
