#!/usr/bin/env python3
"""trace_summary.py - where a traced run's time went: per span name (and
category), the number of spans, their total and longest duration, and the
threads they ran on, from a `tessera --trace FILE` trace (Chrome trace
format). Spans of parallel threads overlap, so totals can exceed the wall
time; the phase rows (category "phase") are wall time of the main thread.

usage: bench/trace_summary.py TRACE.json [--rank R]
"""
import json
import sys
from collections import defaultdict


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    rank = None
    if "--rank" in sys.argv:
        rank = int(sys.argv[sys.argv.index("--rank") + 1])
    with open(sys.argv[1]) as f:
        d = json.load(f)
    events = d["traceEvents"] if isinstance(d, dict) else d
    rows = defaultdict(lambda: [0, 0.0, 0.0, set()])
    for e in events:
        if e.get("ph") != "X" or (rank is not None and e.get("pid") != rank):
            continue
        r = rows[(e.get("cat", "?"), e["name"])]
        dur = e.get("dur", 0) / 1e6
        r[0] += 1
        r[1] += dur
        r[2] = max(r[2], dur)
        r[3].add(e.get("tid"))
    print(f"{'category':<12} {'span':<28} {'count':>7} {'total s':>10} {'max s':>10} {'threads':>7}")
    for (cat, name), (n, tot, mx, tids) in sorted(rows.items(), key=lambda kv: -kv[1][1]):
        print(f"{cat:<12} {name:<28} {n:>7} {tot:>10.4f} {mx:>10.4f} {len(tids):>7}")


if __name__ == "__main__":
    main()
