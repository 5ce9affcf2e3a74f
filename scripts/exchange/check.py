#!/usr/bin/env python3
"""Checks for scripts/test-exchange.sh; each prints a value or exits non-zero saying what is wrong.

    check.py json-total < watson-report.json        total seconds of `watson report --json`
    check.py report-total < weekly-report.json      total seconds of `timectl report --json`
    check.py count < list.json                      number of items of a JSON array
    check.py hms H:MM:SS                            seconds
    check.py session FILE PROJECT ISO-START ACTIVE|- NOTE
    check.py csv FILE N | toggl FILE N              RFC 4180, CRLF, header, N rows
    check.py ical FILE N                            icalendar parses it; lines, folding, CRLF
    check.py same PROJECTS1 PROJECTS2 SESSIONS1 SESSIONS2
"""
import csv
import io
import json
import sys
from datetime import datetime


def fail(message):
    sys.exit("check.py: " + message)


def load(path):
    with (sys.stdin if path == "-" else open(path, encoding="utf-8")) as f:
        return json.load(f)


def main():
    command, *args = sys.argv[1:]
    if command == "json-total":
        print(int(load("-")["time"]))
    elif command == "report-total":
        print(load("-")["total"])
    elif command == "count":
        print(len(load("-")))
    elif command == "hms":
        h, m, s = (int(x) for x in args[0].split(":"))
        print(h * 3600 + m * 60 + s)
    elif command == "session":
        path, project, start, active, note = args
        when = int(datetime.fromisoformat(start).timestamp())
        found = [s for s in load(path) if s["project"] == project and s["start"] == when]
        if len(found) != 1:
            fail(f"no session of {project!r} at {start}; sessions: "
                 + ", ".join(f"{s['project']}@{datetime.fromtimestamp(s['start']).astimezone().isoformat()}" for s in load(path)))
        s = found[0]
        if active != "-" and s["active"] != int(active):
            fail(f"{project} at {start}: {s['active']} s active, expected {active}")
        if s["note"] != note:
            fail(f"{project} at {start}: note {s['note']!r}, expected {note!r}")
        if s["segments"] != [[s["start"], s["end"]]]:
            fail(f"{project} at {start}: segments {s['segments']}, expected one exact segment")
    elif command in ("csv", "toggl"):
        path, n = args
        raw = open(path, "rb").read()
        if raw.startswith(b"\xef\xbb\xbf"):
            fail("a BOM")
        text = raw.decode("utf-8")
        rows = list(csv.reader(io.StringIO(text, newline=""), strict=True))
        header = {"csv": "id,project,category,start,end,duration_seconds,duration,note",
                  "toggl": "Email,Client,Project,Description,Start date,Start time,Duration,Tags"}[command]
        if ",".join(rows[0]) != header:
            fail(f"header {rows[0]}")
        if len(rows) - 1 != int(n):
            fail(f"{len(rows) - 1} rows, expected {n}")
        if any(len(r) != len(rows[0]) for r in rows):
            fail("rows of different lengths")
        if text.replace("\r\n", "").count("\n") != sum(r[-1].count("\n") + r[3].count("\n") for r in rows):
            fail("a line ending that is not CRLF outside a quoted field")
        if command == "csv":
            for r in rows[1:]:
                start, end = datetime.fromisoformat(r[3]), datetime.fromisoformat(r[4])
                if start.utcoffset() is None or int(r[5]) > (end - start).total_seconds():
                    fail(f"row {r}")
    elif command == "ical":
        import icalendar  # from the virtual environment
        path, n = args
        raw = open(path, "rb").read()
        lines = raw.split(b"\r\n")
        if lines[-1] != b"" or any(b"\n" in l or b"\r" in l for l in lines):
            fail("a line not ended by CRLF")
        for l in lines:
            if len(l) > 75:
                fail(f"a line of {len(l)} octets")
            l.decode("utf-8")  # a fold inside a character would not decode
        calendar = icalendar.Calendar.from_ical(raw)
        if calendar.get("VERSION") != "2.0" or not calendar.get("PRODID"):
            fail("VERSION or PRODID")
        events = calendar.walk("VEVENT")
        if len(events) != int(n):
            fail(f"{len(events)} events, expected {n}")
        for e in events:
            for key in ("UID", "DTSTAMP", "DTSTART", "DTEND", "SUMMARY"):
                if key not in e:
                    fail(f"an event without {key}")
            if e.decoded("DTSTART").utcoffset().total_seconds() != 0:
                fail("DTSTART not in UTC")
    elif command == "same":
        p1, p2, s1, s2 = (load(a) for a in args)
        strip = lambda items, keys: sorted((json.dumps({k: v for k, v in i.items() if k not in keys}, sort_keys=True) for i in items))
        if strip(p1, {"id"}) != strip(p2, {"id"}):
            fail(f"projects differ:\n{p1}\n{p2}")
        if strip(s1, {"id", "project_id"}) != strip(s2, {"id", "project_id"}):
            fail(f"sessions differ:\n{s1}\n{s2}")
    else:
        fail("unknown command " + command)


if __name__ == "__main__":
    main()
