#!/usr/bin/python3
"""Preferences and History of the real window, driven over AT-SPI for scripts/test-window.sh,
with the agent (its properties over the session bus) and the autostart folder as the oracles.

    settings_checks.py preferences --pid PID --output DIR --timectl T --autostart-system FILE
    settings_checks.py history --pid PID --output DIR --timectl T
    settings_checks.py scheme --pid PID --output DIR --portal-pid P   (scripts/window/scheme_portal.py's pid)
    settings_checks.py picture --pid PID --output DIR [--suffix=-dark]   pictures of Preferences

Opens each from the main menu as a person does (the `Main menu` button, then its item), finds
each control by role and accessible name, sets spin buttons through AT-SPI's Value, types through
EditableText, presses buttons and switches through their actions. One line per check (`ok - ` or
`not ok - `); on a failure the window's AT-SPI tree goes to DIR/window-tree-<check>.txt.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agent  # noqa: E402
import atspi_tree as at  # noqa: E402
from gi.repository import Atspi  # noqa: E402

# Exactly these names (the list): tests and screen readers find the controls by them.
PREFERENCE_NAMES = ("Minutes between reminders", "Minutes before the not-tracking reminder",
                    "Idle minutes that count as away", "Weekly target in hours", "Currency", "Start at login", "Keyboard shortcut",
                    "Sync folder", "Device name", "Turn sync on", "Open folder", "Export everything")
SWITCH = ("check box", "switch", "toggle button")
FOCUS_NAMES = ("Start the next phase by itself", "Pause during breaks")


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


def toplevel(pid, title, timeout=5):
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


# MARK: Preferences

def check_names(pid):
    nodes = toplevel(pid, "Preferences")
    has_focus = "FocusMinutes" in properties()
    wanted = PREFERENCE_NAMES + (FOCUS_NAMES if has_focus else ())
    missing = [name for name in wanted if not any(n.name == name for n in nodes if n.role not in ("label",))]
    twice = sorted({f"{n.role} {n.name!r}" for n in nodes if at.doubled(n.name) and n.role != "label"})
    if missing or twice:
        raise Failure("; ".join(filter(None, [missing and f"missing: {missing}", twice and f"said twice: {twice}"])))
    if not has_focus and any(n.name in FOCUS_NAMES for n in nodes):
        raise Failure("the Focus group shows although the agent has no focus timer")
    return f"{len(wanted)} names, each once" + ("" if has_focus else "; the agent has no focus timer: its group is hidden")


def check_reminder_to_agent(pid):
    spin = one(toplevel(pid, "Preferences"), "Minutes between reminders", ("spin button",))
    before = agent.prop("ReminderMinutes")
    target = 45 if before != 45 else 50
    if not Atspi.Value.set_current_value(spin.acc, float(target)):
        raise Failure("the spin button refused the value")
    wait_prop("ReminderMinutes", target)
    return f"{before} -> {target}"


def check_agent_to_rows(pid, timectl):
    subprocess.run([timectl, "reminders", "25"], check=True, capture_output=True)
    subprocess.run(["busctl", "--user", "set-property", agent.NAME, agent.PATH, agent.INTERFACE, "AwayMinutes", "u", "7"],
                   check=True, capture_output=True)

    def shown():
        nodes = toplevel(pid, "Preferences")
        return (value_of(one(nodes, "Minutes between reminders", ("spin button",))),
                value_of(one(nodes, "Idle minutes that count as away", ("spin button",))))
    if at.wait_for(lambda: shown() == (25.0, 7.0), 1.0) is None:
        raise Failure(f"the rows show {shown()}, not (25, 7), a second after timectl and busctl set them")
    return "timectl reminders 25 and busctl AwayMinutes 7 shown within a second"


def check_weekly_target(pid):
    spin = one(toplevel(pid, "Preferences"), "Weekly target in hours", ("spin button",))
    Atspi.Value.set_current_value(spin.acc, 32.0)
    wait_prop("WeeklyTarget", 32 * 3600)
    return "32 h -> WeeklyTarget 115200"


def check_currency(pid):
    nodes = toplevel(pid, "Preferences")
    field = at.editables(nodes, "Currency")
    if not field:
        raise Failure("no text field named 'Currency'")
    at.type_into(field[0], "chf")
    at.press(one(nodes, "Set currency", at.BUTTON_ROLES))
    wait_prop("Currency", "CHF")
    # A refusal: the agent's own words, as it gives them to any caller (nothing changes by a refused Set).
    try:
        agent.bus().call_sync(agent.NAME, agent.PATH, "org.freedesktop.DBus.Properties", "Set",
                              agent.GLib.Variant("(ssv)", (agent.INTERFACE, "Currency", agent.GLib.Variant("s", "EURO"))),
                              None, agent.Gio.DBusCallFlags.NO_AUTO_START, 5000, None)
        raise Failure("the agent took EURO as a currency: no refusal to show")
    except agent.GLib.Error as error:
        words = error.message.split(": ", 1)[-1] if error.message.startswith("GDBus.Error") else error.message
    at.type_into(field[0], "EURO")
    at.press(one(toplevel(pid, "Preferences"), "Set currency", at.BUTTON_ROLES))

    def said():
        return [n for n in toplevel(pid, "Preferences") if n.role == "label" and n.text() == words]
    if not at.wait_for(said, 3):
        labels = [n.text() for n in toplevel(pid, "Preferences") if n.role == "label" and "urrenc" in n.text()]
        raise Failure(f"the agent's refusal {words!r} is not shown (labels about the currency: {labels})")
    if agent.prop("Currency") != "CHF":
        raise Failure(f"the refused currency changed it to {agent.prop('Currency')!r}")
    return f"CHF set; EURO refused in the agent's words: {words!r}"


def check_sync(pid, folder):
    show_page(pid, "Preferences", "Sync and data")
    nodes = toplevel(pid, "Preferences")
    field = at.editables(nodes, "Sync folder")
    if not field:
        raise Failure("no text field named 'Sync folder'")
    at.type_into(field[0], folder)
    at.press(one(nodes, "Turn sync on", at.BUTTON_ROLES))
    wait_prop("SyncFolder", folder, timeout=10)
    off = at.wait_for(lambda: [n for n in at.buttons(toplevel(pid, "Preferences"), "Turn sync off")], 3)
    if not off:
        raise Failure("sync is on but no `Turn sync off` button shows")
    state = agent.prop("SyncState")
    # The devices seen: this one, under the name offered (the host name), with its newest change.
    names = [device[1] for device in agent.prop("Devices")]
    if not names or not at.wait_for(lambda: all(any(n.name == name and n.role == "list item"
                                                    for n in toplevel(pid, "Preferences")) for name in names), 3):
        raise Failure(f"the devices seen {names} are not listed")
    at.press(off[0])
    wait_prop("SyncFolder", "")
    if not at.wait_for(lambda: at.buttons(toplevel(pid, "Preferences"), "Turn sync on"), 3):
        raise Failure("sync is off again but `Turn sync on` does not show")
    return f"SyncFolder {folder} (SyncState {state}; devices listed: {names}), then off"


def check_login_start(pid, system_entry):
    override = os.path.join(os.environ["XDG_CONFIG_HOME"], "autostart", "time-agent.desktop")
    show_page(pid, "Preferences", "General")
    switch = one(toplevel(pid, "Preferences"), "Start at login", SWITCH)
    if os.path.exists(override):
        raise Failure(f"{override} exists before the test")
    if "checked" not in switch.states:
        raise Failure(f"with {system_entry} in force the switch is off ({switch.states})")
    at.press(switch)
    if not at.wait_for(lambda: os.path.exists(override), 3):
        raise Failure(f"turned off, but no override at {override}")
    text = open(override).read()
    if "Hidden=true" not in text.splitlines():
        raise Failure(f"the override does not hide the entry: {text!r}")
    if at.wait_for(lambda: "checked" not in one(toplevel(pid, "Preferences"), "Start at login", SWITCH).states, 2) is None:
        raise Failure("the switch still shows on")
    at.press(one(toplevel(pid, "Preferences"), "Start at login", SWITCH))
    if not at.wait_for(lambda: not os.path.exists(override), 3):
        raise Failure(f"turned on again, the override {override} stays (the system's entry starts it)")
    return f"off: {override} with Hidden=true; on: the override removed, {system_entry} in force"


TOGGLE = ("busctl --user call io.github.timetracker.Time1 /io/github/timetracker/Time1 "
          "io.github.timetracker.Time1 Toggle")


def xfce_custom():
    """Xfce's custom commands as its own tool lists them: property -> command."""
    out = subprocess.run(["xfconf-query", "-c", "xfce4-keyboard-shortcuts", "-p", "/commands/custom", "-l", "-v"],
                         capture_output=True, text=True).stdout
    return dict(line.split(None, 1) for line in out.splitlines() if line.startswith("/commands/custom/") and " " in line)


