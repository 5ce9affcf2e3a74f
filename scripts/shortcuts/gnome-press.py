#!/usr/bin/python3
"""Presses a key chord on headless GNOME Shell as a keyboard does, through Mutter's remote
desktop (org.gnome.Mutter.RemoteDesktop with a ScreenCast session of the virtual monitor): the
key events enter the compositor like a real keyboard's, so gsd-media-keys' grabs see them. For
scripts/test-shortcuts.sh.

    gnome-press.py KEYSYM...     e.g. Super_L F9: pressed in order, released in reverse
"""
import sys
import time

import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

KEYSYMS = {"Control_L": 0xffe3, "Super_L": 0xffeb, "Alt_L": 0xffe9, "Shift_L": 0xffe1,
           "F9": 0xffc6, "F10": 0xffc7, "t": 0x74}


def call(bus, path, interface, method, args=None, reply=None, name="org.gnome.Mutter.RemoteDesktop"):
    return bus.call_sync(name, path, interface, method, args, GLib.VariantType(reply) if reply else None,
                         Gio.DBusCallFlags.NONE, 10_000, None)


def main():
    keys = [KEYSYMS[k] for k in sys.argv[1:]]
    bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    session = call(bus, "/org/gnome/Mutter/RemoteDesktop", "org.gnome.Mutter.RemoteDesktop", "CreateSession",
                   reply="(o)").unpack()[0]
    session_id = call(bus, session, "org.freedesktop.DBus.Properties", "Get",
                      GLib.Variant("(ss)", ("org.gnome.Mutter.RemoteDesktop.Session", "SessionId")), "(v)").unpack()[0]
    cast = bus.call_sync("org.gnome.Mutter.ScreenCast", "/org/gnome/Mutter/ScreenCast", "org.gnome.Mutter.ScreenCast",
                         "CreateSession", GLib.Variant("(a{sv})", ({"remote-desktop-session-id": GLib.Variant("s", session_id)},)),
                         GLib.VariantType("(o)"), Gio.DBusCallFlags.NONE, 10_000, None).unpack()[0]
    bus.call_sync("org.gnome.Mutter.ScreenCast", cast, "org.gnome.Mutter.ScreenCast.Session", "RecordMonitor",
                  GLib.Variant("(sa{sv})", ("", {})), GLib.VariantType("(o)"), Gio.DBusCallFlags.NONE, 10_000, None)
    call(bus, session, "org.gnome.Mutter.RemoteDesktop.Session", "Start")
    rd = "org.gnome.Mutter.RemoteDesktop.Session"

    def key(sym, pressed):
        call(bus, session, rd, "NotifyKeyboardKeysym", GLib.Variant("(ub)", (sym, pressed)))
        time.sleep(0.05)
    # The virtual keyboard appears with its first key: a Control tap first (GTK's tests do so).
    key(KEYSYMS["Control_L"], True)
    key(KEYSYMS["Control_L"], False)
    time.sleep(0.3)
    for sym in keys:
        key(sym, True)
    for sym in reversed(keys):
        key(sym, False)
    time.sleep(0.5)
    call(bus, session, rd, "Stop")


if __name__ == "__main__":
    main()
