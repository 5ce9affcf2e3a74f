#!/usr/bin/python3
"""Reads what a real tray host shows of Time's item, for scripts/test-tray.sh.

GNOME Shell (with the AppIndicator extension), through org.gnome.Shell.Eval in --unsafe-mode:
the panel button, its label, the icon file the extension loaded, the menu the extension built
from our dbusmenu, a click on one of its entries, and its watcher of our bus name replayed.
Plasma's system tray, over AT-SPI (the item's button and the context menu Plasma opens on a right
click, driven with xdotool).

What the agent means is read from its own dbusmenu (GetLayout with every property), so each
check compares the host's picture with the agent's, entry for entry. Runs with the system's
python3 (python3-gi, python3-pyatspi). Exit status 1 with both pictures printed on a mismatch.
"""
import argparse
import json
import subprocess
import sys
import time

import gi
gi.require_version("Gio", "2.0")
from gi.repository import Gio, GLib  # noqa: E402


def bus():
    return Gio.bus_get_sync(Gio.BusType.SESSION, None)


def call(destination, path, interface, method, arguments, reply_type, timeout=10_000):
    return bus().call_sync(destination, path, interface, method, arguments, GLib.VariantType(reply_type),
                           Gio.DBusCallFlags.NONE, timeout, None).unpack()


def unescaped(label):
    """A dbusmenu label without its mnemonic marks: "__" is "_", a lone "_" marks the key."""
    out, underscore = [], False
    for character in label:
        if character == "_" and not underscore:
            underscore = True
            continue
        underscore = False
        out.append(character)
    return "".join(out)


def agent_menu(item):
    """The agent's menu as a person should see it: visible entries, no separators."""
    _, root = call(item, "/MenuBar", "com.canonical.dbusmenu", "GetLayout",
                   GLib.Variant("(iias)", (0, -1, [])), "(u(ia{sv}av))")

    def entries(node):
        shown = []
        for child in node[2]:
            _, properties, _ = child
            if not properties.get("visible", True) or properties.get("type") == "separator":
                continue
            shown.append({"label": unescaped(properties.get("label", "")),
                          "enabled": properties.get("enabled", True),
                          "mark": properties.get("toggle-state", 0) == 1 if "toggle-type" in properties else False,
                          "submenu": entries(child)})
        return shown
    return entries(root)


# MARK: GNOME Shell

def shell_eval(script):
    ok, result = call("org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell", "Eval",
                      GLib.Variant("(s)", (script,)), "(bs)")
    if not ok:
        raise RuntimeError(f"org.gnome.Shell.Eval failed: {result}")
    return json.loads(json.loads(result)) if result else None


def button(item):
    return f'Main.panel.statusArea[{json.dumps("appindicator-" + item)}]'


def gnome_item(item):
    """The panel button of the item: label, glyphs its font lacks, icon file, where the icon is."""
    return shell_eval(f"""(() => {{
        const b = {button(item)};
        if (!b) return JSON.stringify(null);
        const icon = b._icon, gicon = icon.gicon && icon.gicon.get_icon ? icon.gicon.get_icon() : null;
        const [x, y] = icon.get_transformed_position(), [w, h] = icon.get_transformed_size();
        return JSON.stringify({{
            label: b._indicator.label || "", shownLabel: b._label ? b._label.text : "",
            unknownGlyphs: b._label ? b._label.clutter_text.get_layout().get_unknown_glyphs_count() : -1,
            iconFile: gicon && gicon.get_file ? gicon.get_file().get_path() : null,
            accessibleName: b.accessible_name || "", visible: b.visible,
            icon: [Math.round(x), Math.round(y), Math.round(w), Math.round(h)]}});
    }})()""")


