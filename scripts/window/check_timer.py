"""Checks 1, 2 and 6: the timer from the window (a Projects row starts it and the Now view's
time moves; Pause, Resume, Stop) and from timectl (the window follows within a second)."""
import os
import re
import shutil
import subprocess
import tempfile
import time

import agent
import atspi_tree as at
from common import ensure_idle, row_named, shows_name, wait_state
from report import Failure
from settings_common import shoot

def check_start_from_projects(window):
    ensure_idle()
    window.select_page("Projects")
    rows = at.wait_for(lambda: row_named(window.page(window.tree(), "Projects"), "Writing"), 5)
    if not rows:
        raise Failure("no row named 'Writing' in the Projects view")
    row = rows[0]
    names = row.actions()
    if not names:
        raise Failure(f"the row {row!r} has no AT-SPI action (GTK 4.8 gives a list row none: insert an action "
                      "group on the row, e.g. gtk_widget_insert_action_group(row, \"row\", group) with an "
                      "\"activate\" action doing what activating it does; AT-SPI then shows 'row.activate')")
    used = at.press(row)
    wait_state("running")
    if agent.prop("Project") != "Writing":
        raise Failure(f"the agent runs {agent.prop('Project')!r}, not Writing")
    window.select_page("Now")
    now_nodes = window.page_nodes("Now")
    spoken = check_elapsed_spoken(now_nodes)
    moved = check_elapsed_moves_on_screen(window, now_nodes)
    return f"row action {used!r}; State running; {spoken}; {moved}"


SPOKEN = re.compile(r"^Elapsed (?:(\d+) h )?(\d+) min$")


def agent_elapsed():
    """The open session's active seconds now, from the agent's properties (not the window's sum)."""
    active = agent.prop("ActiveSeconds")
    if agent.prop("State") != "running":
        return active
    return active + time.time() - agent.prop("RunningSince")


def said_minutes(name):
    hours, minutes = SPOKEN.match(name).groups()
    return int(hours or 0) * 60 + int(minutes)


def check_elapsed_spoken(now_nodes):
    """What a screen reader gets: a label named "Elapsed 1 h 23 min", the agent's elapsed time
    in whole minutes (the seconds tick on screen only: a label changed each second would send an
    accessibility event each second)."""
    seen = []

    def spoken():
        before = int(agent_elapsed()) // 60
        names = [n.name for n in now_nodes() if n.role == "label" and SPOKEN.match(n.name or "")]
        after = int(agent_elapsed()) // 60
        seen[:] = [(names, before)]
        return [name for name in names if before <= said_minutes(name) <= after]
    found = at.wait_for(spoken, 3)
    if not found:
        names, minutes = seen[0] if seen else ([], None)
        if not names:
            labels = [n.name or n.text() for n in now_nodes() if n.role == "label"]
            raise Failure(f"no label in the Now view is named like 'Elapsed 1 h 23 min' (labels: {labels[:12]})")
        raise Failure(f"the Now view says {names}, the agent's elapsed time is {minutes} min")
    ticking = [n.text() for n in now_nodes() if n.role == "label" and re.fullmatch(r"\d+:\d\d:\d\d", n.text() or "")]
    if ticking:
        raise Failure(f"the seconds are shown to screen readers too ({ticking}): an event each second")
    return f"a screen reader gets {found[0]!r}"


def check_elapsed_moves_on_screen(window, now_nodes):
    """The seconds move on screen: two pictures of the window a second and a bit apart differ
    (the window is otherwise still)."""
    folder = tempfile.mkdtemp(prefix="time-elapsed-")
    try:
        first, second = os.path.join(folder, "first.png"), os.path.join(folder, "second.png")
        shoot(window.pid, first)
        time.sleep(1.3)
        shoot(window.pid, second)
        out = subprocess.run(["compare", "-metric", "AE", first, second, "null:"], capture_output=True, text=True)
        differing = int(float((out.stderr or "0").split()[0]))
        if differing == 0:
            raise Failure("two pictures of the Now view 1.3 s apart are the same: the elapsed time does not move on screen")
        return f"{differing} pixels changed on screen in 1.3 s"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def check_button_state(window, name, expected):
    window.select_page("Now")
    window.press(name, page="Now")
    wait_state(expected)
    return f"State {expected}"


def check_timectl_follows(window, timectl):
    ensure_idle()
    window.select_page("Now")
    now_nodes = window.page_nodes("Now")

    def shown():
        now = now_nodes()
        label = [n for n in now if n.role == "label" and shows_name(n.text(), "Writing")]
        pause = at.buttons(now, "Pause")
        return bool(label and pause)
    at.wait_for(lambda: not at.buttons(now_nodes(), "Pause"), 2)
    polled = time.monotonic()
    now_nodes()
    poll = time.monotonic() - polled
    before = time.monotonic()
    subprocess.run([timectl, "start", "Writing"], check=True, stdout=subprocess.DEVNULL)
    after = time.monotonic()
    seen = at.wait_for(shown, 3, interval=0.02)
    took = time.monotonic() - after
    if not seen:
        now = window.page(window.tree(), "Now")
        raise Failure(f"3 s after `timectl start Writing` the Now view has no 'Writing' label with a Pause button "
                      f"(labels: {[n.text() for n in now if n.role == 'label'][:12]})")
    if took > 1.0:
        raise Failure(f"the Now view showed Writing running {took:.2f} s after timectl returned (goal 1 s)")
    return (f"{took * 1000:.0f} ms after timectl returned ({(after - before) * 1000:.0f} ms for timectl itself; "
            f"one look at the Now view over AT-SPI takes {poll * 1000:.0f} ms)")
