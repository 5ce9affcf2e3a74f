#!/usr/bin/python3
"""Drives the real Time window over AT-SPI for scripts/test-window.sh (and times it for
scripts/bench-window.sh), with the agent on the session bus as the oracle.

    window-check.py seed --output DIR            projects Writing (Work) and Reading, yesterday's session
    window-check.py checks --pid PID --output DIR --timectl T --agent-pid-file F --agent-log F -- AGENT ARGV...
                                                 checks 0-7 (names said once, start from Projects,
                                                 Pause/Resume/Stop, edit, delete + Undo, new project +
                                                 category, timectl followed, agent killed and restarted)
    window-check.py shots --pid PID --output DIR [--suffix=-dark]   pictures of Now, Day and Week
    window-check.py read-only --pid PID --output DIR --names Start,... [--optional Stop,...]
                                                 controls insensitive, StorageMessage shown
    window-check.py launch --pid-file F [--paths F] [--require label:TEXT|button:NAME|buttons:NAME:N]... -- ARGV...
                                                 bench: milliseconds from exec to the window shown with that
    window-check.py dump --pid PID               the AT-SPI tree
    window-check.py seed-corrections / corrections --pid PID --output DIR
                                                 checks 10-16 (window/corrections.py: Started at, Overlap and
                                                 its shortening, Paused since, Stop at, Start at, Day marks)

Prints one line per check, `ok - ...` or `not ok - ...`; on a failure the window's AT-SPI tree
(role, name, states, actions) is written to DIR/window-tree-<check>.txt. Runs with the system's
python3 (python3-gi, gir1.2-atspi-2.0). Times are local (TZ): the shell fixes TZ.

One module a check, in scripts/window/ beside the helpers they share: report.py (ok / not ok),
app_window.py (the window's pages, buttons and fields), common.py (times, the agent's state,
the seed), agent.py (the oracle), atspi_tree.py (AT-SPI). This file runs checks 0-7 in order.
"""
import argparse
import os
import sys
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "window"))
import agent  # noqa: E402
import atspi_tree as at  # noqa: E402
import corrections  # noqa: E402
from app_window import Window  # noqa: E402
from check_day import check_delete_and_undo, check_edit_session  # noqa: E402
from check_focus import check_focus  # noqa: E402
from check_names import check_dialog_names, check_names  # noqa: E402
from check_pictures import command_shots  # noqa: E402
from check_projects import check_new_project  # noqa: E402
from check_read_only import command_read_only  # noqa: E402
from check_restart import check_agent_restart, check_dialog_kept  # noqa: E402
from check_timer import check_button_state, check_start_from_projects, check_timectl_follows  # noqa: E402
from common import ensure_running, seeded, wait_state  # noqa: E402
from launch import command_launch  # noqa: E402
from report import Failure, Report  # noqa: E402
from seed import command_seed  # noqa: E402


def command_checks(args):
    window = Window(args.pid)
    report = Report(args.output, args.pid)
    seed = seeded(args.output)
    started = at.wait_for(lambda: at.windows(window.tree()), 20, interval=0.1)
    if not started:
        report.not_ok("the window appeared on the accessibility bus", "start")
        return report
    report.ok("the window is on the accessibility bus")
    report.run("names", "0. accessible names of the main window", check_names, window)
    report.run("start-from-projects", "1. Projects view: activating the Writing row starts it; the elapsed time moves",
               check_start_from_projects, window)
    ensure_running()
    for name, expected in (("Pause", "paused"), ("Resume", "running"), ("Stop", "idle")):
        if name == "Resume" and agent.state() != "paused":
            agent.call("Pause")
        if name == "Stop" and agent.state() == "idle":
            ensure_running()
        report.run(f"button-{name.lower()}", f"2. {name} -> {expected}", check_button_state, window, name, expected)
    report.run("edit-session", "3. Day view: yesterday's session edited to end at 17:30", check_edit_session, window, seed)
    report.run("delete-undo", "4. Delete session, then the toast's Undo", check_delete_and_undo, window, seed)
    report.run("new-project", "5. New project Garden with a new category Home", check_new_project, window)
    report.run("timectl-follows", "6. timectl start Writing shows in the window within 1 s",
               check_timectl_follows, window, args.timectl)

    report.run("dialog-names", "0. accessible names in the dialogs", check_dialog_names, window)
    report.run("focus", "6. the focus timer in the Now view: its phase, bar and buttons", check_focus, window)
    report.run("agent-restart", "7. agent killed (-9) and restarted: the window says it is reconnecting, then recovers",
               check_agent_restart, window, args.agent_pid_file, args.agent_log, args.argv)
    report.run("dialog-kept", "7. agent killed and restarted while the New project dialog is open: what was typed stays",
               check_dialog_kept, window, args.agent_pid_file, args.agent_log, args.argv)
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("seed")
    p.add_argument("--output", required=True)
    p = sub.add_parser("checks")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--timectl", required=True)
    p.add_argument("--agent-pid-file", required=True)
    p.add_argument("--agent-log", required=True)
    p.add_argument("argv", nargs="+")
    p = sub.add_parser("shots")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--suffix", default="")
    p = sub.add_parser("read-only")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--names", required=True)
    p.add_argument("--optional", default="", help="controls that may be absent (insensitive when shown)")
    p = sub.add_parser("launch")
    p.add_argument("--pid-file", required=True)
    p.add_argument("--log", default="/dev/null")
    p.add_argument("--require", action="append", default=[], help="label:TEXT, button:NAME or buttons:NAME:COUNT")
    p.add_argument("--paths", help="where the required nodes are (written by a first, calibrating start)")
    p.add_argument("--timeout", type=float, default=60)
    p.add_argument("argv", nargs="+")
    sub.add_parser("seed-corrections")
    p = sub.add_parser("corrections")
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--output", required=True)
    p = sub.add_parser("dump")
    p.add_argument("--pid", type=int, required=True)
    args = parser.parse_args()

    if args.command == "seed":
        command_seed(args)
        return 0
    if args.command == "dump":
        sys.stdout.write(at.dump(at.nodes(args.pid)))
        return 0
    if args.command == "launch":
        return command_launch(args)
    if args.command == "seed-corrections":
        corrections.seed()
        return 0
    if args.command == "corrections":
        window, report = Window(args.pid), Report(args.output, args.pid)
        if at.wait_for(lambda: at.windows(window.tree()), 20, interval=0.1):
            corrections.checks(window, report, Failure, wait_state)
        else:
            report.not_ok("the window appeared on the accessibility bus (corrections)", "corrections")
        return 1 if report.failed else 0
    report = {"checks": command_checks, "shots": command_shots, "read-only": command_read_only}[args.command](args)
    return 1 if report.failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except SystemExit:
        raise
    except BaseException as error:  # noqa: BLE001 (say so in the results, not only on stderr)
        traceback.print_exc(file=sys.stderr)
        print(f"not ok - window-check.py {' '.join(sys.argv[1:2])} stopped: {type(error).__name__}: {error}", flush=True)
        sys.exit(2)
