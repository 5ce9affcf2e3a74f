import CGtk

/// Makers of the widgets the window uses, and what is read from or written to each kind.
public enum Make {
    public static func label(_ text: String = "", style: String? = nil, wrap: Bool = false) -> Widget {
        let label = Widget(gtk_label_new(text))
        if let style { label.style(style) }
        if wrap {
            gtk_label_set_wrap(label.opaque, 1)
            gtk_label_set_xalign(label.opaque, 0)
        }
        return label
    }

    public static func button(_ text: String, style: String? = nil) -> Widget {
        let button = Widget(gtk_button_new_with_label(text))
        if let style { button.style(style) }
        return button
    }

    /// A button showing an icon only: `name` is what a screen reader says (and its tooltip).
    public static func iconButton(_ icon: String, name: String) -> Widget {
        Widget(gtk_button_new_from_icon_name(icon)).accessibleName(name).tooltip(name)
    }

    public static func box(_ vertical: Bool, spacing: Int32 = 6, _ children: [Widget] = []) -> Widget {
        let box = Widget(gtk_box_new(vertical ? GTK_ORIENTATION_VERTICAL : GTK_ORIENTATION_HORIZONTAL, spacing))
        for child in children { box.append(child) }
        return box
    }

    /// A one-line text field; `name` is its accessible name, `hint` the placeholder.
    public static func entry(name: String, hint: String = "") -> Widget {
        let entry = Widget(gtk_entry_new()).accessibleName(name)
        gtk_entry_set_placeholder_text(entry.typed(), hint.isEmpty ? name : hint)
        return entry
    }

    public static func listBox() -> Widget {
        let list = Widget(gtk_list_box_new())
        gtk_list_box_set_selection_mode(list.opaque, GTK_SELECTION_NONE)
        return list.style("boxed-list")
    }

    public static func scrolled(_ child: Widget) -> Widget {
        let scrolled = Widget(gtk_scrolled_window_new())
        gtk_scrolled_window_set_child(scrolled.opaque, child.raw)
        gtk_scrolled_window_set_policy(scrolled.opaque, GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC)
        return scrolled.expand(vertically: true)
    }

    public static func dropDown(name: String) -> Widget {
        Widget(gtk_drop_down_new_from_strings(nil)).accessibleName(name)
    }

    public static func toggle(_ text: String) -> Widget { Widget(gtk_toggle_button_new_with_label(text)) }

    public static func check(_ text: String) -> Widget { Widget(gtk_check_button_new_with_label(text)) }

    public static func grid() -> Widget {
        let grid = Widget(gtk_grid_new())
        gtk_grid_set_column_spacing(grid.typed(), 12)
        gtk_grid_set_row_spacing(grid.typed(), 4)
        return grid
    }

    public static func picture() -> Widget { Widget(gtk_picture_new()) }

    public static func separator() -> Widget { Widget(gtk_separator_new(GTK_ORIENTATION_HORIZONTAL)) }
}

extension Widget {
    /// Adds a child to a box.
    public func append(_ child: Widget) { gtk_box_append(typed(), child.raw) }

    public func remove(_ child: Widget) { gtk_box_remove(typed(), child.raw) }

    /// A label's text.
    public var text: String {
        get { String(cString: gtk_label_get_text(opaque)) }
        set { if text != newValue { gtk_label_set_text(opaque, newValue) } }
    }

    public func setMarkup(_ markup: String) { gtk_label_set_markup(opaque, markup) }

    /// A button's label.
    public var buttonLabel: String {
        get { gtk_button_get_label(typed()).map { String(cString: $0) } ?? "" }
        set { gtk_button_set_label(typed(), newValue) }
    }

    /// An editable's text (entries, entry rows).
    public var editableText: String {
        get { String(cString: gtk_editable_get_text(opaque)) }
        set { if editableText != newValue { gtk_editable_set_text(opaque, newValue) } }
    }

    /// A toggle or check button's state.
    public var isActive: Bool {
        get { time_gtk_get_bool_property(object, "active") != 0 }
        set { time_gtk_set_bool_property(object, "active", newValue ? 1 : 0) }
    }

    /// A drop-down's choices, replaced whole; the selection moves to `selected` (or stays first).
    public func setChoices(_ choices: [String], selected: Int = 0) {
        var pointers = choices.map { strdup($0) } + [nil]
        let model = pointers.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) {
                gtk_string_list_new($0)
            }
        }
        for pointer in pointers { free(pointer) }
        gtk_drop_down_set_model(opaque, model)
        if let model { g_object_unref(UnsafeMutableRawPointer(model)) }
        gtk_drop_down_set_selected(opaque, UInt32(max(0, min(selected, choices.count - 1))))
    }

    public var selectedIndex: Int {
        get {
            let index = gtk_drop_down_get_selected(opaque)
            return index == UInt32.max ? -1 : Int(index)
        }
        set { gtk_drop_down_set_selected(opaque, UInt32(max(0, newValue))) }
    }

    /// Removes every row of a list box.
    public func removeAllRows() {
        while let row = gtk_widget_get_first_child(raw) { gtk_list_box_remove(opaque, row) }
    }

    public func appendRow(_ row: Widget) { gtk_list_box_append(opaque, row.raw) }

    /// Places a child in a grid.
    public func attach(_ child: Widget, column: Int32, row: Int32, width: Int32 = 1) {
        gtk_grid_attach(typed(), child.raw, column, row, width, 1)
    }

    /// Removes every child of a grid.
    public func removeAllChildren() {
        while let child = gtk_widget_get_first_child(raw) { gtk_grid_remove(typed(), child) }
    }

    /// Shows PNG (or other image) bytes in a picture; nothing when they cannot be read.
    public func showImage(_ bytes: [UInt8]) {
        let data = bytes.withUnsafeBytes { g_bytes_new($0.baseAddress, gsize($0.count)) }
        defer { g_bytes_unref(data) }
        var error: UnsafeMutablePointer<GError>?
        guard let texture = gdk_texture_new_from_bytes(data, &error) else {
            if let error { g_error_free(error) }
            return
        }
        gtk_picture_set_paintable(opaque, OpaquePointer(UnsafeMutableRawPointer(texture)))
        g_object_unref(UnsafeMutableRawPointer(texture))
    }
}
