import CGLib
import CNotify

/// One libnotify notification, owned by the notifier's worker thread. Dropping it disconnects
/// the handlers that point at the worker and releases the GObject, so no callback can reach a
/// notification the worker has let go of; `close()` also withdraws it from the server first.
final class LibnotifyNotification {
    private let handle: UnsafeMutablePointer<NotifyNotification>
    /// The worker, unretained: it owns every notification it is handed back in callbacks.
    private let worker: gpointer
    /// Sent as Notify's app_icon with every show (an update would otherwise clear it).
    private let icon: String?

    /// - Parameter watchClosing: the worker hears when the server closes it (dismissed, or an
    ///   action invoked), through `NotifierWorker.notificationClosed`.
    init(summary: String, body: String, worker: NotifierWorker, watchClosing: Bool) {
        // libnotify sends its icon as Notify's app_icon (an icon name, looked up in the theme).
        icon = worker.appIcon.isEmpty ? nil : worker.appIcon
        handle = notify_notification_new(summary, body, icon)
        self.worker = Unmanaged.passUnretained(worker).toOpaque()
        if watchClosing {
            typealias Closed = @convention(c) (gpointer?, gpointer?) -> Void
            g_signal_connect_data(gpointer(handle), "closed", unsafeBitCast(closedCallback as Closed, to: GCallback.self),
                                  self.worker, nil, GConnectFlags(0))
        }
    }

    deinit {
        g_signal_handlers_disconnect_matched(gpointer(handle), G_SIGNAL_MATCH_DATA, 0, 0, nil, nil, worker)
        g_object_unref(handle)
    }

    /// True when `pointer` is this notification (as a "closed" callback names it).
    func isThis(_ pointer: gpointer) -> Bool { gpointer(handle) == pointer }

    /// New text for a notification shown already: the next `show()` replaces it in place (same id).
    func update(summary: String, body: String) {
        _ = notify_notification_update(handle, summary, body, icon)
    }

    /// The hints every notification of ours carries, its urgency and how long it stays
    /// (0: until answered or dismissed, -1: the server's default, else milliseconds).
    func set(category: String, desktopEntry: String, urgency: NotifyUrgency, timeoutMilliseconds: Int32) {
        notify_notification_set_category(handle, category)
        notify_notification_set_hint(handle, "desktop-entry", g_variant_new_string(desktopEntry))
        notify_notification_set_urgency(handle, urgency)
        notify_notification_set_timeout(handle, timeoutMilliseconds)
    }

    func setHint(_ name: String, boolean: Bool) {
        notify_notification_set_hint(handle, name, g_variant_new_boolean(boolean ? 1 : 0))
    }

    func setHint(_ name: String, string: String) {
        notify_notification_set_hint(handle, name, g_variant_new_string(string))
    }

    /// Replaces the buttons; an invoked one reaches `NotifierWorker.actionInvoked` by its key.
    func setActions(_ actions: [NotificationActionSpec]) {
        notify_notification_clear_actions(handle)
        for action in actions {
            notify_notification_add_action(handle, action.key, action.label, actionCallback, worker, nil)
        }
    }

    /// Shows (or re-shows) it; the server's error message when that failed.
    func show() -> String? {
        var error: UnsafeMutablePointer<GError>?
        if notify_notification_show(handle, &error) != 0 { return nil }
        let message = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown error"
        if let error { g_error_free(error) }
        return message
    }

    /// Withdraws it from the server (a failure, e.g. no server, leaves nothing to withdraw).
    func close() {
        var error: UnsafeMutablePointer<GError>?
        if notify_notification_close(handle, &error) == 0, let error { g_error_free(error) }
    }
}

/// What the notification server says it can do (GetCapabilities); empty when none answers.
func notificationServerCapabilities() -> Set<String> {
    var capabilities = Set<String>()
    let list = notify_get_server_caps()
    var node = list
    while let current = node {
        if let name = current.pointee.data { capabilities.insert(String(cString: name.assumingMemoryBound(to: CChar.self))) }
        node = current.pointee.next
    }
    g_list_free_full(list, g_free)
    return capabilities
}

// C callbacks: named functions; the user data is the unretained NotifierWorker.

private func actionCallback(_ n: UnsafeMutablePointer<NotifyNotification>?,
                            _ action: UnsafeMutablePointer<CChar>?, _ data: gpointer?) {
    guard let data, let action else { return }
    // Valid only during this callback: the token lets the window we open take the focus.
    let token = n.flatMap { notify_notification_get_activation_token($0) }.map { String(cString: $0) } ?? ""
    Unmanaged<NotifierWorker>.fromOpaque(data).takeUnretainedValue().actionInvoked(String(cString: action), activationToken: token)
}

private func closedCallback(_ n: gpointer?, _ data: gpointer?) {
    guard let data, let n else { return }
    Unmanaged<NotifierWorker>.fromOpaque(data).takeUnretainedValue().notificationClosed(n)
}