def check_shortcut(pid):
    """Xfce (XDG_CURRENT_DESKTOP=XFCE, xfconfd on the test's bus): the key typed in the capture
    dialog is written to the xfce4-keyboard-shortcuts channel (read back with xfconf-query), shown
    in the row, and removed again; another custom shortcut stays."""
    show_page(pid, "Preferences", "General")
    subprocess.run(["xfconf-query", "-c", "xfce4-keyboard-shortcuts", "-p", "/commands/custom/<Super>e", "-n", "-t", "string",
                    "-s", "thunar"], check=True)
    at.press(one(toplevel(pid, "Preferences"), "Keyboard shortcut", at.BUTTON_ROLES))
    nodes = toplevel(pid, "Keyboard Shortcut")
    field = at.editables(nodes, "Key")
    if not field:
        raise Failure("the capture dialog has no field named 'Key'")
    at.type_into(field[0], "Super+T")
    at.press(one(nodes, "Set", at.BUTTON_ROLES))
    if at.wait_for(lambda: xfce_custom().get("/commands/custom/<Super>t") == TOGGLE, 3) is None:
        raise Failure(f"xfconf-query reads {xfce_custom()}, not <Super>t -> the Toggle call")
    if at.wait_for(lambda: any(n.name == "Keyboard shortcut" and n.role in at.BUTTON_ROLES and
                               any(t.text() == "Super+T" for t in at.under(toplevel(pid, "Preferences"), n))
                               for n in toplevel(pid, "Preferences")), 3) is None:
        raise Failure("the row does not show Super+T")
    at.press(one(toplevel(pid, "Preferences"), "Remove the shortcut", at.BUTTON_ROLES))
    if at.wait_for(lambda: "/commands/custom/<Super>t" not in xfce_custom(), 3) is None:
        raise Failure(f"removed, xfconf-query still reads {xfce_custom()}")
    if xfce_custom().get("/commands/custom/<Super>e") != "thunar":
        raise Failure(f"the person's own shortcut <Super>e went: {xfce_custom()}")
    # A real key press in the capture dialog (XTEST through xdotool, the dialog focused).
    at.press(one(toplevel(pid, "Preferences"), "Keyboard shortcut", at.BUTTON_ROLES))
    toplevel(pid, "Keyboard Shortcut")
    wid = subprocess.run(["xdotool", "search", "--name", "^Keyboard Shortcut$"], capture_output=True, text=True).stdout.split()
    if not wid:
        raise Failure("the capture dialog is not on the X display")
    subprocess.run(["xdotool", "windowfocus", "--sync", wid[0]], check=True)
    time.sleep(0.3)
    subprocess.run(["xdotool", "key", "super+F9"], check=True)
    if at.wait_for(lambda: xfce_custom().get("/commands/custom/<Super>F9") == TOGGLE, 3) is None:
        raise Failure(f"after pressing Super+F9 in the dialog xfconf-query reads {xfce_custom()}")
    at.press(one(toplevel(pid, "Preferences"), "Remove the shortcut", at.BUTTON_ROLES))
    if at.wait_for(lambda: "/commands/custom/<Super>F9" not in xfce_custom(), 3) is None:
        raise Failure(f"removed, xfconf-query still reads {xfce_custom()}")
    return ("typed Super+T: xfconf-query reads <Super>t -> busctl ... Toggle, the row shows Super+T; removed; "
            "Super+F9 pressed in the dialog: <Super>F9; removed; <Super>e kept")


