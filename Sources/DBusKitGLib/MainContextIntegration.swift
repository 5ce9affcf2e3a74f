import CDBus
import CGLib
@_exported import DBusCore

extension BusConnection {
    /// Drives this connection from a GLib main context (nil: the global default context).
    /// Incoming calls, signals and replies are then dispatched from that context's loop.
    public func attachToMainContext(_ context: OpaquePointer? = nil) {
        guard let raw, driver == nil else { return }
        let integration = MainContextIntegration(connection: raw, context: context)
        driver = integration
        integration.attach()
    }
}

// libdbus on a GLib main context, the way dbus-gmain.c does it:
// - every enabled DBusWatch is a GLib unix-fd source calling dbus_watch_handle;
// - every enabled DBusTimeout is a GLib timeout source calling dbus_timeout_handle;
// - when libdbus has messages to dispatch, one idle source dispatches them (never re-entrantly).
// Nothing ticks: with no traffic the context has no ready sources and no timers.

// GLib constants (macros or enum values spelled out).
private let gTrue: gboolean = 1
private let gFalse: gboolean = 0
private let gSourceRemove: gboolean = 0
private let gSourceContinue: gboolean = 1
private let gIOIn: UInt32 = 1
private let gIOOut: UInt32 = 4
private let gIOErr: UInt32 = 8
private let gIOHup: UInt32 = 16
private let gIONval: UInt32 = 32

// DBusWatchFlags.
private let watchReadable: UInt32 = 1
private let watchWritable: UInt32 = 2
private let watchError: UInt32 = 4
private let watchHangup: UInt32 = 8

// DBusDispatchStatus.
private let dispatchDataRemains: UInt32 = 0

/// Owns the GLib sources that drive one connection; lives until the connection is closed.
final class MainContextIntegration: ConnectionDriver {
    let connection: OpaquePointer
    let context: OpaquePointer?
    private var idleSource: UnsafeMutablePointer<GSource>?
    private(set) var attached = false

    init(connection: OpaquePointer, context: OpaquePointer?) {
        self.connection = connection
        self.context = context
    }

    func attach() {
        let data = Unmanaged.passUnretained(self).toOpaque()
        attached = true
        dbus_connection_set_watch_functions(connection, addWatch, removeWatch, watchToggled, data, nil)
        dbus_connection_set_timeout_functions(connection, addTimeout, removeTimeout, timeoutToggled, data, nil)
        dbus_connection_set_dispatch_status_function(connection, dispatchStatusChanged, data, nil)
        dbus_connection_set_wakeup_main_function(connection, wakeupMain, data, nil)
        if dbus_connection_get_dispatch_status(connection).rawValue == dispatchDataRemains {
            scheduleDispatch()
        }
    }

    /// Removes every source this integration added (libdbus calls the remove functions for all
    /// current watches and timeouts when the functions are replaced).
    func detach() {
        guard attached else { return }
        attached = false
        dbus_connection_set_watch_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_timeout_functions(connection, nil, nil, nil, nil, nil)
        dbus_connection_set_dispatch_status_function(connection, nil, nil, nil)
        dbus_connection_set_wakeup_main_function(connection, nil, nil, nil)
        cancelDispatch()
    }

    // MARK: Watches

    func enableWatch(_ watch: OpaquePointer) {
        guard dbus_watch_get_data(watch) == nil, dbus_watch_get_enabled(watch) != 0 else { return }
        let flags = dbus_watch_get_flags(watch)
        var condition = gIOErr | gIOHup
        if flags & watchReadable != 0 { condition |= gIOIn }
        if flags & watchWritable != 0 { condition |= gIOOut }
        guard let source = g_unix_fd_source_new(dbus_watch_get_unix_fd(watch), GIOCondition(rawValue: condition)) else { return }
        let callback = unsafeBitCast(watchReady as GUnixFDSourceFunc, to: GSourceFunc.self)
        g_source_set_callback(source, callback, UnsafeMutableRawPointer(watch), nil)
        g_source_attach(source, context)
        dbus_watch_set_data(watch, UnsafeMutableRawPointer(source), nil)
    }

    func disableWatch(_ watch: OpaquePointer) {
        guard let data = dbus_watch_get_data(watch) else { return }
        let source = data.assumingMemoryBound(to: GSource.self)
        g_source_destroy(source)
        g_source_unref(source)
        dbus_watch_set_data(watch, nil, nil)
    }

    // MARK: Timeouts

