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

Prints one line per check, `ok - ...` or `not ok - ...`; on a failure the window's AT-SPI tree
(role, name, states, actions) is written to DIR/window-tree-<check>.txt. Runs with the system's
python3 (python3-gi, gir1.2-atspi-2.0). Times are local (TZ): the shell fixes TZ.
"""
import argparse
import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "window"))
import agent  # noqa: E402
import atspi_tree as at  # noqa: E402
import focus_check  # noqa: E402
from atspi_tree import ActionError  # noqa: E402

PAGES = ("Now", "Projects", "Day", "Week")
# Controls that belong to one page: the page's root is the child of the view stack holding them.
PAGE_MARKERS = {
    "Now": ("Pause", "Resume", "Stop", "Start"),
    "Projects": ("New project",),
    "Day": ("Previous day", "Next day", "Add time", "Edit session", "Delete session"),
    "Week": ("Previous week", "Next week", "Export", "Import"),
}
ROW_ROLES = ("list item", "row", "table row", "tree item", "table cell")
DURATION = re.compile(r"\d+:\d\d")


class Failure(Exception):
    """A check's failure, with what was seen."""


# MARK: Reporting

class Report:
    def __init__(self, output, pid):
        self.output, self.pid = output, pid
        self.passed = self.failed = 0

    def ok(self, text):
        self.passed += 1
        print(f"ok - {text}", flush=True)

    def not_ok(self, text, slug):
        self.failed += 1
        print(f"not ok - {text}", flush=True)
        if self.pid:
            path = os.path.join(self.output, f"window-tree-{slug}.txt")
            try:
                with open(path, "w") as f:
                    f.write(at.dump(at.nodes(self.pid)))
                print(f"#   the window's AT-SPI tree at that moment: {path}", flush=True)
            except Exception as error:  # noqa: BLE001
                print(f"#   (no tree: {error})", flush=True)

    def run(self, slug, title, function, *args):
        """Runs one check: its return value is a detail for the ok line; Failure/errors are not ok."""
        try:
            detail = function(*args)
            self.ok(title + (f" ({detail})" if detail else ""))
            return True
        except (Failure, ActionError) as error:
            self.not_ok(f"{title}: {error}", slug)
        except Exception as error:  # noqa: BLE001 (a bug here or a call the agent refused)
            self.not_ok(f"{title}: {type(error).__name__}: {error}", slug)
            traceback.print_exc(file=sys.stderr)
        return False


# MARK: The window

