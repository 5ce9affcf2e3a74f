"""The window as AT-SPI shows it, for scripts/window-check.py and scripts/bench-window.sh.

Finds a process's application on the accessibility bus, walks its tree (fresh every time: the
cache is switched off for it, so a name or state that just changed is read as it is now), finds
widgets by role and accessible name, presses them through their Action interface and types into
them through EditableText. Never coordinates: GTK 4.8 reports none.

What GTK 4.8 + libadwaita 1.2 look like over AT-SPI (tried under Xvfb): a button is a
"push button" with the action "click", named by its label or its accessible label; a view
switcher's pages are "page tab"s (action "click", state "selected" on the current one); the
pages of an AdwViewStack all stay in the tree (no "showing" state tells the current one), so a
page is found as the child of the stack that holds that page's own controls; a GtkListBoxRow or
AdwActionRow is a "list item" with no action of its own unless the row has an action group
inserted (gtk_widget_insert_action_group: then "row.activate" and the like are its actions); an
entry or AdwEntryRow is a "text" with EditableText; a hidden widget is not in the tree at all.
A control given both an accessible label and a labelled-by relation (a mnemonic label) is named
twice ("End End"); libadwaita's toast button is named so too ("Undo Undo"). GTK 4 makes an
accessible when a client first asks for it, so a first walk of a new window costs it time.
"""
import time

import gi
gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

# No call may wait for ever: a GTK 3 application (Hamster) asked while it starts may never answer
# that call. 2 s for a call, also while an application starts (libatspi's default: 15 s).
Atspi.set_timeout(2000, 2000)

# The roles that take a press.
BUTTON_ROLES = ("push button", "toggle button", "page tab", "radio button", "check box", "menu item",
                "link", "switch")


class Node:
    """One accessible with the little we read of it, and its path (child indices from the app)."""
    __slots__ = ("acc", "path", "role", "name", "states", "depth")

    def __init__(self, acc, path):
        self.acc, self.path, self.depth = acc, path, len(path)
        try:
            self.role = acc.get_role_name()
        except Exception:  # noqa: BLE001 (gone while we read it)
            self.role = "?"
        try:
            self.name = acc.get_name() or ""
        except Exception:  # noqa: BLE001
            self.name = ""
        try:
            state_set = acc.get_state_set()
            self.states = {Atspi.StateType(s).value_nick for s in state_set.get_states()}
        except Exception:  # noqa: BLE001
            self.states = set()

    @property
    def sensitive(self):
        return "sensitive" in self.states

    def text(self):
        """A label's or an entry's text (a label's name is its text in GTK 4)."""
        try:
            text = self.acc.get_text_iface()
            if text is not None:
                return Atspi.Text.get_text(self.acc, 0, Atspi.Text.get_character_count(self.acc))
        except Exception:  # noqa: BLE001
            pass
        return self.name

    def actions(self):
        try:
            if self.acc.get_action_iface() is None:
                return []
            return [Atspi.Action.get_action_name(self.acc, i) for i in range(Atspi.Action.get_n_actions(self.acc))]
        except Exception:  # noqa: BLE001
            return []

    def __repr__(self):
        return f"{self.role} {self.name!r} [{', '.join(sorted(self.states))}]"


def desktop():
    return Atspi.get_desktop(0)


def application(pid):
    """The accessible application of process `pid`, or None."""
    top = desktop()
    for index in range(top.get_child_count()):
        try:
            app = top.get_child_at_index(index)
            if app is not None and app.get_process_id() == pid:
                try:
                    # Asked before the cache is switched off: a GTK 3 application (Hamster) whose
                    # first question came after it never answered the next.
                    app.get_toolkit_name()
                    app.set_cache_mask(Atspi.Cache.NONE)
                except Exception:  # noqa: BLE001
                    pass
                return app
        except Exception:  # noqa: BLE001 (an application that went away)
            continue
    return None


def walk(root, path=()):
    """Every node under root (root included), depth first, in the order GTK gives."""
    stack = [(root, tuple(path))]
    while stack:
        acc, where = stack.pop()
        node = Node(acc, where)
        yield node
        try:
            count = acc.get_child_count()
        except Exception:  # noqa: BLE001
            count = 0
        children = []
        for index in range(count):
            try:
                child = acc.get_child_at_index(index)
            except Exception:  # noqa: BLE001
                child = None
            if child is not None:
                children.append((child, where + (index,)))
        stack.extend(reversed(children))


