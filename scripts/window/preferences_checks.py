"""Preferences driven over AT-SPI (scripts/window/settings_checks.py preferences): every control
named once, each row sets its property with one call and follows the agent, the currency's
refusal in the agent's words, sync on and off, the login start's override, the keyboard shortcut."""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agent  # noqa: E402
import atspi_tree as at  # noqa: E402
from gi.repository import Atspi  # noqa: E402
from settings_common import (SWITCH, Failure, Report, one, open_from_menu, properties, show_page, toplevel,  # noqa: E402
                             value_of, wait_prop)

PREFERENCE_NAMES = ("Minutes between reminders", "Minutes before the not-tracking reminder",
                    "Idle minutes that count as away", "Weekly target in hours", "Currency", "Start at login", "Keyboard shortcut",
                    "Sync folder", "Device name", "Turn sync on", "Open folder", "Export everything")
FOCUS_NAMES = ("Start the next phase by itself", "Pause during breaks")


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