def gnome_menu(item):
    """The menu the extension built: visible entries, text, sensitivity, radio or check mark."""
    return shell_eval(f"""(() => {{
        const PM = imports.ui.popupMenu, b = {button(item)};
        if (!b) return JSON.stringify(null);
        const view = menu => menu._getMenuItems()
            .filter(i => i.visible && !(i instanceof PM.PopupSeparatorMenuItem))
            .map(i => ({{label: i.label ? i.label.text : "", enabled: i.sensitive,
                        mark: i._ornament === PM.Ornament.DOT || i._ornament === PM.Ornament.CHECK,
                        submenu: i.menu ? view(i.menu) : []}}));
        return JSON.stringify(view(b.menu));
    }})()""")


def gnome_activate(item, label):
    """Clicks an entry of the extension's menu; with a real event, as a person's click has."""
    return shell_eval(f"""(() => {{
        const Clutter = imports.gi.Clutter, b = {button(item)};
        const all = menu => menu._getMenuItems().flatMap(i => [i].concat(i.menu ? all(i.menu) : []));
        const entry = b && all(b.menu).find(i => i.label && i.label.text === {json.dumps(label)});
        if (!entry) return JSON.stringify(false);
        b.menu.open();
        const event = Clutter.Event.new(Clutter.EventType.BUTTON_RELEASE);
        event.set_time(global.get_current_time());
        entry.activate(event);
        return JSON.stringify(true);
    }})()""")


def gnome_open_menu(item, open_it):
    """Opens (or closes) the item's menu; where it is on the screen, once open."""
    return shell_eval(f"""(() => {{
        const b = {button(item)};
        if (!b) return JSON.stringify(null);
        if (!{json.dumps(open_it)}) {{ b.menu.close(); return JSON.stringify([]); }}
        // The shell's own banners (it warns a root session) would cover part of the picture.
        Main.messageTray.getSources().forEach(source => source.destroy());
        b.menu.open();
        const [x, y] = b.menu.actor.get_transformed_position(), [w, h] = b.menu.actor.get_transformed_size();
        return JSON.stringify([x, y, w, h].map(Math.round));
    }})()""")


def gnome_items():
    """The keys of every AppIndicator button in the top bar."""
    return shell_eval("""JSON.stringify(Object.keys(Main.panel.statusArea).filter(k => k.startsWith("appindicator-")))""")


def gnome_name_appeared(item):
    """Replays what the extension does when its watcher of the item's bus name reports the name
    (at a login it often does so after it has read the item): it clears the item's Id and Menu and
    asks for them again. Its own refresh then fails (it compares the answer with the cleared
    value), so the item must tell them again, or the button never gets ready or loses its menu."""
    return shell_eval(f"""(() => {{
        const b = {button(item)};
        if (!b || !b._indicator._nameWatcher) return JSON.stringify(null);
        b._indicator._nameWatcher.emit("changed");
        return JSON.stringify({{id: b._indicator.id, menuPath: b._indicator.menuPath}});
    }})()""")


def gnome_identity(item):
    """What the extension holds of the item's Id and Menu (it builds the menu from the latter), and
    whether it counts the item ready (only a ready item gets its label, icon and menu drawn)."""
    return shell_eval(f"""(() => {{
        const b = {button(item)};
        if (!b) return JSON.stringify(null);
        const i = b._indicator;
        return JSON.stringify({{id: i.id, menuPath: i.menuPath, ready: !!i.isReady}});
    }})()""")


# MARK: Plasma

def plasma_button():
    import pyatspi
    desktop = pyatspi.Registry.getDesktop(0)

    def walk(node):
        yield node
        for index in range(node.childCount):
            child = node.getChildAtIndex(index)
            if child is not None:
                yield from walk(child)
    for application in desktop:
        if application is None or application.name != "plasmawindowed":
            continue
        for node in walk(application):
            if node.getRoleName() == "push button" and node.name.startswith("Time"):
                return node
    return None


def plasma_item():
    button = plasma_button()
    if button is None:
        return None
    import pyatspi
    x, y, w, h = button.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
    return {"name": button.name, "description": button.description, "extents": [x, y, w, h]}


