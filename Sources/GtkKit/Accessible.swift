import CGtk

extension Make {
    /// A box a screen reader meets as one label, its name set with `accessibleName`: for a display
    /// that changes too often to be announced each time (its children hidden from screen readers),
    /// said in words that change seldom.
    public static func spokenAsLabel(_ children: [Widget]) -> Widget {
        let box = Widget(time_gtk_box_new_as_label(GTK_ORIENTATION_VERTICAL, 0))
        for child in children { box.append(child) }
        return box
    }
}

extension Widget {
    /// Hidden from screen readers (still drawn): GTK then neither shows it over AT-SPI nor sends
    /// its changes to the accessibility bus.
    @discardableResult
    public func hiddenFromScreenReaders() -> Widget {
        time_gtk_set_accessible_hidden(raw, 1)
        return self
    }
}
