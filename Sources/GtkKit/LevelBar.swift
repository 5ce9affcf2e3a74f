import CGtk

extension Make {
    /// A bar of how much is left, 0…1 (GtkLevelBar); `name` is what a screen reader says.
    public static func levelBar(name: String) -> Widget {
        Widget(gtk_level_bar_new_for_interval(0, 1)).accessibleName(name)
    }
}

extension Widget {
    /// A level bar's value, 0…1.
    public var level: Double {
        get { gtk_level_bar_get_value(opaque) }
        set { gtk_level_bar_set_value(opaque, min(1, max(0, newValue))) }
    }
}
