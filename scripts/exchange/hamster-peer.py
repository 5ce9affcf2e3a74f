#!/usr/bin/env python3
"""Writes and reads Hamster 3.0 facts through Hamster's own storage code (no display needed).

    hamster-peer.py add START END ACTIVITY CATEGORY DESCRIPTION TAG,TAG   (END "" = running)
    hamster-peer.py edit ID START END     (Hamster gives the edited fact a new id)
    hamster-peer.py total FROM TO         (seconds of the facts of those days, by Hamster)
Times are local wall-clock "YYYY-MM-DD HH:MM", as Hamster stores them. The database is Hamster's
default, $XDG_DATA_HOME/hamster/hamster.db (its database_dir argument is broken in 3.0.2).
Hamster's modules need a session bus (run under dbus-run-session).
"""
import sys
import warnings

warnings.filterwarnings("ignore")
from hamster.lib import datetime as dt  # noqa: E402
from hamster.lib.fact import Fact  # noqa: E402
from hamster.storage.db import Storage  # noqa: E402


def when(text):
    return dt.datetime.strptime(text, "%Y-%m-%d %H:%M") if text else None


def main():
    command, *args = sys.argv[1:]
    storage = Storage(unsorted_localized="")
    if command == "add":
        start, end, activity, category, description, tags = args
        fact = Fact(activity=activity, category=category or None, description=description,
                    tags=[t for t in tags.split(",") if t], start_time=when(start), end_time=when(end))
        print(storage.add_fact(fact))
    elif command == "edit":
        fact_id, start, end = args
        fact = storage.get_fact(int(fact_id))
        fact.start_time, fact.end_time = when(start), when(end)
        print(storage.update_fact(int(fact_id), fact))
    elif command == "total":
        first, last = (dt.date.fromisoformat(a) for a in args)
        facts = storage.get_facts(first, last)
        print(int(sum(f.delta.total_seconds() for f in facts if f.end_time)))
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
