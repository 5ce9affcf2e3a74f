"""Check 6 (focus): the focus timer in the Now view, its phase with a bar of what is left and its
buttons, each checked against the agent (the oracle); and the focus phase for check 9's picture."""
import time

import agent
import atspi_tree as at
from report import Failure


def wait_prop(name, wanted, timeout=3):
    if not at.wait_for(lambda: agent.prop(name) == wanted, timeout):
        raise Failure(f"the agent's {name} is {agent.prop(name)!r}, not {wanted!r}")


def shows_text(window, predicate, what, timeout=3):
    found = at.wait_for(lambda: [t for _, t in window.texts(window.tree()) if t and predicate(t)], timeout)
    if not found:
        raise Failure(f"the Now view shows no {what}")
    return found[0]


def check_focus(window):
    """Start focus, Skip, +5 min and Stop focus, pressed in the Now view, do what the agent's
    methods do; the view shows the phase, its minutes left and a bar named for screen readers."""
    if agent.state() == "idle":
        agent.start_project("Writing")
    if agent.state() == "paused":
        agent.call("Resume")
    window.select_page("Now")
    window.press("Start focus", page="Now")
    wait_prop("FocusState", "focus")
    shown = shows_text(window, lambda t: t.startswith("Focus · ") and t.endswith(" min left"), "\"Focus · N min left\"")
    if not at.wait_for(lambda: at.find(window.tree(), name="Time left of the phase"), 3):
        raise Failure("no bar named 'Time left of the phase'")
    window.press("Skip", page="Now")
    wait_prop("FocusState", "break")
    wait_prop("State", "paused")
    shows_text(window, lambda t: t.startswith("Break · "), "\"Break · N min left\"")
    ends = agent.prop("FocusEnds")
    window.press("Five more minutes", page="Now")
    if not at.wait_for(lambda: agent.prop("FocusEnds") == ends + 300, 3):
        raise Failure(f"+5 min moved FocusEnds from {ends} to {agent.prop('FocusEnds')}, not by 300 s")
    window.press("Stop focus", page="Now")
    wait_prop("FocusState", "off")
    return f"{shown!r}; Skip started the break (the session paused), +5 min added 300 s, Stop focus ended the cycle"


def start_for_picture():
    """A focus phase for the README's picture (a second in)."""
    if agent.state() != "running":
        agent.start_project("Writing")
    agent.call("StartFocus", "s", ("",))
    time.sleep(1.0)


def stop_after_picture():
    agent.call("StopFocus")
