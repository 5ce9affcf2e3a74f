import CGtk

/// A GLib timeout on the main loop, owned: cancelled when cancelled or dropped. One-shot unless
/// `repeating`; nothing else ticks.
public final class MainLoopTimer {
    private var source: guint = 0
    private let action: () -> Void
    private let repeating: Bool

    public init(milliseconds: UInt32, repeating: Bool = false, _ action: @escaping () -> Void) {
        self.action = action
        self.repeating = repeating
        source = g_timeout_add_full(G_PRIORITY_DEFAULT, milliseconds, timerFired,
                                    Unmanaged.passUnretained(self).toOpaque(), nil)
    }

    deinit { cancel() }

    public var isPending: Bool { source != 0 }

    public func cancel() {
        if source != 0 { g_source_remove(source) }
        source = 0
    }

    fileprivate func fire() -> Bool {
        if !repeating { source = 0 }
        action()
        return repeating && source != 0
    }
}

private func timerFired(_ data: gpointer?) -> gboolean {
    guard let data else { return 0 }
    return Unmanaged<MainLoopTimer>.fromOpaque(data).takeUnretainedValue().fire() ? 1 : 0
}