class Window:
    def __init__(self, pid):
        self.pid = pid
        self.dialog_names = {}  # names said twice in the dialogs, by dialog title

    def note_dialog_names(self):
        nodes = self.tree()
        dialog = self.dialog(nodes)
        if dialog:
            twice = {f"{n.role} {n.name!r}" for n in dialog if at.doubled(n.name) and n.role != "label"}
            self.dialog_names.setdefault(dialog[0].name, set()).update(twice)

    def alive(self):
        try:
            with open(f"/proc/{self.pid}/stat") as f:
                return f.read().split(")")[-1].split()[0] != "Z"
        except (OSError, IndexError):
            return False

    def tree(self):
        if not self.alive():
            raise Failure(f"the window (pid {self.pid}) is gone")
        return at.nodes(self.pid)

    def main(self, nodes):
        """The main window's nodes (the first toplevel that is not a dialog)."""
        tops = at.windows(nodes)
        if not tops:
            return []
        main = next((t for t in tops if t.role == "frame"), tops[0])
        return at.under(nodes, main)

    def page(self, nodes, name):
        """The nodes of one page of the view stack (the whole main window if it cannot be told)."""
        main = self.main(nodes)
        root = self.page_root(nodes, name)
        return at.under(main, root) if root is not None else main

    def page_root(self, nodes, name):
        """The root node of one page of the view stack: the child of the stack (the deepest node
        holding the controls of this page and of another) that holds this page's controls."""
        main = self.main(nodes)
        marks = {}
        for page, names in PAGE_MARKERS.items():
            found = [n for n in main if n.name in names and n.role in at.BUTTON_ROLES]
            if found:
                marks[page] = found[0].path
        others = [p for p in marks if p != name]
        if name not in marks or not others:
            return None
        stack = marks[name]
        for other in others:
            stack = at.common_prefix(stack, marks[other])
        if len(stack) >= len(marks[name]):
            return None
        return next((n for n in main if n.path == marks[name][:len(stack) + 1]), None)

    def page_nodes(self, name):
        """A function giving the nodes of one page, walking that page only (a whole walk of the
        window takes a few hundred milliseconds; a page's, a few tens)."""
        root = self.page_root(self.tree(), name)
        if root is None:
            return lambda: self.page(self.tree(), name)
        return lambda: list(at.walk(root.acc, root.path))

    def dialog(self, nodes):
        """The newest toplevel other than the main window, or None."""
        tops = at.windows(nodes)
        main = next((t for t in tops if t.role == "frame"), tops[0] if tops else None)
        others = [t for t in tops if t is not main]
        return at.under(nodes, others[-1]) if others else None

    def select_page(self, name):
        def tab():
            main = self.main(self.tree())
            tabs = [n for n in main if n.name == name and n.role in ("page tab", "toggle button", "radio button")]
            return tabs
        tabs = at.wait_for(tab, 5)
        if not tabs:
            raise Failure(f"no view-switcher page named {name!r} (page tab)")
        if not any("selected" in t.states or "checked" in t.states or "pressed" in t.states for t in tabs):
            at.press(next((t for t in tabs if t.actions()), tabs[0]))
            at.wait_for(lambda: any("selected" in t.states or "checked" in t.states for t in tab()), 2)
        time.sleep(0.2)

    def button(self, name, scope=None, timeout=3, page=None):
        """The first button called `name` (in `page`, or the main window, or any window), waiting for it."""
        def probe():
            nodes = self.tree()
            where = self.page(nodes, page) if page else (scope(nodes) if scope else nodes)
            return at.buttons(where, name)
        found = at.wait_for(probe, timeout)
        if not found:
            raise Failure(f"no button named {name!r}" + (f" in the {page} view" if page else ""))
        return found[0]

    def press(self, name, **where):
        node = self.button(name, **where)
        if not node.sensitive:
            raise Failure(f"the {name!r} button is insensitive")
        at.press(node)
        return node

    def field(self, name, timeout=3):
        """A text field named `name`, the newest dialog's first."""
        def probe():
            nodes = self.tree()
            dialog = self.dialog(nodes)
            return (at.editables(dialog, name) if dialog else []) or at.editables(nodes, name)
        found = at.wait_for(probe, timeout)
        if not found:
            named = [n for n in self.tree() if n.name == name]
            raise Failure(f"no text field named {name!r} (nodes named so: {named or 'none'})")
        return found[0]

    def texts(self, nodes):
        return [(n, n.text() if n.role in ("label", "text") else n.name) for n in nodes]


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


# MARK: seed

def command_seed(args):
    agent.add_category("Work")
    writing = agent.create_project("Writing", "#2e7d32", "Work")
    agent.create_project("Reading", "#c01c28", "")
    session = agent.add_session(writing, local(yesterday(), 9), "2h", "Drafted the introduction")
    with open(os.path.join(args.output, "seed.json"), "w") as f:
        json.dump({"writing": writing, "session": session, "start": local(yesterday(), 9)}, f)


def seeded(output):
    with open(os.path.join(output, "seed.json")) as f:
        return json.load(f)


# MARK: checks 1-7

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


def check_names(window):
    """Every control's accessible name is said once (GTK 4.8 doubles a name given both as an
    accessible label and by a labelled-by relation, e.g. a mnemonic label: "End End")."""
    nodes = window.tree()
    twice = sorted({f"{n.role} {n.name!r}" for n in nodes if at.doubled(n.name) and n.role != "label"})
    if twice:
        raise Failure(f"{len(twice)} names are said twice (give each control one name: its accessible label or "
                      f"a labelled-by/mnemonic label, not both): {', '.join(twice)}")
    return "none said twice"


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


def session_row(window, nodes, needles):
    """The row of the Day view whose texts contain every needle, with its Edit/Delete buttons."""
    day = window.page(nodes, "Day")
    for row in [n for n in day if n.role in ROW_ROLES]:
        inside = at.under(day, row)
        words = " ".join(t or "" for _, t in window.texts(inside))
        if all(needle in words for needle in needles):
            return row, inside
    return None


