#!/usr/bin/env python3
"""trace_check.py - checks a `tessera --trace` file (Chrome trace-event JSON).

    python3 trace_check.py FILE --ranks N [--chunks N] [--cat NAME ...] [--io-bytes N]

Checks that FILE is valid JSON with a "traceEvents" list in which
  - every event has ph, pid, tid and name; every complete event ("X") has
    numeric ts >= 0 and dur >= 0 and a known category;
  - the pids are exactly 0..N-1 (one process row per rank), each with a
    process_name metadata event, and every (pid, tid) used by an event has a
    thread_name metadata event;
  - with --chunks: the "chunks" counts of the "chunk" events (CPU: one per
    chunk task) and "device" events (GPU: one per kernel launch over up to 64
    chunks) add up to N (every chunk computed exactly once, over all ranks),
    and no chunk id appears twice for one reduction;
  - with --cat: each named category has at least one event on every rank
    (io: on rank 0 only);
  - with --io-bytes: the io events' bytes add up to N.
Prints one line per rank (events, chunk tasks, busy seconds) and exits 1 with
the reasons when a check fails.
"""
import argparse
import collections
import json
import sys

CATS = {"phase", "chunk", "materialize", "backend", "device", "combine", "comm", "io"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("file")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--chunks", type=int)
    ap.add_argument("--cat", action="append", default=[])
    ap.add_argument("--io-bytes", type=int)
    a = ap.parse_args()
    bad = []
    try:
        with open(a.file) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        print(f"trace_check: {a.file}: not valid JSON: {e}")
        return 1
    events = doc.get("traceEvents") if isinstance(doc, dict) else None
    if not isinstance(events, list) or not events:
        print(f"trace_check: {a.file}: no traceEvents list")
        return 1

    pnames, tnames = {}, set()
    per_rank = collections.defaultdict(lambda: {"events": 0, "chunks": 0, "busy": 0.0})
    cats = collections.defaultdict(set)
    chunk_total, io_bytes = 0, 0
    seen_chunk = collections.Counter()
    used = set()
    for i, e in enumerate(events):
        if not isinstance(e, dict) or any(k not in e for k in ("ph", "pid", "tid", "name")):
            bad.append(f"event {i} lacks ph/pid/tid/name: {e}")
            continue
        pid, tid = e["pid"], e["tid"]
        if e["ph"] == "M":
            if e["name"] == "process_name":
                pnames[pid] = e.get("args", {}).get("name")
            elif e["name"] == "thread_name":
                tnames.add((pid, tid))
            continue
        if e["ph"] != "X":
            bad.append(f"event {i}: unexpected ph {e['ph']!r}")
            continue
        ts, dur = e.get("ts"), e.get("dur")
        if not isinstance(ts, (int, float)) or not isinstance(dur, (int, float)) or ts < 0 or dur < 0:
            bad.append(f"event {i}: bad ts/dur: {e}")
            continue
        cat = e.get("cat")
        if cat not in CATS:
            bad.append(f"event {i}: unknown category {cat!r}")
        used.add((pid, tid))
        cats[cat].add(pid)
        r = per_rank[pid]
        r["events"] += 1
        args = e.get("args", {})
        if cat in ("chunk", "device"):
            r["chunks"] += args.get("chunks", 0)
            r["busy"] += dur / 1e6
            chunk_total += args.get("chunks", 0)
            if "chunk" in args:
                seen_chunk[(e["name"], args["chunk"])] += 1
        if cat == "io":
            io_bytes += args.get("bytes", 0)

    want = set(range(a.ranks))
    if set(pnames) != want:
        bad.append(f"process_name rows for pids {sorted(pnames)}, expected {sorted(want)}")
    if set(per_rank) != want:
        bad.append(f"events on pids {sorted(per_rank)}, expected {sorted(want)}")
    missing = sorted(used - tnames)
    if missing:
        bad.append(f"no thread_name for (pid, tid) {missing}")
    if a.chunks is not None and chunk_total != a.chunks:
        bad.append(f"chunk events count {chunk_total} chunk tasks, expected {a.chunks}")
    dup = [k for k, n in seen_chunk.items() if n > 1]
    if dup and a.chunks is not None:
        bad.append(f"chunks traced more than once: {dup[:5]}")
    for c in a.cat:
        need = {0} if c == "io" else want
        if not need <= cats.get(c, set()):
            bad.append(f"category {c!r} on ranks {sorted(cats.get(c, set()))}, expected {sorted(need)}")
    if a.io_bytes is not None and io_bytes != a.io_bytes:
        bad.append(f"io events move {io_bytes} bytes, expected {a.io_bytes}")

    for pid in sorted(per_rank):
        r = per_rank[pid]
        print(f"rank {pid} ({pnames.get(pid)}): {r['events']} events, {r['chunks']} chunk tasks, "
              f"{r['busy']:.3f} s in chunk tasks")
    for b in bad:
        print(f"trace_check: {a.file}: {b}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
