"""`window-check.py launch` for scripts/bench-window.sh: milliseconds from exec to a window
showing what it must."""
import json
import os
import subprocess
import time

import atspi_tree as at
from common import shows_name


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
        """The calibrated paths hold, each, a node meeting its requirement. The paths share their
        first steps (the window, the view stack, the Day view's list): each step is one AT-SPI
        round trip into the window, so a look asks for a shared step once, not once a path (the
        instrument's own cost, which the window pays on its main thread while it starts)."""
        kinds = [(kind, what) for kind, what, count in requirements for _ in range(count)]
        seen = {(): app}

        def node_at(path):
            if path not in seen:
                parent = node_at(path[:-1])
                try:
                    seen[path] = parent.get_child_at_index(path[-1]) if parent is not None else None
                except Exception:  # noqa: BLE001 (not there yet)
                    seen[path] = None
            return seen[path]
        for path, (kind, what) in zip(paths, kinds):
            acc = node_at(tuple(path))
            if acc is None or not wanted(at.Node(acc, path), kind, what):
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
