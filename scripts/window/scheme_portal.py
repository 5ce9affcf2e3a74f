#!/usr/bin/python3
"""A stand-in for xdg-desktop-portal's Settings on the test's private session bus, for
scripts/test-window.sh: it serves `org.freedesktop.appearance` `color-scheme` (0 default, 1 prefer
dark, 2 prefer light) as libadwaita reads it at start (`Read`, a variant in a variant), and on
SIGUSR1 switches between light and dark and says so with `SettingChanged`, as the desktop does
when a person changes its style. Anything else it is asked for is `NotFound`.

    scheme_portal.py [--dark]        owns org.freedesktop.portal.Desktop until SIGTERM
"""
import signal
import sys

import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

XML = """<node><interface name="org.freedesktop.portal.Settings">
<method name="Read"><arg type="s" name="namespace" direction="in"/><arg type="s" name="key" direction="in"/><arg type="v" name="value" direction="out"/></method>
<method name="ReadOne"><arg type="s" name="namespace" direction="in"/><arg type="s" name="key" direction="in"/><arg type="v" name="value" direction="out"/></method>
<method name="ReadAll"><arg type="as" name="namespaces" direction="in"/><arg type="a{sa{sv}}" name="value" direction="out"/></method>
<signal name="SettingChanged"><arg type="s" name="namespace"/><arg type="s" name="key"/><arg type="v" name="value"/></signal>
<property name="version" type="u" access="read"/>
</interface></node>"""
PATH = "/org/freedesktop/portal/desktop"
scheme = 1 if "--dark" in sys.argv else 0


def method(connection, sender, path, interface, name, parameters, invocation):
    if name in ("Read", "ReadOne"):
        namespace, key = parameters.unpack()
        if (namespace, key) == ("org.freedesktop.appearance", "color-scheme"):
            value = GLib.Variant("u", scheme)
            invocation.return_value(GLib.Variant("(v)", (GLib.Variant("v", value) if name == "Read" else value,)))
            return
        invocation.return_dbus_error("org.freedesktop.portal.Error.NotFound", f"{namespace}.{key} is not served here")
    elif name == "ReadAll":
        invocation.return_value(GLib.Variant("(a{sa{sv}})", ({"org.freedesktop.appearance": {"color-scheme": GLib.Variant("u", scheme)}},)))


def get_property(connection, sender, path, interface, name):
    return GLib.Variant("u", 1)


def main():
    loop = GLib.MainLoop()
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
    bus.register_object(PATH, info, method, get_property, None)

    def flip():
        global scheme
        scheme = 0 if scheme == 1 else 1
        bus.emit_signal(None, PATH, "org.freedesktop.portal.Settings", "SettingChanged",
                        GLib.Variant("(ssv)", ("org.freedesktop.appearance", "color-scheme", GLib.Variant("u", scheme))))
        return GLib.SOURCE_CONTINUE
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, flip)
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, lambda: loop.quit() or GLib.SOURCE_REMOVE)
    Gio.bus_own_name_on_connection(bus, "org.freedesktop.portal.Desktop", Gio.BusNameOwnerFlags.NONE, None, None)
    loop.run()


if __name__ == "__main__":
    main()
