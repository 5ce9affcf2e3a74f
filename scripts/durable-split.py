#!/usr/bin/env python3
"""Splits each timed call of `time-bench --durable-only` into the client's wait before the agent
took the message, the agent's own path to its reply, and the reply's way back to the client
(docs/durable-path.md, round three). Run the bench with both logs on:

    TIME_PATH_TRACE=DIR/trace.tsv TIME_BENCH_CALL_LOG=DIR/bench.calls \\
        .build/release/time-bench --durable-only --sizes 100000 --work DIR/work
    scripts/durable-split.py DIR/trace.tsv.calls DIR/bench.calls

Both files hold CLOCK_MONOTONIC nanoseconds (one clock for every process of the machine): the
agent's lines are `method, began, replied`, the bench's `metric, start, end`. A bench call is
matched with the agent's call that began inside it; calls the agent's handler never sees (the
floor's Ping, answered by libdbus, and its fdatasync) have no agent part.
"""
import bisect
import statistics
import sys


def read(path, kind):
    rows = []
    with open(path, encoding="utf-8") as lines:
        for line in lines:
            fields = line.rstrip("\n").split("\t")
            if len(fields) >= 3:
                rows.append((fields[0], int(fields[1]), int(fields[2]), int(fields[3]) if len(fields) > 3 else 0))
    if not rows:
        sys.exit(f"durable-split: {path} holds no {kind} lines; was the bench run with both logs on?")
    return rows


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: durable-split.py AGENT_CALLS BENCH_CALLS")
    agent = sorted(read(sys.argv[1], "agent"), key=lambda row: row[1])
    bench = read(sys.argv[2], "bench")
    begins = [row[1] for row in agent]
    parts = {}
    for metric, start, end, _ in bench:
        index = bisect.bisect_left(begins, start)
        split = parts.setdefault(metric, {"before": [], "agent": [], "flush": [], "work": [], "after": [], "total": []})
        split["total"].append((end - start) / 1e3)
        if index < len(agent) and agent[index][1] <= end:
            _, began, replied, flush = agent[index]
            split["before"].append((began - start) / 1e3)
            split["agent"].append((replied - began) / 1e3)
            split["flush"].append(flush / 1e3)
            split["work"].append((replied - began - flush) / 1e3)
            split["after"].append((end - replied) / 1e3)
    print(f"{'call (µs, medians over every run)':45} {'count':>6} {'to the agent':>13} {'agent to reply':>15} "
          f"{'its flush':>10} {'its CPU':>8} {'reply to client':>16} {'round trip':>11}")
    for metric, split in parts.items():
        def median(name):
            return f"{statistics.median(split[name]):.1f}" if split[name] else "-"
        print(f"{metric:45} {len(split['total']):>6} {median('before'):>13} {median('agent'):>15} "
              f"{median('flush'):>10} {median('work'):>8} {median('after'):>16} {median('total'):>11}")


if __name__ == "__main__":
    main()
