#!/usr/bin/env python3
"""What a warp spends passing the elected lane's ops, in one GPU's fitting recordings, against the model.

The generated kernel does not branch around an op `by: elected`: it guards the elected lane's
instructions with a predicate (device/kernel_writer*.cpp, PtxGuard), so every other warp runs
the op's code with the guard off. For each traced recording of the fitting folders
(traces/recorded/SPLIT.yaml) and each warp of CTA 0 that executes op A, passes only elected
ops, then executes op B: the device's gap from A's end to B's begin less the model's (run
with elected_tma_load_pass_cycles at 0, the recording's trace level and words). Printed per
run of passed kinds; then the extra per passed non-tma.load op (the gaps without one), and
per passed tma.load, the others counted at that extra: the model's elected_tma_load_pass_cycles.

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
    text = set_arch_number(fh.read(), "elected_tma_load_pass_cycles", 0, config)
with open(config, "w") as fh:
    fh.write(text)

groups = collections.defaultdict(list)  # passed kinds -> [(device gap, model gap, trace)]
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
                (ops[b]["b"] - ops[a]["e"], m[b]["b"] - m[a]["e"], folder + "/" + name))
if not groups:
    sys.exit("elected_passes: no gap that passes only elected ops")

print(f"{'passed elected ops':60s} {'n':>4s} {'device':>7s} {'model':>7s} {'traces':>6s}")
for kinds, gaps in sorted(groups.items(), key=lambda kv: -len(kv[1])):
    print(f"{' '.join(kinds):60s} {len(gaps):4d} {statistics.median(g[0] for g in gaps):7.0f} "
          f"{statistics.median(g[1] for g in gaps):7.0f} {len({g[2] for g in gaps}):6d}")
other = [(d - m) / len(k) for k, gaps in groups.items() if "tma.load" not in k for d, m, _ in gaps]
other_extra = statistics.median(other) if other else 0.0
per_load = []
for kinds, gaps in groups.items():
    loads = kinds.count("tma.load")
    if loads:
        per_load += [(d - m - other_extra * (len(kinds) - loads)) / loads for d, m, _ in gaps]
if not per_load:
    sys.exit("elected_passes: no gap that passes an elected tma.load")
print(f"passing an elected op other than tma.load: {other_extra:.1f} cycles more than the model (n={len(other)} gaps)")
print(f"passing an elected tma.load: median {statistics.median(per_load):.1f} cycles more than the model without it "
      f"(n={len(per_load)} gaps; p10 {statistics.quantiles(per_load, n=10)[0]:.0f}, p90 "
      f"{statistics.quantiles(per_load, n=10)[-1]:.0f}): elected_tma_load_pass_cycles ({args.gpu})")
shutil.rmtree(tmp)
