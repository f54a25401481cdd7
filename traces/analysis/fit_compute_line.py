#!/usr/bin/env python3
"""Fit compute_base_cycles and compute_cycles_per_element on one GPU's fitting recordings.

A `compute` op updates a shared buffer's elements, the CTA's selected threads splitting them
in thread order (model/ops/element_compute.cpp): the op costs the model compute_base_cycles +
compute_cycles_per_element * n, n the elements the busiest thread handles, and a traced
kernel's op also trace_probe_cycles (its closing clock read, stamped into its complete).

For each compute op of each traced recording in the fitting folders (traces/recorded/SPLIT.yaml):
the median of its issue-to-complete times on the device less trace_probe_cycles, and its n
from the scenario (the buffer's elements, or the op's start/count, over the threads its `by`
picks). The fit: the (base, per element) on a grid (100-255 by 5, 0-19.5 by 0.5) with the
least mean relative error over those ops, each op once. Every op's figures and the fit's
errors are printed, for the config's source to quote.

usage (from the repository root):
  traces/analysis/fit_compute_line.py [--gpu NVIDIA-H200]
Needs python3-yaml (.ci/install-deps).
"""
import argparse, json, math, os, re, statistics, sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scaling import ARCH_OF_GPU, arch_number  # noqa: E402
from split import split_traces  # noqa: E402


def ops_by_id(program, out):
    """The program's ops in id order (a loop, then its body: scenarios/scenario.h numbering)."""
    for op in program:
        out.append(op)
        if op.get("op") == "loop":
            ops_by_id(op["body"], out)
    return out


def selected_threads(by, block):
    """How many of the CTA's threads an op's `by` picks."""
    by = str(by or "all")
    if by == "all":
        return block
    if by == "elected":
        return (block + 31) // 32
    if re.fullmatch(r"warp\d+", by):
        return min(32, block - 32 * int(by[4:]))
    if re.fullmatch(r"thread\d+", by):
        return 1
    # No catalog compute op is picked by a predicate; one would need the expression evaluated.
    sys.exit(f"fit_compute_line: a compute op `by: {by}` is not handled")


def elements(op, scenario):
    """The elements the op's busiest thread updates."""
    name = re.sub(r"\[.*\]$", "", str(op["buffer"]))
    buf = scenario["shared"][name]
    count = math.prod(buf["shape"])
    if "count" in op:
        count = int(op["count"])
    block = scenario["launch"]["block"]
    block = block[0] if isinstance(block, list) else block
    return math.ceil(count / selected_threads(op.get("by"), block))


def device_durations(path):
    """{op id: [issue-to-complete, ...]} of a recording's compute ops."""
    begun, out = {}, {}
    for line in open(path):
        e = json.loads(line)
        if e.get("type") != "event" or e["name"] != "compute" or e.get("model_only"):
            continue
        key = (e["op"], e["cta"], e["warp"], e["lane"], tuple(e["iters"]))
        if e["kind"] == "issue":
            begun[key] = e["t"]
        elif e["kind"] == "complete" and key in begun:
            out.setdefault(e["op"], []).append(e["t"] - begun[key])
    return out


ap = argparse.ArgumentParser()
ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
args = ap.parse_args()
probe = arch_number(ARCH_OF_GPU[args.gpu], "trace_probe_cycles")

points = []  # (cycles less the probe, elements, label)
for folder, name, path in split_traces(args.gpu, "fitting"):
    scenario_path = os.path.join("scenarios/catalog", folder, name + ".yaml")
    if not os.path.exists(scenario_path):
        continue
    if json.loads(open(path).readline()).get("extra", {}).get("trace_level", "all") != "all":
        continue
    scenario = yaml.safe_load(open(scenario_path))
    ops = ops_by_id(scenario["program"], [])
    for op_id, times in sorted(device_durations(path).items()):
        points.append((statistics.median(times) - probe, elements(ops[op_id], scenario), f"{folder}/{name} op {op_id}"))
if not points:
    sys.exit("fit_compute_line: no compute op in the fitting recordings")

print(f"{'compute op':52s} {'n':>4s} {'device - probe':>15s}")
for cycles, n, label in points:
    print(f"{label:52s} {n:4d} {cycles:15.1f}")


def errors(base, per):
    return [abs(base + per * n - cycles) / cycles for cycles, n, _ in points]


grid = [(b, p / 2) for b in range(100, 256, 5) for p in range(0, 40)]
base, per = min(grid, key=lambda bp: statistics.mean(errors(*bp)))
e = errors(base, per)
print(f"fit over {len(points)} compute ops ({args.gpu}, trace_probe_cycles {probe:g}): compute_base_cycles {base}, "
      f"compute_cycles_per_element {per:g}: mean relative error {100 * statistics.mean(e):.1f}%, "
      f"median {100 * statistics.median(e):.1f}%")