def pick_row_button(window, name, needles):
    """`name` button of the Day view's row showing `needles`; the only such button if rows can't be told."""
    def probe():
        nodes = window.tree()
        found = session_row(window, nodes, needles)
        if found:
            buttons = at.buttons(found[1], name)
            if buttons:
                return buttons[0]
        return None
    button = at.wait_for(probe, 4)
    if button:
        return button, "in the session's row"
    nodes = window.tree()
    all_buttons = at.buttons(window.page(nodes, "Day"), name)
    if len(all_buttons) == 1:
        return all_buttons[0], f"the only one; no row with {needles} found"
    raise Failure(f"no {name!r} button in a Day-view row showing {needles} ({len(all_buttons)} such buttons in the view)")


def clock(seconds):
    return time.strftime("%H:%M", time.localtime(seconds))


def check_edit_session(window, seed):
    sessions = {s["id"]: s for s in agent.sessions(local(yesterday(), 0), local(today(), 0))}
    session = sessions.get(seed["session"])
    if session is None:
        raise Failure(f"yesterday's session {seed['session']} is not in ListSessions: {list(sessions.values())}")
    window.select_page("Day")
    window.press("Previous day", page="Day")
    start = clock(session["start"]).lstrip("0")
    end = clock(session["end"]).lstrip("0")
    button, how = pick_row_button(window, "Edit session", [start, end])
    at.press(button)
    field = window.field("End", timeout=4)
    window.note_dialog_names()
    at.type_into(field, "17:30")
    nodes = window.tree()
    dialog = window.dialog(nodes)
    scope = dialog if dialog and any(n.path == field.path for n in dialog) else nodes
    saves = at.buttons(scope, "Save")
    if not saves:
        raise Failure("no Save button beside the End field")
    if not saves[0].sensitive:
        raise Failure("Save is insensitive after typing 17:30 into End")
    at.press(saves[0])
    want = local(yesterday(), 17, 30)

    def edited():
        now = {s["id"]: s for s in agent.sessions(local(yesterday(), 0), local(today(), 0))}
        return now.get(seed["session"], {}).get("end") == want
    if not at.wait_for(edited, 3):
        now = {s["id"]: s for s in agent.sessions(local(yesterday(), 0), local(today() + dt.timedelta(days=1), 0))}
        got = now.get(seed["session"])
        raise Failure(f"ListSessions shows the session ending {hhmm(got['end']) if got else 'nowhere (gone)'}, "
                      f"not {hhmm(want)}")
    return f"Edit session {how}; ListSessions: {hhmm(session['start'])} - {hhmm(want)}"


def check_delete_and_undo(window, seed):
    sessions = {s["id"]: s for s in agent.sessions(local(yesterday(), 0), local(today(), 0))}
    session = sessions.get(seed["session"])
    if session is None:
        raise Failure("yesterday's session is not there to delete")
    window.select_page("Day")
    needles = [clock(session["start"]).lstrip("0"), clock(session["end"]).lstrip("0")]
    button, how = pick_row_button(window, "Delete session", needles)
    undo_before = {n.path for n in at.buttons(window.tree(), "Undo")}
    at.press(button)

    def gone():
        return seed["session"] not in {s["id"] for s in agent.sessions(local(yesterday(), 0), local(today(), 0))}
    confirmed = ""
    if not at.wait_for(gone, 2):
        dialog = window.dialog(window.tree())
        confirm = at.buttons(dialog, "Delete") if dialog else []
        if confirm:
            at.press(confirm[0])
            confirmed = " after a confirmation dialog"
        if not at.wait_for(gone, 2):
            raise Failure("the session is still in ListSessions after Delete session")

    def toast_undo():
        undos = at.buttons(window.tree(), "Undo")
        new = [n for n in undos if n.path not in undo_before]
        return new or None
    new = at.wait_for(toast_undo, 3)
    if new:
        undo, which = new[-1], "the toast's"
    else:
        undos = at.buttons(window.tree(), "Undo")
        if not undos:
            raise Failure("deleted, but no Undo button appeared (no toast?)")
        undo, which = undos[-1], "the last Undo in the tree (no new Undo button appeared: is there a toast?)"
    at.press(undo)

    def back():
        return [s for s in agent.sessions(local(yesterday(), 0), local(today(), 0))
                if s["start"] == session["start"] and s["end"] == session["end"]]
    if not at.wait_for(back, 3):
        raise Failure(f"deleted{confirmed}, but pressing {which} Undo did not bring it back (ListSessions)")
    if not new:
        raise Failure(f"deleted{confirmed} and back after Undo, but {which} was pressed")
    return f"Delete session {how}: gone from ListSessions{confirmed}; {which} Undo: back"


