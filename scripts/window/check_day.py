"""Checks 3 and 4: the Day view's sessions (yesterday's edited to end at 17:30; deleted, then
brought back by the toast's Undo), with ListSessions as the oracle."""
import datetime as dt

import agent
import atspi_tree as at
from app_window import ROW_ROLES
from common import clock, hhmm, local, today, yesterday
from report import Failure


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


def check_edit_session(window, seed):
    # The seed's day, fixed once: the check may run across midnight.
    the_day, next_day = yesterday(), today()
    sessions = {s["id"]: s for s in agent.sessions(local(the_day, 0), local(next_day, 0))}
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
    want = local(the_day, 17, 30)

    def edited():
        now = {s["id"]: s for s in agent.sessions(local(the_day, 0), local(next_day, 0))}
        return now.get(seed["session"], {}).get("end") == want
    if not at.wait_for(edited, 3):
        now = {s["id"]: s for s in agent.sessions(local(the_day, 0), local(next_day + dt.timedelta(days=1), 0))}
        got = now.get(seed["session"])
        raise Failure(f"ListSessions shows the session ending {hhmm(got['end']) if got else 'nowhere (gone)'}, "
                      f"not {hhmm(want)}")
    return f"Edit session {how}; ListSessions: {hhmm(session['start'])} - {hhmm(want)}"


def check_delete_and_undo(window, seed):
    # The day the seed's session is on, fixed once: the check may run across midnight.
    since, until = local(yesterday(), 0), local(today(), 0)
    sessions = {s["id"]: s for s in agent.sessions(since, until)}
    session = sessions.get(seed["session"])
    if session is None:
        raise Failure("yesterday's session is not there to delete")
    window.select_page("Day")
    needles = [clock(session["start"]).lstrip("0"), clock(session["end"]).lstrip("0")]
    button, how = pick_row_button(window, "Delete session", needles)
    undo_before = {n.path for n in at.buttons(window.tree(), "Undo")}
    at.press(button)

    def gone():
        return seed["session"] not in {s["id"] for s in agent.sessions(since, until)}
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
        return [s for s in agent.sessions(since, until)
                if s["start"] == session["start"] and s["end"] == session["end"]]
    if not at.wait_for(back, 3):
        raise Failure(f"deleted{confirmed}, but pressing {which} Undo did not bring it back (ListSessions)")
    if not new:
        raise Failure(f"deleted{confirmed} and back after Undo, but {which} was pressed")
    return f"Delete session {how}: gone from ListSessions{confirmed}; {which} Undo: back"
