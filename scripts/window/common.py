"""What the checks share: the agent's state awaited, local times of today and yesterday, the
seeded store's ids, a running or idle timer to start from, rows and labels found by name."""
import datetime as dt
import json
import os
import time

import agent
import atspi_tree as at
from app_window import ROW_ROLES
from report import Failure


def wait_state(expected, timeout=3):
    got = at.wait_for(lambda: agent.state() == expected, timeout)
    if not got:
        raise Failure(f"the agent's State is {agent.state()!r}, not {expected!r}")
    return True


def local(day, hour, minute=0):
    return int(dt.datetime.combine(day, dt.time(hour, minute)).timestamp())


def today():
    return dt.date.today()


def yesterday():
    return dt.date.today() - dt.timedelta(days=1)


def hhmm(seconds):
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(seconds)) if seconds else "open"


def clock(seconds):
    return time.strftime("%H:%M", time.localtime(seconds))


def seeded(output):
    with open(os.path.join(output, "seed.json")) as f:
        return json.load(f)


def ensure_running(project="Writing"):
    if agent.state() != "running":
        agent.start_project(project)
        if agent.state() == "paused":
            agent.call("Resume")
    wait_state("running")


def ensure_idle():
    if agent.state() != "idle":
        agent.stop()
    wait_state("idle")


def row_named(nodes, name):
    rows = [n for n in nodes if n.role in ROW_ROLES and (n.name == name or n.name.startswith(name + " ")
                                                          or n.name.startswith(name + ","))]
    return rows


def shows_name(text, name):
    """A label showing a project's name, maybe after a colour mark ("● Writing")."""
    return (text or "").lstrip("●○◉•■▪◆ \u00a0") == name
