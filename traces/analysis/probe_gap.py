#!/usr/bin/env python3
"""What the executor's per-op tracing costs a warp, from recorded traces.

On one (cta, warp, lane), the gap from the last event of one op instance to the first event
of the next is the code between them: the clock read and record store of the trace probe,
the loop and predicate bookkeeping, and whatever instruction setup the op itself needs. Its
median over many gaps is the per-op cost a traced run adds and an untraced one does not
(model/arch/*.yaml trace_probe_cycles).

usage (from the repository root):
  traces/analysis/probe_gap.py [--gpu NVIDIA-H200] [--split fitting|held_out|all]
Stdlib only.
"""
import argparse, collections, json, os, statistics, sys

from split import split_traces

ap = argparse.ArgumentParser()
ap.add_argument("--gpu", default="NVIDIA-H200")
ap.add_argument("--split", default="fitting", choices=["fitting", "held_out", "all"])
args = ap.parse_args()


gaps = []
per_trace = {}
for folder, name, path in split_traces(args.gpu, args.split):
    streams = collections.defaultdict(list)
    level = None
    with open(path) as fh:
        for line in fh:
            e = json.loads(line)
            if e.get("type") == "header":
                level = e.get("extra", {}).get("trace_level")
            elif e.get("type") == "event" and not e.get("model_only"):
                streams[(e["cta"], e["warp"], e["lane"])].append(e)
    if level not in (None, "all"):
        continue  # only traces with a record around every op show the per-op gap
    mine = []
    for evs in streams.values():
        evs.sort(key=lambda e: e["t"])
        for a, b in zip(evs, evs[1:]):
            same = a["op"] == b["op"] and a["iters"] == b["iters"]
            if not same and b["kind"] in ("issue", "wait_begin"):
                mine.append(b["t"] - a["t"])
    if mine:
        per_trace[folder + "/" + name] = statistics.median(mine)
        gaps += mine

if not gaps:
    sys.exit("no traced gaps found")
gaps.sort()
print(f"{args.gpu}, split {args.split}: {len(per_trace)} traces, {len(gaps)} gaps between consecutive ops on a warp")
print(f"median {statistics.median(gaps):.0f} cycles, p10 {gaps[len(gaps) // 10]}, p90 {gaps[len(gaps) * 9 // 10]}")
print(f"median of the per-trace medians {statistics.median(per_trace.values()):.0f} cycles")
