"""The results of window-check.py: one line per check, `ok - ...` or `not ok - ...`; on a
failure the window's AT-SPI tree goes beside the results (window-tree-<check>.txt)."""
import os
import sys
import traceback

import atspi_tree as at
from atspi_tree import ActionError


class Failure(Exception):
    """A check's failure, with what was seen."""


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
