#!/usr/bin/env python3
"""The durable path's ratios by the disk's mode (docs/durable-path.md, round six). Some disks
flush in two modes (seen here: a 4 KiB fdatasync of about 0.1 ms, or of 0.5-0.8 ms, switching
over seconds to minutes), so a run's medians mix them. This reads the call log of one or more
`time-bench --durable-only` invocations, splits the rounds by their own floor's flush (`fast`
under --threshold ms), and gives, per mode and per change, the median over the rounds of the
change's time divided by its own round's floor (fdatasync + Ping):

    TIME_BENCH_CALL_LOG=DIR/calls.tsv .build/release/time-bench --durable-only --sizes 100000 --work DIR/work
    scripts/durable-modes.py DIR/calls.tsv [more logs, one per build compared]

A round is the bench's sequence of timed calls ending with the floor's fdatasync. In a mode that
holds a whole round, the change's own flush is in the same mode as the floor's.
"""
import argparse
import statistics

FLUSH = "floor: fdatasync of 4 KiB in place"
PING = "floor: D-Bus Ping to the agent"


def rounds(path):
    """The rounds of a log, by history size (the metric's `N sessions, ` prefix)."""
    found, current = {}, {}
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 3:
                continue
            size, _, call = fields[0].partition(", ")
            current[call] = (int(fields[2]) - int(fields[1])) / 1e6
            if call == FLUSH:
                found.setdefault(size, []).append(current)
                current = {}
    return found


def report(label, found, threshold):
    every = [r for r in found if FLUSH in r and PING in r]
    for mode, pick in (("fast", lambda r: r[FLUSH] < threshold), ("slow", lambda r: r[FLUSH] >= threshold)):
        chosen = [r for r in every if pick(r)]
        if len(chosen) < 10:
            print(f"{label}: {mode} disk: {len(chosen)} rounds, too few")
            continue
        calls = [c for c in chosen[0] if not c.startswith("floor")]
        flush, ping = statistics.median(r[FLUSH] for r in chosen), statistics.median(r[PING] for r in chosen)
        ratios = "  ".join(f"{c.split(',')[0]} {statistics.median(r[c] / (r[FLUSH] + r[PING]) for r in chosen if c in r):.2f}×"
                           for c in calls)
        print(f"{label}: {mode} disk, {len(chosen)} rounds, flush {flush:.3f} ms, Ping {ping:.3f} ms: {ratios}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+")
    parser.add_argument("--threshold", type=float, default=0.3, help="a fast flush takes less (ms; 0.3)")
    arguments = parser.parse_args()
    for path in arguments.logs:
        for size, found in rounds(path).items():
            report(f"{path}, {size}", found, arguments.threshold)


if __name__ == "__main__":
    main()
