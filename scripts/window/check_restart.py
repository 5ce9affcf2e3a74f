"""Check 7: the agent killed (-9) and started again: the window says it is reconnecting, then
works again; a dialog open meanwhile keeps what was typed."""
import os
import signal
import subprocess
import time

import agent
import atspi_tree as at
from common import ensure_running, wait_state
from report import Failure


def reconnecting(window):
    nodes = window.tree()
    return [t for n, t in window.texts(nodes) if "reconnect" in (t or "").lower()]


def check_agent_restart(window, pid_file, log, argv):
    ensure_running()
    with open(pid_file) as f:
        old = int(f.read().strip())
    os.kill(old, signal.SIGKILL)
    shown = at.wait_for(lambda: reconnecting(window), 5, interval=0.1)
    if not shown:
        raise Failure("the agent was killed and no label says 'reconnect' within 5 s")
    with open(log, "a") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    with open(pid_file, "w") as f:
        f.write(f"{process.pid}\n")
    if not at.wait_for(agent.has_owner, 15, interval=0.1):
        raise Failure("the restarted agent did not take its name")
    started = time.monotonic()
    if not at.wait_for(lambda: not reconnecting(window), 5, interval=0.1):
        raise Failure(f"the agent is back but the window still says {reconnecting(window)}")
    back = time.monotonic() - started
    state = agent.state()
    done = []
    if state == "running":
        window.press("Pause", page="Now")
        wait_state("paused")
        done.append("Pause")
    if agent.state() == "paused":
        window.press("Resume", page="Now")
        wait_state("running")
        done.append("Resume")
    window.press("Stop", page="Now")
    wait_state("idle")
    done.append("Stop")
    return f"it said {shown[0]!r}; gone {back:.1f} s after the agent returned; then {', '.join(done)} worked"


def check_dialog_kept(window, pid_file, log, argv):
    """An open dialog keeps what was typed while the agent is away."""
    window.select_page("Projects")
    window.press("New project")
    name = window.field("Name", timeout=4)
    at.type_into(name, "Kept while away")
    with open(pid_file) as f:
        os.kill(int(f.read().strip()), signal.SIGKILL)
    if not at.wait_for(lambda: reconnecting(window), 5, interval=0.1):
        raise Failure("the agent was killed with a dialog open and no label says 'reconnect' within 5 s")
    with open(log, "a") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    with open(pid_file, "w") as f:
        f.write(f"{process.pid}\n")
    if not at.wait_for(agent.has_owner, 15, interval=0.1):
        raise Failure("the restarted agent did not take its name")
    at.wait_for(lambda: not reconnecting(window), 5, interval=0.1)
    text = window.field("Name").text()
    nodes = window.tree()
    dialog = window.dialog(nodes)
    cancel = at.buttons(dialog if dialog else nodes, "Cancel")
    if cancel:
        at.press(cancel[0])
    if text != "Kept while away":
        raise Failure(f"the Name field holds {text!r} after the agent came back, not 'Kept while away'")
    if any(p["name"] == "Kept while away" for p in agent.projects()):
        raise Failure("Cancel created the project")
    return "Name still 'Kept while away'; Cancel closed it" + ("" if cancel else " (no Cancel button found)")