def check_new_project(window):
    window.select_page("Projects")
    window.press("New project")
    name = window.field("Name", timeout=4)
    window.note_dialog_names()
    at.type_into(name, "Garden")
    category = window.field("Category")
    at.type_into(category, "Home")
    nodes = window.tree()
    dialog = window.dialog(nodes)
    saves = at.buttons(dialog if dialog else nodes, "Save")
    if not saves:
        raise Failure("no Save button in the project dialog")
    at.press(saves[0])

    def made():
        return [p for p in agent.projects() if p["name"] == "Garden"]
    if not at.wait_for(made, 3):
        raise Failure(f"ListProjects has no Garden: {[p['name'] for p in agent.projects()]}")
    project = made()[0]
    if project["category"] != "Home":
        raise Failure(f"Garden's category is {project['category']!r}, not 'Home'")
    if "Home" not in agent.categories():
        raise Failure(f"ListCategories has no Home: {agent.categories()}")
    return "ListProjects: Garden in Home; ListCategories has Home"


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

    def dialog_names():
        if not window.dialog_names:
            raise Failure("no dialog was seen (checks 3 and 5 did not get that far)")
        twice = {title: names for title, names in window.dialog_names.items() if names}
        if twice:
            raise Failure("names said twice (give each field one name: its accessible label or a labelled-by/"
                          "mnemonic label, not both): " + "; ".join(f"{title}: {', '.join(sorted(names))}"
                                                                  for title, names in twice.items()))
        return f"dialogs {', '.join(repr(t) for t in window.dialog_names)}: none said twice"
    report.run("dialog-names", "0. accessible names in the dialogs", dialog_names)
    report.run("focus", "6. the focus timer in the Now view: its phase, bar and buttons", focus_check.check_focus, window, Failure)
    report.run("agent-restart", "7. agent killed (-9) and restarted: the window says it is reconnecting, then recovers",
               check_agent_restart, window, args.agent_pid_file, args.agent_log, args.argv)
    report.run("dialog-kept", "7. agent killed and restarted while the New project dialog is open: what was typed stays",
               check_dialog_kept, window, args.agent_pid_file, args.agent_log, args.argv)
    return report


# MARK: screenshots

def shoot(window, path):
    """The window's part of the screen (import -window root, cut to the window)."""
    ids = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(window.pid)],
                         capture_output=True, text=True).stdout.split()
    full = path + ".root.png"
    subprocess.run(["import", "-window", "root", full], check=True)
    geometry = None
    for xid in ids:
        info = subprocess.run(["xwininfo", "-id", xid], capture_output=True, text=True).stdout
        numbers = {k: int(v) for k, v in re.findall(r"(Absolute upper-left [XY]|Width|Height):\s+(-?\d+)", info)}
        if numbers.get("Width", 0) > 100:
            geometry = (numbers["Width"], numbers["Height"], numbers["Absolute upper-left X"],
                        numbers["Absolute upper-left Y"])
            break
    if geometry:
        w, h, x, y = geometry
        subprocess.run(["convert", full, "-crop", f"{w}x{h}+{x}+{y}", "+repage", path], check=True)
    else:
        os.replace(full, path)
    if os.path.exists(full):
        os.remove(full)
    colors = int(subprocess.run(["convert", path, "-format", "%k", "info:"], capture_output=True, text=True).stdout or 0)
    mean = float(subprocess.run(["convert", path, "-colorspace", "gray", "-format", "%[fx:mean]", "info:"],
                                capture_output=True, text=True).stdout or 0)
    return colors, mean


