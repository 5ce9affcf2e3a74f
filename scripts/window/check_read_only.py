"""Check 8 (`window-check.py read-only`): with a read-only store the StorageMessage is shown and
the controls that change data are insensitive."""
import agent
import atspi_tree as at
from app_window import PAGE_MARKERS, PAGES, Window
from report import Failure, Report


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