    func enableTimeout(_ timeout: OpaquePointer) {
        guard dbus_timeout_get_data(timeout) == nil, dbus_timeout_get_enabled(timeout) != 0 else { return }
        let interval = max(0, dbus_timeout_get_interval(timeout))
        guard let source = g_timeout_source_new(guint(interval)) else { return }
        g_source_set_callback(source, timeoutFired, UnsafeMutableRawPointer(timeout), nil)
        g_source_attach(source, context)
        dbus_timeout_set_data(timeout, UnsafeMutableRawPointer(source), nil)
    }

    func disableTimeout(_ timeout: OpaquePointer) {
        guard let data = dbus_timeout_get_data(timeout) else { return }
        let source = data.assumingMemoryBound(to: GSource.self)
        g_source_destroy(source)
        g_source_unref(source)
        dbus_timeout_set_data(timeout, nil, nil)
    }

    // MARK: Dispatch

    func scheduleDispatch() {
        guard attached, idleSource == nil, let source = g_idle_source_new() else { return }
        g_source_set_callback(source, dispatchIdle, Unmanaged.passUnretained(self).toOpaque(), nil)
        g_source_attach(source, context)
        idleSource = source
    }

    private func cancelDispatch() {
        guard let source = idleSource else { return }
        idleSource = nil
        g_source_destroy(source)
        g_source_unref(source)
    }

    /// Runs from the idle source: dispatches until libdbus has nothing left.
    func dispatchAll() {
        if let source = idleSource {
            idleSource = nil
            g_source_unref(source)   // the source is removed when the callback returns G_SOURCE_REMOVE
        }
        dbus_connection_ref(connection)
        defer { dbus_connection_unref(connection) }
        while attached, dbus_connection_dispatch(connection).rawValue == dispatchDataRemains {}
    }
}

private func integration(_ data: UnsafeMutableRawPointer?) -> MainContextIntegration {
    Unmanaged<MainContextIntegration>.fromOpaque(data!).takeUnretainedValue()
}

private func addWatch(_ watch: OpaquePointer?, _ data: UnsafeMutableRawPointer?) -> dbus_bool_t {
    if let watch { integration(data).enableWatch(watch) }
    return 1
}

private func removeWatch(_ watch: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    if let watch { integration(data).disableWatch(watch) }
}

private func watchToggled(_ watch: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let watch else { return }
    if dbus_watch_get_enabled(watch) != 0 {
        integration(data).enableWatch(watch)
    } else {
        integration(data).disableWatch(watch)
    }
}

private func watchReady(_ fd: gint, _ condition: GIOCondition, _ data: gpointer?) -> gboolean {
    guard let data else { return gSourceRemove }
    let watch = OpaquePointer(data)
    var flags: UInt32 = 0
    if condition.rawValue & gIOIn != 0 { flags |= watchReadable }
    if condition.rawValue & gIOOut != 0 { flags |= watchWritable }
    if condition.rawValue & (gIOErr | gIONval) != 0 { flags |= watchError }
    if condition.rawValue & gIOHup != 0 { flags |= watchHangup }
    _ = dbus_watch_handle(watch, flags)
    return gSourceContinue
}

private func addTimeout(_ timeout: OpaquePointer?, _ data: UnsafeMutableRawPointer?) -> dbus_bool_t {
    if let timeout { integration(data).enableTimeout(timeout) }
    return 1
}

private func removeTimeout(_ timeout: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    if let timeout { integration(data).disableTimeout(timeout) }
}

private func timeoutToggled(_ timeout: OpaquePointer?, _ data: UnsafeMutableRawPointer?) {
    guard let timeout else { return }
    integration(data).disableTimeout(timeout)
    if dbus_timeout_get_enabled(timeout) != 0 { integration(data).enableTimeout(timeout) }
}

private func timeoutFired(_ data: gpointer?) -> gboolean {
    guard let data else { return gSourceRemove }
    // libdbus timeouts repeat until libdbus removes or disables them.
    _ = dbus_timeout_handle(OpaquePointer(data))
    return gSourceContinue
}

private func dispatchStatusChanged(_ connection: OpaquePointer?, _ status: DBusDispatchStatus, _ data: UnsafeMutableRawPointer?) {
    if status.rawValue == dispatchDataRemains { integration(data).scheduleDispatch() }
}

private func wakeupMain(_ data: UnsafeMutableRawPointer?) {
    g_main_context_wakeup(integration(data).context)
}

private func dispatchIdle(_ data: gpointer?) -> gboolean {
    // A handler may close the connection, which drops the integration: keep it alive until done.
    let object = integration(data)
    withExtendedLifetime(object) { object.dispatchAll() }
    return gSourceRemove
}