def nodes(pid):
    """Every node of the application of `pid` (empty when it has none yet)."""
    app = application(pid)
    return list(walk(app)) if app is not None else []


def windows(all_nodes):
    """The toplevels (main window first, then dialogs in the order GTK lists them)."""
    return [n for n in all_nodes if n.depth == 1]


def under(all_nodes, root):
    """The nodes inside `root` (root included)."""
    size = len(root.path)
    return [n for n in all_nodes if n.path[:size] == root.path]


def find(all_nodes, name=None, roles=None, contains=None, predicate=None):
    found = []
    for node in all_nodes:
        if roles is not None and node.role not in roles:
            continue
        if name is not None and node.name != name:
            continue
        if contains is not None and contains.lower() not in node.name.lower():
            continue
        if predicate is not None and not predicate(node):
            continue
        found.append(node)
    return found


def same_name(actual, wanted):
    """`wanted`, or `wanted` twice: GTK 4.8 joins an accessible label and a labelled-by relation
    ("End End" for an entry with both; libadwaita's own toast button is "Undo Undo"). Such names
    still find the control; the names check reports them (doubled()), as a screen reader reads both."""
    return actual == wanted or (bool(wanted) and actual.split() == wanted.split() * 2)


def doubled(name):
    words = name.split()
    half = len(words) // 2
    return len(words) >= 2 and len(words) % 2 == 0 and words[:half] == words[half:]


def buttons(all_nodes, name):
    """Buttons named `name` (see same_name)."""
    return find(all_nodes, roles=BUTTON_ROLES, predicate=lambda n: same_name(n.name, name))


def editables(all_nodes, name):
    """Text fields named `name`: an entry (role text, EditableText) or a row named so that holds one."""
    named = find(all_nodes, predicate=lambda n: same_name(n.name, name))
    direct = [n for n in named if _editable(n)]
    if direct:
        return direct
    for holder in named:
        inside = [n for n in under(all_nodes, holder) if n is not holder and _editable(n)]
        if inside:
            return inside[:1]
    return []


def _editable(node):
    try:
        return node.acc.get_editable_text_iface() is not None and "editable" in node.states
    except Exception:  # noqa: BLE001
        return False


def ancestors(all_nodes, node):
    by_path = {n.path: n for n in all_nodes}
    return [by_path[node.path[:k]] for k in range(len(node.path) - 1, -1, -1) if node.path[:k] in by_path]


def common_prefix(a, b):
    k = 0
    while k < len(a) and k < len(b) and a[k] == b[k]:
        k += 1
    return a[:k]


class ActionError(Exception):
    pass


PREFERRED_ACTIONS = ("click", "activate", "press", "row.activate", "toggle")


def press(node, action=None):
    """Does the node's action: `action` if named, else click/activate, else its only one."""
    names = node.actions()
    if not names:
        raise ActionError(f"{node!r} has no AT-SPI action")
    if action is not None:
        choice = names.index(action) if action in names else None
    else:
        choice = next((names.index(a) for a in PREFERRED_ACTIONS if a in names), None)
        if choice is None:
            choice = next((i for i, a in enumerate(names) if a.endswith(".activate")), None)
        if choice is None and len(names) == 1:
            choice = 0
    if choice is None:
        raise ActionError(f"{node!r}: none of its actions {names} presses it")
    if not Atspi.Action.do_action(node.acc, choice):
        raise ActionError(f"{node!r}: doAction({names[choice]}) returned false")
    return names[choice]


def type_into(node, text):
    """Replaces a field's text through EditableText (the widget gets a normal change)."""
    if not Atspi.EditableText.set_text_contents(node.acc, text):
        raise ActionError(f"{node!r}: setTextContents refused")


def wait_for(probe, timeout, interval=0.05):
    """Calls probe() until it returns something true; that value, or None after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = probe()
        except ActionError:
            value = None
        if value:
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(interval)


def dump(all_nodes):
    """The tree as text: one node a line, indented, with role, name, states, actions and text."""
    lines = []
    for node in all_nodes:
        extra = ""
        actions = node.actions()
        if actions and not all(a.startswith(("clipboard.", "selection.", "link.", "menu.")) for a in actions):
            extra += f" actions={actions}"
        if node.role in ("text", "entry", "label", "spin button"):
            text = node.text()
            if text != node.name:
                extra += f" text={text!r}"
        lines.append("  " * node.depth + repr(node) + extra)
    return "\n".join(lines) + "\n"