def fill_today():
    """A morning of work for the pictures' Day and Week views (once; only what fits before now)."""
    now = int(time.time())
    midnight = local(today(), 0)
    if any(s["note"] == "Read the review of chapter 2" for s in agent.sessions(midnight, now)):
        return
    if now - midnight < 5 * 3600:
        return
    reading = agent.project_id("Reading")
    writing = agent.project_id("Writing")
    if reading:
        agent.add_session(reading, now - 4 * 3600 - 1800, "1h15m", "Read the review of chapter 2")
    if writing:
        agent.add_session(writing, now - 2 * 3600, "1h30m", "Rewrote the opening of chapter 3")


def command_shots(args):
    window = Window(args.pid)
    report = Report(args.output, args.pid)
    if not at.wait_for(lambda: at.windows(window.tree()), 20, interval=0.1):
        report.not_ok("the window appeared on the accessibility bus (for the pictures)", "shots")
        return report
    fill_today()
    ensure_running()
    time.sleep(1.5)  # a tick or two on the clock
    means = {}
    for page, file in (("Now", "window-now"), ("Day", "window-day"), ("Week", "window-week")):
        def picture(page=page, file=file):
            window.select_page(page)
            time.sleep(0.8)  # the page's transition and its data
            path = os.path.join(args.output, f"{file}{args.suffix}.png")
            colors, mean = shoot(window, path)
            means[page] = mean
            if colors < 16:
                raise Failure(f"{path} has {colors} colours: an empty picture")
            return f"{path}, {colors} colours, mean grey {mean:.2f}"
        report.run(f"shot-{page.lower()}{args.suffix}", f"9. picture of the {page} view{args.suffix}", picture)
    def focus_picture():
        focus_check.start_for_picture()
        try:
            window.select_page("Now")
            time.sleep(0.8)
            path = os.path.join(args.output, f"window-focus{args.suffix}.png")
            colors, _ = shoot(window, path)
            if colors < 16:
                raise Failure(f"{path} has {colors} colours: an empty picture")
            return f"{path}, {colors} colours"
        finally:
            focus_check.stop_after_picture()
    report.run(f"shot-focus{args.suffix}", f"9. picture of the Now view in a focus phase{args.suffix}", focus_picture)
    if args.suffix == "-dark" and means:
        mean = sum(means.values()) / len(means)

        def dark():
            if mean >= 0.5:
                raise Failure(f"the dark pictures are light (mean grey {mean:.2f}): the window did not follow "
                              "the dark colour scheme")
            return f"mean grey {mean:.2f}"
        report.run("dark", "9. with the system's dark colour scheme the window is dark", dark)
    return report


# MARK: read-only

def command_read_only(args):
    window = Window(args.pid)
    report = Report(args.output, args.pid)
    if not at.wait_for(lambda: at.windows(window.tree()), 20, interval=0.1):
        report.not_ok("the window appeared on the accessibility bus (read-only store)", "read-only")
        return report
    message = agent.prop("StorageMessage")
    state = agent.prop("StorageState")
    label = "8. read-only store"

    def shown():
        if state != "read-only":
            raise Failure(f"the agent's StorageState is {state!r}: the test's store is not read-only")
        wanted = " ".join(message.split())

        def probe():
            return [t for _, t in window.texts(window.tree()) if t and (wanted in " ".join(t.split())
                                                                      or (len(t) > 20 and " ".join(t.split()) in wanted))]
        found = at.wait_for(probe, 5)
        if not found:
            raise Failure(f"no text in the window shows StorageMessage {message!r}")
        return f"{found[0][:80]!r}"
    report.run("read-only-message", f"{label}: the StorageMessage is shown", shown)
    required = [n for n in args.names.split(",") if n]
    optional = [n for n in args.optional.split(",") if n]
    for name in required + optional:
        def insensitive(name=name):
            pages = [p for p, names in PAGE_MARKERS.items() if name in names] or ["Now"]
            for page in pages + list(PAGES):
                window.select_page(page)
                found = at.buttons(window.main(window.tree()), name)
                if found:
                    break
            if not found and name in optional:
                return "not shown"
            if not found:
                raise Failure(f"no control named {name!r} in any view")
            live = [n for n in found if n.sensitive]
            if live:
                raise Failure(f"{len(live)} of {len(found)} {name!r} controls are sensitive: {live}")
            return f"{len(found)} found, none sensitive"
        what = f"{name} is insensitive" + (" where shown" if name in optional else "")
        report.run(f"read-only-{name.lower().replace(' ', '-')}", f"{label}: {what}", insensitive)
    return report


