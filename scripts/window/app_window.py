"""Time's main window and its dialogs as the checks see them over AT-SPI: its pages (the view
stack's Now, Projects, Day and Week), their buttons and the dialogs' fields."""
import time

import atspi_tree as at
from report import Failure


PAGES = ("Now", "Projects", "Day", "Week")
# Controls that belong to one page: the page's root is the child of the view stack holding them.
PAGE_MARKERS = {
    "Now": ("Pause", "Resume", "Stop", "Start"),
    "Projects": ("New project",),
    "Day": ("Previous day", "Next day", "Add time", "Edit session", "Delete session"),
    "Week": ("Previous week", "Next week", "Export", "Import"),
}
ROW_ROLES = ("list item", "row", "table row", "tree item", "table cell")


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
