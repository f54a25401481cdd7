#!/usr/bin/env python3
"""What a warp spends on ops none of its threads execute, in one GPU's fitting recordings.

The generated kernel runs every op's selection in every warp: an op `by` a predicate starts
with a __ballot_sync that each warp takes part in, then a branch past the op's code; the traced
kernel also reads the clock that ends each timed op in every warp. So a warp that executes op
A, passes ops it is not picked for, then executes op B, shows the passing as the gap from A's
end to B's begin (a timed op begins where the warp's previous clock read ended it).

For each recorded trace of the fitting folders (traces/recorded/SPLIT.yaml) at trace level
`all`, and each warp of CTA 0: the program is expanded in the executor's order (loops written
out), the warp's executed op instances are ordered by it, and every gap between two
consecutive ones that passes at least one instance is kept with the kinds of what it passed.
Printed per group (trace, kind of A, how many passed, how many of them by a predicate): the
median gap and the median per passed op. The last line is the model's
predicate_skip_cycles: the median, over the gaps that pass only predicated ops, of the gap per
op, less the arch config's trace_probe_cycles (the clock read, which the model pays
separately on every timed op).

usage (from the repository root):
  traces/analysis/skipped_ops.py [--gpu NVIDIA-H200]
Needs python3-yaml (.ci/install-deps).
"""
import argparse, collections, os, re, statistics, sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scaling import ARCH_OF_GPU, arch_number  # noqa: E402
from program_order import instances, warp_spans  # noqa: E402
from split import split_folders  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
args = ap.parse_args()

PREDICATE = re.compile(r"[<>=&|%!]")  # `by` text that is an expression, not warpN/threadN/elected


groups = collections.defaultdict(list)
root = os.path.join("traces/recorded", args.gpu)
for folder in split_folders("fitting"):
    if not os.path.isdir(os.path.join(root, folder)):
        continue
    for name in sorted(os.listdir(os.path.join(root, folder))):
        scenario = os.path.join("scenarios/catalog", folder, name[:-len(".jsonl")] + ".yaml")
        if not name.endswith(".jsonl") or not os.path.exists(scenario):
            continue
        spans = warp_spans(os.path.join(root, folder, name))
        if spans is None:
            continue
        try:
            order = instances(yaml.safe_load(open(scenario))["program"])
        except (KeyError, TypeError, ValueError):
            continue  # a loop count that is not a constant: not expanded here
        place = {(op_id, iters): n for n, (op_id, iters, _) in enumerate(order)}
        for ops in spans.values():
            done = sorted((k for k in ops if k in place), key=place.get)
            for a, b in zip(done, done[1:]):
                first, last = place[a], place[b]
                if last - first < 2 or "e" not in ops[a] or "b" not in ops[b]:
                    continue
                passed = [order[n][2] for n in range(first + 1, last)]
                predicated = sum(1 for op in passed if PREDICATE.search(str(op.get("by", ""))))
                key = (folder + "/" + name[:-6], order[first][2]["op"], len(passed), predicated)
                groups[key].append(ops[b]["b"] - ops[a]["e"])

print(f"{'trace':40} {'after':18} passed predicated    n  median  per op")
per_op_predicated = []
for (trace, after, passed, predicated), gaps in sorted(groups.items()):
    print(f"{trace:40} {after:18} {passed:6} {predicated:10} {len(gaps):4} {statistics.median(gaps):7.0f} "
          f"{statistics.median(gaps) / passed:7.1f}")
    if predicated == passed:
        per_op_predicated += [g / passed for g in gaps]
if not per_op_predicated:
    sys.exit("skipped_ops: no gap that passes only predicated ops")
probe = arch_number(ARCH_OF_GPU[args.gpu], "trace_probe_cycles")
median = statistics.median(per_op_predicated)
print(f"gaps passing only predicated ops: median {median:.1f} cycles per op (n={len(per_op_predicated)}); "
      f"less trace_probe_cycles ({probe:g}): predicate_skip_cycles {median - probe:.0f} ({args.gpu})")