def plasma_menu():
    """Right-clicks the item and reads the menu Plasma opens (found through its "showing" event:
    Qt does not list a popup among the application's windows), then closes it."""
    import pyatspi
    item = plasma_item()
    if item is None:
        return None
    x, y, w, h = item["extents"]
    seen = []

    def showing(event):
        source = event.source
        if source is None or source.getRoleName() != "popup menu" or not event.detail1:
            return
        entries = []
        for index in range(source.childCount):
            child = source.getChildAtIndex(index)
            if child is None or child.getRoleName() == "separator":
                continue
            state = child.getState()
            if not state.contains(pyatspi.STATE_VISIBLE):
                continue
            entries.append({"label": child.name, "enabled": state.contains(pyatspi.STATE_ENABLED)})
        seen.append(entries)
        pyatspi.Registry.stop()

    def click():
        subprocess.run(["xdotool", "mousemove", str(x + w // 2), str(y + h // 2), "click", "3"], check=True)
        return False

    def give_up():
        pyatspi.Registry.stop()
        return False
    pyatspi.Registry.registerEventListener(showing, "object:state-changed:showing")
    GLib.timeout_add(300, click)
    GLib.timeout_add(8000, give_up)
    pyatspi.Registry.start()
    pyatspi.Registry.deregisterEventListener(showing, "object:state-changed:showing")
    subprocess.run(["xdotool", "key", "Escape"], check=False)
    return seen[0] if seen else None


def top_level(menu):
    return [{"label": entry["label"], "enabled": entry["enabled"]} for entry in menu]


# MARK: Checks

def settle(step, seconds, host, truth):
    """Polls until the host shows what the agent means; prints both when it never does."""
    deadline = time.monotonic() + seconds
    while True:
        shown, meant = host(), truth()
        if shown == meant:
            return shown
        if time.monotonic() > deadline:
            print(f"after {step}, the host shows:\n  {json.dumps(shown, ensure_ascii=False)}\n"
                  f"but the agent means:\n  {json.dumps(meant, ensure_ascii=False)}", file=sys.stderr)
            sys.exit(1)
        time.sleep(0.3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["agent-menu", "gnome-item", "gnome-items", "gnome-menu", "gnome-check",
                                            "gnome-activate", "gnome-open-menu", "gnome-close-menu",
                                            "gnome-name-appeared", "gnome-identity",
                                            "plasma-item", "plasma-menu", "plasma-check"])
    parser.add_argument("--item", help="the item's bus name, org.kde.StatusNotifierItem-PID-1")
    parser.add_argument("--step", default="the change", help="what just happened (for the message)")
    parser.add_argument("--label", help="the entry to click (gnome-activate)")
    parser.add_argument("--seconds", type=float, default=10)
    arguments = parser.parse_args()
    command, item = arguments.command, arguments.item
    if command == "agent-menu":
        result = agent_menu(item)
    elif command == "gnome-item":
        result = gnome_item(item)
    elif command == "gnome-items":
        result = gnome_items()
    elif command == "gnome-menu":
        result = gnome_menu(item)
    elif command == "gnome-check":
        result = settle(arguments.step, arguments.seconds, lambda: gnome_menu(item), lambda: agent_menu(item))
    elif command == "gnome-activate":
        result = gnome_activate(item, arguments.label)
        if not result:
            sys.exit(f"the extension's menu has no entry {arguments.label!r}")
    elif command in ("gnome-open-menu", "gnome-close-menu"):
        result = gnome_open_menu(item, command == "gnome-open-menu")
    elif command == "gnome-name-appeared":
        result = gnome_name_appeared(item)
    elif command == "gnome-identity":
        result = gnome_identity(item)
    elif command == "plasma-item":
        result = plasma_item()
    elif command == "plasma-menu":
        result = plasma_menu()
    else:
        result = settle(arguments.step, arguments.seconds, lambda: plasma_menu(), lambda: top_level(agent_menu(item)))
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    main()