def command_preferences(args):
    report = Report(args.output, args.pid)
    at.wait_for(lambda: at.windows(at.nodes(args.pid)), 20, interval=0.1)
    report.run("prefs-open", "P0. Preferences opens from the main menu", lambda: bool(open_from_menu(args.pid, "Preferences", "Preferences")) and None)
    report.run("prefs-names", "P0. Preferences: every control named, each once", check_names, args.pid)
    report.run("prefs-reminder", "P1. the reminder spin button sets ReminderMinutes", check_reminder_to_agent, args.pid)
    report.run("prefs-follow", "P2. timectl/busctl changes show in the open Preferences", check_agent_to_rows, args.pid, args.timectl)
    report.run("prefs-target", "P3. the weekly target", check_weekly_target, args.pid)
    report.run("prefs-currency", "P4. the currency, and the agent's refusal in its words", check_currency, args.pid)
    report.run("prefs-sync", "P5. sync turned on with a folder, then off", check_sync, args.pid, args.sync_folder)
    report.run("prefs-login", "P6. Start at login off writes the override, on removes it", check_login_start,
               args.pid, args.autostart_system)
    report.run("prefs-shortcut", "P7. Keyboard shortcut set in its dialog, read back from Xfce's channel, removed",
               check_shortcut, args.pid)
    return report


