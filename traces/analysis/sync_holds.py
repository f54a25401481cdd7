#!/usr/bin/env python3
"""How long a CTA sync takes from its last warp's arrival to its first warp's release, split by
what held the sync's end clock in the traced kernel that recorded it.

bar.sync lets a warp run ahead of the release, so the device tracer holds the clock read that
ends a timed sync (device/emit/kernel_writer_trace.cpp, hold_clock_after_barrier): with a __syncwarp,
or, where the words read before the sync wait in shared memory, with their store. The kernel
each fitting trace ran is regenerated (`tmasim codegen --trace all --trace-words <the header's
trace_words_in>`) to tell which hold each sync op had. The __syncwarp-held median stands for
the untraced barrier (model/arch: sync_cycles); the store-held median less it is what a timed
sync pays in a traced kernel (trace_sync_hold_cycles).

usage (from the repository root):
  traces/analysis/sync_holds.py [--gpu GPU] [--tmasim build/cli/tmasim]
Stdlib only; reads only the fitting folders of traces/recorded/SPLIT.yaml.
"""
import argparse, collections, glob, json, os, re, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scaling import ARCH_OF_GPU  # noqa: E402
from split import split_folders  # noqa: E402

OP_LINE = re.compile(r"\s*// op (\d+): sync\b")


def hold_of_each_sync(tmasim, scenario_file, words_in):
    """{op id: "syncwarp" | "store"} in the traced kernel generated for the scenario."""
    src = subprocess.run([tmasim, "codegen", scenario_file, "--trace", "all", "--trace-words", words_in],
                         capture_output=True, text=True, check=True).stdout
    lines = src[src.find('extern "C" __global__'):].splitlines()
    holds = {}
    for i, line in enumerate(lines):
        m = OP_LINE.match(line)
        if not m:
            continue
        for after in lines[i + 1:i + 20]:
            if "trace_after_barrier" in after:
                holds[int(m.group(1))] = "syncwarp"
                break
            if "stored now" in after:
                holds[int(m.group(1))] = "store"
                break
    return holds


def release_after_last_arrival(lines):
    """[(sync op id, release - last arrival)] per sync instance (op, iterations, CTA)."""
    inst = collections.defaultdict(lambda: [None, None])
    for line in lines:
        e = json.loads(line)
        if e.get("type") != "event" or e.get("name") != "sync":
            continue
        key = (e["op"], tuple(e.get("iters") or []), e["cta"])
        if e["kind"] == "wait_begin":
            inst[key][0] = e["t"] if inst[key][0] is None else max(inst[key][0], e["t"])
        elif e["kind"] == "wait_end":
            inst[key][1] = e["t"] if inst[key][1] is None else min(inst[key][1], e["t"])
    return [(k[0], r - a) for k, (a, r) in inst.items() if a is not None and r is not None]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
    ap.add_argument("--tmasim", default="build/cli/tmasim")
    a = ap.parse_args()
    by_hold = collections.defaultdict(list)
    for folder in split_folders("fitting"):
        for path in sorted(glob.glob(f"traces/recorded/{a.gpu}/{folder}/*.jsonl")):
            with open(path) as fh:
                lines = fh.read().splitlines()
            extra = json.loads(lines[0]).get("extra", {})
            if extra.get("trace_level", "all") != "all":
                continue
            holds = hold_of_each_sync(a.tmasim, json.loads(lines[0])["scenario_file"],
                                      extra.get("trace_words_in", "global"))
            for op, cycles in release_after_last_arrival(lines[1:]):
                by_hold[holds.get(op, "unknown")].append(cycles)
    for hold, v in sorted(by_hold.items()):
        print(f"{a.gpu} sync held by {hold}: median {statistics.median(v):g} cycles "
              f"({min(v)}-{max(v)}, n={len(v)})")
    every = [c for v in by_hold.values() for c in v]
    if every:
        print(f"{a.gpu} every timed sync: median {statistics.median(every):g} (n={len(every)})")


if __name__ == "__main__":
    main()
