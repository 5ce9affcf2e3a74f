"""The agent as the oracle of the window checks: its contract's calls and properties over the
session bus ($DBUS_SESSION_BUS_ADDRESS), through Gio (python3-gi)."""
import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402

NAME = "io.github.timetracker.Time1"
PATH = "/io/github/timetracker/Time1"
INTERFACE = NAME

_bus = None


def bus():
    global _bus
    if _bus is None:
        _bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
    return _bus


def call(method, signature=None, args=(), reply=None, timeout=10_000):
    parameters = GLib.Variant(f"({signature})", tuple(args)) if signature else None
    result = bus().call_sync(NAME, PATH, INTERFACE, method, parameters,
                             GLib.VariantType(reply) if reply else None,
                             Gio.DBusCallFlags.NO_AUTO_START, timeout, None)
    return result.unpack() if result is not None else None


def prop(name):
    value = bus().call_sync(NAME, PATH, "org.freedesktop.DBus.Properties", "Get",
                            GLib.Variant("(ss)", (INTERFACE, name)), GLib.VariantType("(v)"),
                            Gio.DBusCallFlags.NO_AUTO_START, 10_000, None)
    return value.unpack()[0]


def has_owner():
    reply = bus().call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                            "NameHasOwner", GLib.Variant("(s)", (NAME,)), GLib.VariantType("(b)"),
                            Gio.DBusCallFlags.NONE, 5_000, None)
    return reply.unpack()[0]


def state():
    try:
        return prop("State")
    except GLib.Error:
        return None


def projects():
    return call("ListProjects", reply="(aa{sv})")[0]


def project_id(name):
    return next((p["id"] for p in projects() if p["name"] == name), None)


def categories():
    return call("ListCategories", reply="(as)")[0]


def sessions(start, end, project=0):
    return call("ListSessions", "txx", (project, start, end), "(aa{sv})")[0]


def create_project(name, color="", category=""):
    return call("CreateProject", "sss", (name, color, category), "(t)")[0]


def add_category(name):
    call("AddCategory", "s", (name,))


def add_session(project, start, duration, note=""):
    return call("AddSession", "txss", (project, start, duration, note), "(t)")[0]


def start_project(name):
    return call("StartProject", "s", (name,), "(t)")[0]


def stop():
    return call("Stop", reply="(t)")[0]


def set_prop(name, signature, value):
    bus().call_sync(NAME, PATH, "org.freedesktop.DBus.Properties", "Set",
                    GLib.Variant("(ssv)", (INTERFACE, name, GLib.Variant(signature, value))), None,
                    Gio.DBusCallFlags.NO_AUTO_START, 10_000, None)


def report_json(range_name, **options):
    """`Report(range, {format: json, ...})`, parsed."""
    import json
    given = {"format": GLib.Variant("s", "json"), **{k: GLib.Variant("s", v) for k, v in options.items()}}
    return json.loads(call("Report", "sa{sv}", (range_name, given), "(s)")[0])
