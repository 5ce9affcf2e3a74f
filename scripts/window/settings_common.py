"""What the Preferences, History and chart checks share (scripts/window/settings_checks.py): the
report lines, finding a toplevel by title, opening it from the main menu, a page of a view
switcher, the agent's properties, and a picture of a window."""
import os
import re
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agent  # noqa: E402
import atspi_tree as at  # noqa: E402
from gi.repository import Atspi  # noqa: E402


SWITCH = ("check box", "switch", "toggle button")


class Failure(Exception):
    pass


class Report:
    def __init__(self, output, pid):
        self.output, self.pid, self.failed = output, pid, 0

    def run(self, slug, title, function, *args):
        try:
            detail = function(*args)
            print(f"ok - {title}" + (f" ({detail})" if detail else ""), flush=True)
        except Exception as error:  # noqa: BLE001 (a failure, an action refused or a bug: all not ok)
            self.failed += 1
            kind = "" if isinstance(error, (Failure, at.ActionError)) else f"{type(error).__name__}: "
            print(f"not ok - {title}: {kind}{error}", flush=True)
            if not isinstance(error, Failure):
                traceback.print_exc(file=sys.stderr)
            try:
                path = os.path.join(self.output, f"window-tree-{slug}.txt")
                with open(path, "w") as f:
                    f.write(at.dump(at.nodes(self.pid)))
                print(f"#   the window's AT-SPI tree at that moment: {path}", flush=True)
            except Exception as dump_error:  # noqa: BLE001
                print(f"#   (no tree: {dump_error})", flush=True)


def toplevel(pid, title, timeout=10):
    """The nodes of the window titled `title`, waiting for it."""
    def probe():
        nodes = at.nodes(pid)
        tops = [t for t in at.windows(nodes) if t.name == title]
        return at.under(nodes, tops[-1]) if tops else None
    found = at.wait_for(probe, timeout)
    if not found:
        raise Failure(f"no window titled {title!r} (toplevels: {[t.name for t in at.windows(at.nodes(pid))]})")
    return found


def open_from_menu(pid, item, title):
    """Presses the main menu and its `item`; returns the nodes of the window titled `title`."""
    nodes = at.nodes(pid)
    if any(t.name == title for t in at.windows(nodes)):
        return toplevel(pid, title)
    menu = [n for n in at.buttons(nodes, "Main menu") if n.actions()]
    if not menu:
        raise Failure("no pressable `Main menu` button")
    at.press(menu[0])
    entries = at.wait_for(lambda: at.find(at.nodes(pid), name=item, roles=("menu item",)), 3)
    if not entries:
        raise Failure(f"the main menu has no item {item!r}")
    at.press(entries[0])
    return toplevel(pid, title)


def one(nodes, name, roles=None):
    found = [n for n in nodes if n.name == name and (roles is None or n.role in roles)]
    if not found:
        raise Failure(f"no control named {name!r}" + (f" ({'/'.join(roles)})" if roles else ""))
    return found[0]


def show_page(pid, title, page):
    """Selects a page of a window's view switcher, as a person does (GTK activates only a button
    that has been shown: one on a page never shown ignores its press)."""
    tabs = [n for n in toplevel(pid, title) if n.role == "page tab" and n.name == page and n.actions()]
    if not tabs:
        raise Failure(f"the {title} window has no page {page!r}")
    if "selected" not in tabs[0].states:
        at.press(tabs[0])
        time.sleep(0.5)


def properties():
    return agent.bus().call_sync(agent.NAME, agent.PATH, "org.freedesktop.DBus.Properties", "GetAll",
                                 agent.GLib.Variant("(s)", (agent.INTERFACE,)), agent.GLib.VariantType("(a{sv})"),
                                 agent.Gio.DBusCallFlags.NO_AUTO_START, 5000, None).unpack()[0]


def value_of(node):
    return Atspi.Value.get_current_value(node.acc)


def wait_prop(name, expected, timeout=3):
    if at.wait_for(lambda: agent.prop(name) == expected, timeout) is None:
        raise Failure(f"the agent's {name} is {agent.prop(name)!r}, not {expected!r}")


def shoot(pid, path, title="Time"):
    """The part of the screen of the window titled `title` (import -window root, cut to it)."""
    ids = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(pid)], capture_output=True, text=True).stdout.split()
    full = path + ".root.png"
    subprocess.run(["import", "-window", "root", full], check=True)
    for xid in ids:
        info = subprocess.run(["xwininfo", "-id", xid], capture_output=True, text=True).stdout
        name = subprocess.run(["xdotool", "getwindowname", xid], capture_output=True, text=True).stdout.strip()
        numbers = {k: int(v) for k, v in re.findall(r"(Absolute upper-left [XY]|Width|Height):\s+(-?\d+)", info)}
        if name == title and numbers.get("Width", 0) > 100:
            crop = f"{numbers['Width']}x{numbers['Height']}+{numbers['Absolute upper-left X']}+{numbers['Absolute upper-left Y']}"
            subprocess.run(["convert", full, "-crop", crop, "+repage", path], check=True)
            break
    else:
        os.replace(full, path)
    if os.path.exists(full):
        os.remove(full)


def bright_share(path):
    """The share of the picture's pixels that are near white (a light chart on a dark window)."""
    out = subprocess.run(["convert", path, "-colorspace", "gray", "-threshold", "85%", "-format", "%[fx:mean]", "info:"],
                         capture_output=True, text=True, check=True).stdout
    return float(out)
