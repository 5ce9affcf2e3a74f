import CGtk

extension Make {
    /// Text that changes every second or so, drawn without a relayout (a label's new text resizes
    /// the window, which on X11 costs blocking round trips to the server at each change). Not seen
    /// by screen readers: give them the same thing in words that change less often.
    public static func tickingText(_ text: String = "", style: String? = nil) -> Widget {
        let widget = Widget(time_gtk_ticking_text_new())
        if let style { widget.style(style) }
        widget.hiddenFromScreenReaders()
        time_gtk_ticking_text_set(widget.raw, text)
        return widget
    }
}

extension Widget {
    /// The text of a `Make.tickingText` widget: a new text redraws it, nothing else.
    public var tickingText: String {
        get {
            guard let text = time_gtk_ticking_text_get(raw) else { return "" }
            return String(cString: text)
        }
        set { time_gtk_ticking_text_set(raw, newValue) }
    }
}
