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
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import agent  # noqa: E402
import atspi_tree as at  # noqa: E402

from settings_common import Failure, Report, bright_share, one, open_from_menu, shoot, show_page, toplevel  # noqa: E402
from preferences_checks import command_preferences  # noqa: E402


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
