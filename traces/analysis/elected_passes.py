#!/usr/bin/env python3
"""What a warp spends passing the elected lane's ops, in one GPU's fitting recordings, against the model.

The generated kernel does not branch around an op `by: elected`: it guards the elected lane's
instructions with a predicate (device/kernel_writer*.cpp, PtxGuard), so every other warp runs
the op's code with the guard off. For each traced recording of the fitting folders
(traces/recorded/SPLIT.yaml; calibrate/elected_tma_pass measures this) and each warp of CTA 0
that executes op A, passes only elected ops, then executes op B: the device's gap from A's end
to B's begin less the model's (run with elected_tma_load_pass_cycles and
elected_tma_map_first_pass_cycles at 0, the recording's trace level and words). Printed per
run of passed kinds; then the extra per passed op of another kind (the gaps without a
tma.load), and, the others counted at that extra, the least-squares split of the rest into a
cost per passed tma.load and one more for the first tma.load of a map the warp passes: the
model's elected_tma_load_pass_cycles and elected_tma_map_first_pass_cycles.

usage (from the repository root):
  traces/analysis/elected_passes.py [--gpu NVIDIA-H200] [--tmasim build/cli/tmasim]
Needs python3-yaml (.ci/install-deps).
"""
import argparse, collections, os, shutil, statistics, subprocess, sys, tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fit_arch_number import ARCH_OF_GPU, set_arch_number  # noqa: E402
from program_order import instances, warp_spans  # noqa: E402
from recording import trace_words_args  # noqa: E402
from split import split_traces  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
ap.add_argument("--tmasim", default="build/cli/tmasim")
args = ap.parse_args()
arch = ARCH_OF_GPU[args.gpu]

tmp = tempfile.mkdtemp()
arch_dir = os.path.join(tmp, "arch")
shutil.copytree(os.environ.get("TMASIM_ARCH_DIR") or "model/arch", arch_dir)
config = os.path.join(arch_dir, arch + ".yaml")
with open(config) as fh:
    text = fh.read()
for number in ("elected_tma_load_pass_cycles", "elected_tma_map_first_pass_cycles"):
    text = set_arch_number(text, number, 0, config)
with open(config, "w") as fh:
    fh.write(text)

groups = collections.defaultdict(list)  # passed kinds -> [(device gap, model gap, trace, first passes)]
for folder, name, path in split_traces(args.gpu, "fitting"):
    scenario = os.path.join("scenarios/catalog", folder, name + ".yaml")
    if not os.path.exists(scenario):
        continue
    device = warp_spans(path)
    if device is None:
        continue
    try:
        with open(scenario) as fh:
            order = instances(yaml.safe_load(fh)["program"])
    except (KeyError, TypeError, ValueError):
        continue  # a loop count that is not a constant: not expanded here
    if not any(str(op.get("by", "")) == "elected" for _, _, op in order):
        continue
    out = os.path.join(tmp, "model.jsonl")
    subprocess.run([args.tmasim, "run", "--backend", "model", "--arch", arch, "--trace", "all", *trace_words_args(path),
                    scenario, "-o", out, "-q"], env=dict(os.environ, TMASIM_ARCH_DIR=arch_dir), capture_output=True)
    if not os.path.exists(out):
        continue
    model = warp_spans(out)
    os.remove(out)
    place = {(op_id, iters): n for n, (op_id, iters, _) in enumerate(order)}
    # A warp other than the elected lane's passes every elected tma.load: its first of each map
    # is the first in program order.
    first_of_map = {}
    for n, (_, _, op) in enumerate(order):
        if op["op"] == "tma.load" and str(op.get("by", "")) == "elected":
            first_of_map.setdefault(op["map"], n)
    firsts = set(first_of_map.values())
    for warp, ops in device.items():
        done = sorted((k for k in ops if k in place), key=place.get)
        for a, b in zip(done, done[1:]):
            first, last = place[a], place[b]
            passed = [order[n][2] for n in range(first + 1, last)]
            if not passed or any(str(op.get("by", "")) != "elected" for op in passed):
                continue
            m = model.get(warp, {})
            if "e" not in ops[a] or "b" not in ops[b] or "e" not in m.get(a, {}) or "b" not in m.get(b, {}):
                continue
            groups[tuple(op["op"] for op in passed)].append(
                (ops[b]["b"] - ops[a]["e"], m[b]["b"] - m[a]["e"], folder + "/" + name,
                 sum(1 for n in range(first + 1, last) if n in firsts)))
if not groups:
    sys.exit("elected_passes: no gap that passes only elected ops")

print(f"{'passed elected ops':60s} {'n':>4s} {'device':>7s} {'model':>7s} {'traces':>6s}")
for kinds, gaps in sorted(groups.items(), key=lambda kv: -len(kv[1])):
    print(f"{' '.join(kinds):60s} {len(gaps):4d} {statistics.median(g[0] for g in gaps):7.0f} "
          f"{statistics.median(g[1] for g in gaps):7.0f} {len({g[2] for g in gaps}):6d}")
other = [(d - m) / len(k) for k, gaps in groups.items() if "tma.load" not in k for d, m, _, _ in gaps]
other_extra = statistics.median(other) if other else 0.0
# extra = loads * per_load + first_passes * first, by least squares over the gaps with a load
sxx = sxy = syy = sxe = sye = 0.0
count = 0
for kinds, gaps in groups.items():
    loads = kinds.count("tma.load")
    for d, m, _, firsts_passed in gaps:
        if not loads:
            continue
        extra = d - m - other_extra * (len(kinds) - loads)
        sxx, sxy, syy = sxx + loads * loads, sxy + loads * firsts_passed, syy + firsts_passed * firsts_passed
        sxe, sye = sxe + loads * extra, sye + firsts_passed * extra
        count += 1
det = sxx * syy - sxy * sxy
if count == 0 or det == 0:
    sys.exit("elected_passes: too few gaps that pass an elected tma.load to tell a first pass apart")
per_load = (sxe * syy - sye * sxy) / det
first = (sye * sxx - sxe * sxy) / det
print(f"passing an elected op other than tma.load: {other_extra:.1f} cycles more than the model (n={len(other)} gaps)")
print(f"passing elected tma.loads ({count} gaps), least squares: {per_load:.1f} cycles per load "
      f"(elected_tma_load_pass_cycles) and {first:.1f} more for the first of a map the warp passes "
      f"(elected_tma_map_first_pass_cycles) ({args.gpu})")
shutil.rmtree(tmp)
