#!/usr/bin/python3
"""Writes a Hamster 3.0 database holding a generated history, for scripts/bench-window.sh:

    history.py --sessions N --out PATH/hamster.db

Starts from the empty database Hamster itself copies on first use (/usr/share/hamster/hamster.db,
schema version 9) and writes its tables directly: 6 categories, 30 activities, N facts, about 8
a day on consecutive days up to today (local wall-clock times, as Hamster stores them), some with
a note; today's facts end before now and the last one is still running (end_time NULL). Time
gets the same history through `timectl import hamster PATH` (which leaves the running fact out:
the bench starts it with `timectl start`). Prints the running activity's name and category as JSON.
"""
import argparse
import datetime as dt
import json
import shutil
import sqlite3

CATEGORIES = ["Work", "Study", "Home", "Clients", "Writing", "Admin"]
NOTES = ["Drafted the introduction and fixed typos", "Call with the client about the next steps",
         "Reviewed pull requests and left comments", "", "", "Planning for the sprint, estimates updated"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--template", default="/usr/share/hamster/hamster.db")
    args = parser.parse_args()

    shutil.copyfile(args.template, args.out)
    db = sqlite3.connect(args.out)
    for index, name in enumerate(CATEGORIES, start=1):
        db.execute("INSERT INTO categories (id, name, color_code, category_order, search_name) VALUES (?, ?, '', ?, ?)",
                   (index, name, index, name.lower()))
    activities = []
    for index in range(1, 31):
        name = f"Project {index}"
        category = (index - 1) % len(CATEGORIES) + 1
        db.execute("INSERT INTO activities (id, name, work, activity_order, deleted, category_id, search_name) "
                   "VALUES (?, ?, 0, ?, 0, ?, ?)", (index, name, index, category, name.lower()))
        activities.append((index, name, CATEGORIES[category - 1]))

    now = dt.datetime.now().replace(microsecond=0)
    today = now.date()
    # Today: as many 45-minute facts as fit from 08:00 before now (at least the running one), the
    # last of them running since a few minutes ago.
    slots_today = []
    start = dt.datetime.combine(today, dt.time(8))
    while start + dt.timedelta(minutes=50) < now - dt.timedelta(minutes=10) and len(slots_today) < 7:
        slots_today.append((start, start + dt.timedelta(minutes=45)))
        start += dt.timedelta(minutes=60)
    running_start = max(now - dt.timedelta(minutes=5), slots_today[-1][1] if slots_today else now - dt.timedelta(minutes=5))
    past = args.sessions - len(slots_today) - 1
    rows, seed = [], 0x2545F491

    def rand(bound):
        nonlocal seed
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        return seed % bound
    days = (past + 7) // 8
    for index in range(past):
        day = today - dt.timedelta(days=days - index // 8)
        begin = dt.datetime.combine(day, dt.time(8)) + dt.timedelta(minutes=90 * (index % 8) + rand(15))
        end = begin + dt.timedelta(minutes=15 + rand(60))
        rows.append((activities[rand(30)][0], begin, end, NOTES[rand(len(NOTES))]))
    for begin, end in slots_today:
        rows.append((activities[rand(30)][0], begin, end, NOTES[rand(len(NOTES))]))
    running = activities[rand(30)]
    rows.append((running[0], running_start, None, ""))

    text = "%Y-%m-%d %H:%M:%S"
    db.executemany("INSERT INTO facts (activity_id, start_time, end_time, description) VALUES (?, ?, ?, ?)",
                   [(a, b.strftime(text), e.strftime(text) if e else None, n) for a, b, e, n in rows])
    db.commit()
    db.close()
    print(json.dumps({"running": running[1], "category": running[2], "facts": len(rows), "today": len(slots_today) + 1}))


if __name__ == "__main__":
    main()