# MARK: launch (bench)

def command_launch(args):
    """Starts ARGV and waits for its window: mapped (X) and every --require met over AT-SPI:
    label:TEXT (a label showing TEXT, maybe after a colour mark), button:NAME, buttons:NAME:COUNT
    (COUNT buttons so named: a row's Edit session for each of today's sessions).
    GTK 4 makes its accessibles when a client first asks for them, which costs the window time
    while it starts (a whole walk: about a second). So a first, calibrating start (--paths FILE
    missing) walks the whole tree once everything is shown and writes where each required node
    is (its child indices); the measured starts then look only along those paths (a few dozen
    calls a look). Prints the milliseconds from exec to all met, to the window mapped, and the
    longest look (the resolution); the pid goes to --pid-file."""
    requirements = []
    for text in args.require:
        kind, _, rest = text.partition(":")
        if kind == "buttons":
            name, _, count = rest.rpartition(":")
            requirements.append((kind, name, int(count)))
        else:
            requirements.append((kind, rest, 1))
    paths = None
    if requirements and args.paths and os.path.exists(args.paths):
        with open(args.paths) as f:
            paths = [tuple(p) for p in json.load(f)]
    started = time.monotonic()
    process = subprocess.Popen(args.argv, stdin=subprocess.DEVNULL, stdout=open(args.log, "a"),
                               stderr=subprocess.STDOUT)
    with open(args.pid_file, "w") as f:
        f.write(f"{process.pid}\n")
    looks, seen, found = [], [], []

    def wanted(node, kind, what):
        if kind == "label":
            return node.role == "label" and shows_name(node.name, what)
        return node.role in at.BUTTON_ROLES and at.same_name(node.name, what)

    def whole(app):
        """Every requirement met in a whole walk: the paths of the nodes that meet them."""
        nodes = list(at.walk(app))
        where = []
        for kind, what, count in requirements:
            hits = [n.path for n in nodes if wanted(n, kind, what)]
            if len(hits) < count:
                return None
            where.extend(hits[:count])
        return where

    def along(app):
        """The calibrated paths hold, each, a node meeting its requirement."""
        kinds = [(kind, what) for kind, what, count in requirements for _ in range(count)]
        for path, (kind, what) in zip(paths, kinds):
            acc = app
            for index in path:
                try:
                    acc = acc.get_child_at_index(index)
                except Exception:  # noqa: BLE001 (not there yet)
                    acc = None
                if acc is None:
                    return False
            if not wanted(at.Node(acc, path), kind, what):
                return False
        return True

    def mapped():
        shown = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(process.pid)],
                               capture_output=True, text=True).stdout.split()
        return bool(shown)

    def ready():
        if process.poll() is not None:
            raise SystemExit(f"{args.argv[0]} exited with {process.returncode}")
        # Mapped first (X), then what it shows (AT-SPI): a GTK 3 application asked over AT-SPI
        # while it starts may never answer (Hamster), and the window must be mapped anyway.
        if not seen:
            if not mapped():
                return False
            seen.append(time.monotonic())
        if not requirements:
            return True
        app = at.application(process.pid)
        if app is None:
            return False
        looked = time.monotonic()
        if paths is not None:
            ok = along(app)
        else:
            where = whole(app)
            ok = where is not None
            if ok:
                found.append(where)
        looks.append(time.monotonic() - looked)
        return ok
    if not at.wait_for(ready, args.timeout, interval=0.01):
        print("timeout")
        return 1
    took = (time.monotonic() - started) * 1000
    if found and args.paths:
        with open(args.paths, "w") as f:
            json.dump(found[0], f)
    print(f"{took:.0f} {(seen[0] - started) * 1000:.0f} {max(looks) * 1000 if looks else 0:.0f}"
          f"{' calibrating' if found else ''}")
    return 0


# MARK: main

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
