"""Check 0: every control's accessible name is said once, in the main window and in the dialogs."""
import atspi_tree as at
from report import Failure


def check_names(window):
    """Every control's accessible name is said once (GTK 4.8 doubles a name given both as an
    accessible label and by a labelled-by relation, e.g. a mnemonic label: "End End")."""
    nodes = window.tree()
    twice = sorted({f"{n.role} {n.name!r}" for n in nodes if at.doubled(n.name) and n.role != "label"})
    if twice:
        raise Failure(f"{len(twice)} names are said twice (give each control one name: its accessible label or "
                      f"a labelled-by/mnemonic label, not both): {', '.join(twice)}")
    return "none said twice"


def check_dialog_names(window):
    """The dialogs the other checks opened (3 and 5) say every name once."""
    if not window.dialog_names:
        raise Failure("no dialog was seen (checks 3 and 5 did not get that far)")
    twice = {title: names for title, names in window.dialog_names.items() if names}
    if twice:
        raise Failure("names said twice (give each field one name: its accessible label or a labelled-by/"
                      "mnemonic label, not both): " + "; ".join(f"{title}: {', '.join(sorted(names))}"
                                                              for title, names in twice.items()))
    return f"dialogs {', '.join(repr(t) for t in window.dialog_names)}: none said twice"
