"""Checks 1, 2 and 6: the timer from the window (a Projects row starts it and the Now view's
time moves; Pause, Resume, Stop) and from timectl (the window follows within a second)."""
import re
import subprocess
import time

import agent
import atspi_tree as at
from common import ensure_idle, row_named, shows_name, wait_state
from report import Failure

DURATION = re.compile(r"\d+:\d\d")


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

    def durations():
        return {n.path: t for n, t in window.texts(now_nodes())
                if n.role == "label" and DURATION.search(t or "")}
    first = at.wait_for(durations, 2)
    if not first:
        raise Failure("no label in the Now view shows a time like 0:00:01")
    started = time.monotonic()
    changed = at.wait_for(lambda: durations() != first and durations(), 2.5, interval=0.1)
    if not changed:
        raise Failure(f"the Now view's time labels did not change in 2.5 s: {sorted(first.values())}")
    return (f"row action {used!r}; State running; elapsed {sorted(first.values())} -> "
            f"{sorted(changed.values())} within {time.monotonic() - started:.1f} s")


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