# MARK: History

def newest_step():
    return agent.call("History", "u", (1,), "(aa{sv})")[0][0]


def history_rows(pid):
    """The History window's rows: (name, the texts under it), newest first."""
    nodes = toplevel(pid, "History")
    return [(row.name, [n.text() for n in at.under(nodes, row) if n.role == "label"])
            for row in nodes if row.role == "list item"]


def check_history_lists_newest(pid, timectl):
    subprocess.run([timectl, "reminders", "33"], check=True, capture_output=True)
    open_from_menu(pid, "History", "History")
    newest = newest_step()["description"]
    rows = at.wait_for(lambda: history_rows(pid), 3)
    if not rows or rows[0][0] != newest:
        raise Failure(f"the first row is {rows[0] if rows else None!r}, the agent's newest step {newest!r}")
    return f"{len(rows)} steps, newest {newest!r} first, with its time {rows[0][1][-1]!r}"


def check_history_follows(pid, timectl):
    subprocess.run([timectl, "reminders", "34"], check=True, capture_output=True)
    newest = newest_step()["description"]
    if at.wait_for(lambda: (history_rows(pid) or [("", [])])[0][0] == newest, 1.0) is None:
        raise Failure(f"a second after timectl the first row is {history_rows(pid)[:1]!r}, not {newest!r}")
    return f"{newest!r} shown within a second"


def check_history_undo_redo(pid):
    newest = newest_step()["description"]
    at.press(one(toplevel(pid, "History"), "Undo", at.BUTTON_ROLES))
    if at.wait_for(lambda: newest_step()["undone"], 3) is None:
        raise Failure("Undo in the History window did not undo the newest step")

    def marked():
        rows = history_rows(pid)
        return rows and rows[0][0] == newest and any(t.startswith("Undone") for t in rows[0][1])
    if not at.wait_for(marked, 2):
        raise Failure(f"the undone step is not marked: {history_rows(pid)[:1]!r}")
    at.press(one(toplevel(pid, "History"), "Redo", at.BUTTON_ROLES))
    if at.wait_for(lambda: not newest_step()["undone"], 3) is None:
        raise Failure("Redo in the History window did not redo it")
    if at.wait_for(lambda: not any(t.startswith("Undone") for t in history_rows(pid)[0][1]), 2) is None:
        raise Failure("redone, the step is still marked undone")
    return f"{newest!r} undone (marked), then redone"


def command_history(args):
    report = Report(args.output, args.pid)
    at.wait_for(lambda: at.windows(at.nodes(args.pid)), 20, interval=0.1)
    report.run("history-newest", "H1. History from the main menu lists the agent's newest step first",
               check_history_lists_newest, args.pid, args.timectl)
    report.run("history-follows", "H2. a change made with timectl shows in the open History", check_history_follows,
               args.pid, args.timectl)
    report.run("history-undo", "H3. Undo and Redo in History", check_history_undo_redo, args.pid)
    return report


