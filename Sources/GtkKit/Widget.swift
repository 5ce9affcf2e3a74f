import CGtk

/// A GTK widget held by Swift: one strong reference to its GObject (the floating one sunk), given
/// back when the handle goes. Knows nothing of what the widget is for.
public final class Widget {
    public let raw: UnsafeMutablePointer<GtkWidget>

    /// Takes a freshly made widget (GTK's constructors return it floating).
    public init(_ made: UnsafeMutablePointer<GtkWidget>?) {
        guard let made else { fatalError("GTK returned no widget: out of memory") }
        raw = made
        g_object_ref_sink(UnsafeMutableRawPointer(made))
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(raw)) }

    /// The widget as the typed pointer a GTK function of a derivable class takes (`GtkBox *`).
    public func typed<T>() -> UnsafeMutablePointer<T> {
        UnsafeMutableRawPointer(raw).assumingMemoryBound(to: T.self)
    }

    /// The widget as the opaque pointer a GTK function of a final class takes (`GtkLabel *`).
    public var opaque: OpaquePointer { OpaquePointer(raw) }

    public var object: UnsafeMutableRawPointer { UnsafeMutableRawPointer(raw) }

    // MARK: What every widget has

    public var isSensitive: Bool {
        get { gtk_widget_get_sensitive(raw) != 0 }
        set { gtk_widget_set_sensitive(raw, newValue ? 1 : 0) }
    }

    public var isVisible: Bool {
        get { gtk_widget_get_visible(raw) != 0 }
        set { gtk_widget_set_visible(raw, newValue ? 1 : 0) }
    }

    /// The name a screen reader says and tests find it by (a button with a label has its label).
    @discardableResult
    public func accessibleName(_ name: String) -> Widget {
        time_gtk_set_accessible_label(raw, name)
        return self
    }

    /// What a screen reader reads after the name.
    @discardableResult
    public func accessibleDescription(_ text: String) -> Widget {
        time_gtk_set_accessible_description(raw, text)
        return self
    }

    @discardableResult
    public func tooltip(_ text: String) -> Widget {
        gtk_widget_set_tooltip_text(raw, text)
        return self
    }

    @discardableResult
    public func style(_ classes: String...) -> Widget {
        for name in classes { gtk_widget_add_css_class(raw, name) }
        return self
    }

    public func removeStyle(_ name: String) { gtk_widget_remove_css_class(raw, name) }

    @discardableResult
    public func margins(_ all: Int32) -> Widget {
        gtk_widget_set_margin_top(raw, all)
        gtk_widget_set_margin_bottom(raw, all)
        gtk_widget_set_margin_start(raw, all)
        gtk_widget_set_margin_end(raw, all)
        return self
    }

    @discardableResult
    public func expand(horizontally: Bool = false, vertically: Bool = false) -> Widget {
        gtk_widget_set_hexpand(raw, horizontally ? 1 : 0)
        gtk_widget_set_vexpand(raw, vertically ? 1 : 0)
        return self
    }

    @discardableResult
    public func align(_ horizontal: GtkAlign, _ vertical: GtkAlign = GTK_ALIGN_FILL) -> Widget {
        gtk_widget_set_halign(raw, horizontal)
        gtk_widget_set_valign(raw, vertical)
        return self
    }

    @discardableResult
    public func width(_ pixels: Int32) -> Widget {
        gtk_widget_set_size_request(raw, pixels, -1)
        return self
    }

    public func grabFocus() { _ = gtk_widget_grab_focus(raw) }

    /// The top-level window this widget is in, if it is in one yet.
    public var window: UnsafeMutablePointer<GtkWindow>? {
        guard let root = gtk_widget_get_root(raw) else { return nil }
        return UnsafeMutableRawPointer(root).assumingMemoryBound(to: GtkWindow.self)
    }
}

/// A GObject pointer as the typed pointer a C function takes (GTK's casting macros, which Swift
/// cannot call, check the type at run time; here the caller knows it).
@inline(__always)
public func cast<T>(_ pointer: UnsafeMutableRawPointer) -> UnsafeMutablePointer<T> {
    pointer.assumingMemoryBound(to: T.self)
}
