"""Check 17 (`window-check.py seed-focus` / `week-focus`): the Week view's table counts the
completed focus phases per day. The agent runs with minutes of a second
(TIME_AGENT_MINUTE_SECONDS=1), so real phases end on its own timer within seconds; its `Report`
json (each column's `focus`) is the oracle for the row the table shows."""
import datetime

import agent
import atspi_tree as at
from report import Failure

PHASES = 2


def seed():
    """Writing, and two focus phases completed on the agent's timer (1-second minutes, the next
    phase starting by itself, no long break), then the cycle and the session ended."""
    agent.create_project("Writing", "#2e7d32", "")
    for name, signature, value in (("FocusMinutes", "u", 1), ("BreakMinutes", "u", 1), ("LongBreakEvery", "u", 0),
                                   ("FocusAutoStart", "b", True)):
        agent.set_prop(name, signature, value)
    agent.call("StartFocus", "s", ("Writing",), reply="(t)")
    if not at.wait_for(lambda: agent.prop("FocusCount") >= PHASES, 30, interval=0.2):
        raise SystemExit(f"the agent completed {agent.prop('FocusCount')} focus phases in 30 s, not {PHASES}")
    agent.call("StopFocus")
    agent.stop()


def expected_row():
    """The row the table should show, from the agent's Report json of this week by day."""
    report = agent.report_json("this-week", columns="day")
    counts = [column["focus"] for column in report["columns"]]
    if sum(counts) < PHASES:
        raise Failure(f"the agent's Report json counts {counts} focus phases per day, fewer than the {PHASES} completed")
    today = datetime.date.today().weekday()  # the week's columns start on Monday
    if counts[today] != agent.prop("FocusCount"):
        raise Failure(f"Report json counts {counts[today]} focus phases today, FocusCount {agent.prop('FocusCount')}")
    return [str(n) if n else "–" for n in counts] + [str(sum(counts))]


def check_week_focus(window):
    """The Week view: a `Focus phases` row under the projects with each day's count, as the agent's Report says."""
    wanted = expected_row()
    window.select_page("Week")
    page = window.page_nodes("Week")

    def row():
        texts = [t for n, t in window.texts(page()) if n.role == "label"]
        if "Focus phases" not in texts:
            return None
        after = texts[texts.index("Focus phases") + 1:][:len(wanted)]
        return after if after == wanted else None

    if not at.wait_for(row, 5, interval=0.2):
        texts = [t for n, t in window.texts(page()) if n.role == "label"]
        shown = texts[texts.index("Focus phases"):][:len(wanted) + 1] if "Focus phases" in texts else "no 'Focus phases' row"
        raise Failure(f"the Week view shows {shown}, not 'Focus phases' {wanted}")
    total = [t for n, t in window.texts(page()) if n.role == "label" and t and t.startswith("Total ")]
    if not any(t.endswith(f"· {wanted[-1]} focus phases") for t in total):
        raise Failure(f"the total line is {total}, not ending in '· {wanted[-1]} focus phases'")
    return f"'Focus phases' {' '.join(wanted)}"