# MARK: The chart follows the colour scheme

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


def select_main_page(pid, name):
    nodes = at.nodes(pid)
    main = next((t for t in at.windows(nodes) if t.role == "frame" and t.name == "Time"), None)
    tabs = [n for n in at.under(nodes, main) if n.name == name and n.role == "page tab" and n.actions()] if main else []
    if not tabs:
        raise Failure(f"no view-switcher page {name!r} in the main window")
    at.press(tabs[0])


def check_chart_follows_scheme(pid, output, portal_pid):
    # Something in the chart: three hours this week, ended an hour ago (an oracle of its own: no need
    # for the bars to be right here, only for the card to be drawn in the scheme's colours).
    project = agent.create_project("Chart", "#1c71d8", "")
    now = int(time.time())
    agent.add_session(project, now - 4 * 3600, "3h", "")
    # Preferences and History closed with their own Close buttons, so the Week view is in sight.
    for title in [t.name for t in at.windows(at.nodes(pid)) if t.name != "Time"]:
        close = [n for n in at.buttons(toplevel(pid, title), "Close") if n.actions()]
        if close:
            at.press(close[0])
    if at.wait_for(lambda: all(t.name == "Time" for t in at.windows(at.nodes(pid))), 3) is None:
        raise Failure(f"could not close {[t.name for t in at.windows(at.nodes(pid))]}")
    select_main_page(pid, "Week")
    time.sleep(1.5)
    light = os.path.join(output, "scheme-light.png")
    shoot(pid, light)
    before = bright_share(light)
    os.kill(portal_pid, signal.SIGUSR1)  # the desktop's style switched to dark
    time.sleep(2)
    dark = os.path.join(output, "scheme-dark.png")
    shoot(pid, dark)
    after = bright_share(dark)
    if before < 0.5:
        raise Failure(f"in the light scheme only {before:.0%} of the window is light ({light})")
    if after > 0.03:
        raise Failure(f"after the switch to dark {after:.1%} of the Week view is still near white "
                      f"(a light chart on a dark window: {dark})")
    return f"near-white share {before:.0%} light -> {after:.1%} dark, without a restart"


def command_picture(args):
    """Preferences' General page (and Sync and data) as a person sees it, for docs/ and the README."""
    report = Report(args.output, args.pid)
    at.wait_for(lambda: at.windows(at.nodes(args.pid)), 20, interval=0.1)

    def picture(page, file):
        open_from_menu(args.pid, "Preferences", "Preferences")
        show_page(args.pid, "Preferences", page)
        time.sleep(0.8)
        path = os.path.join(args.output, f"{file}{args.suffix}.png")
        shoot(args.pid, path, "Preferences")
        colors = int(subprocess.run(["convert", path, "-format", "%k", "info:"], capture_output=True, text=True).stdout or 0)
        if colors < 16:
            raise Failure(f"{path} has {colors} colours: an empty picture")
        return f"{path}, {colors} colours"
    report.run(f"shot-preferences{args.suffix}", f"9. picture of Preferences{args.suffix}", picture, "General", "window-preferences")
    report.run(f"shot-sync{args.suffix}", f"9. picture of Preferences' Sync and data{args.suffix}", picture, "Sync and data",
               "window-preferences-sync")
    return report


def command_scheme(args):
    report = Report(args.output, args.pid)
    at.wait_for(lambda: at.windows(at.nodes(args.pid)), 20, interval=0.1)
    report.run("chart-scheme", "C1. the Week chart is drawn for the colour scheme, and follows its change",
               check_chart_follows_scheme, args.pid, args.output, args.portal_pid)
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("preferences")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--timectl", required=True)
    p.add_argument("--sync-folder", required=True)
    p.add_argument("--autostart-system", required=True)
    p = sub.add_parser("history")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--timectl", required=True)
    p = sub.add_parser("scheme")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--portal-pid", type=int, required=True)
    p = sub.add_parser("picture")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--suffix", default="")
    args = parser.parse_args()
    report = {"preferences": command_preferences, "history": command_history, "scheme": command_scheme,
              "picture": command_picture}[args.command](args)
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
