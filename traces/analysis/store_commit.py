#!/usr/bin/env python3
"""What a bulk.commit_group costs after the store or reduce it closes, in the fitting traces.

The traced kernel cannot time the two apart: a bulk or tensor store (or reduce) and the
bulk.commit_group after it, issued by one thread, form one branch whose clock read after the
copy instruction ptxas may place ahead of it (the copy then lasts 0 cycles and the commit
carries its time). So this measures the pair: for every copy instruction (bulk.store,
tma.store, bulk.reduce, tma.reduce) whose thread's next op is its bulk.commit_group, the
device's time from the copy's issue to the commit's complete, against the model's for the same
instance. The model's pair is its own terms (the copy's issue cost, a tensor map's first fetch,
the trace probe) plus bulk_commit_cycles; the device's pair less those other terms is what the
commit costs on the device. Prints each instance, and per copy kind and pooled the median of
that commit cost: the number behind bulk_commit_cycles in model/arch/<gpu>.yaml.

usage (from the repository root):
  traces/analysis/store_commit.py [--gpu NVIDIA-H200] [--tmasim build/cli/tmasim]
Stdlib only.
"""
import argparse, collections, json, os, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scaling import arch_number  # noqa: E402
from fit_arch_number import ARCH_OF_GPU  # noqa: E402
from op_durations import load_events  # noqa: E402
from recording import trace_words_args  # noqa: E402
from split import split_traces  # noqa: E402

COPIES = {"bulk.store", "tma.store", "bulk.reduce", "tma.reduce"}
STARTS = ("issue", "wait_begin")


def thread_events(path):
    """Each (cta, warp, lane)'s device-visible events in time order (an op's start before its end)."""
    threads = collections.defaultdict(list)
    for e in load_events(path):
        threads[(e["cta"], e["warp"], e["lane"])].append(e)
    for evs in threads.values():
        evs.sort(key=lambda e: (e["t"], e["op"], 0 if e["kind"] in STARTS else 1))
    return threads


def copy_commit_pairs(path):
    """{(thread, op, iters): (copy kind, cycles from the copy's issue to its commit's complete)}."""
    pairs = {}
    for thread, evs in thread_events(path).items():
        for i, e in enumerate(evs):
            if e["name"] not in COPIES or e["kind"] != "issue":
                continue
            for f in evs[i + 1:]:
                if f["name"] == "bulk.commit_group" and f["kind"] == "complete":
                    pairs[(thread, e["op"], json.dumps(e["iters"]))] = (e["name"], f["t"] - e["t"])
                    break
                if f["name"] not in (e["name"], "bulk.commit_group"):
                    break  # another op came between: not a copy closed by its commit
    return pairs


ap = argparse.ArgumentParser()
ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
ap.add_argument("--tmasim", default="build/cli/tmasim")
args = ap.parse_args()
arch = ARCH_OF_GPU[args.gpu]
commit_now = arch_number(arch, "bulk_commit_cycles")

costs = collections.defaultdict(list)
with tempfile.TemporaryDirectory() as tmp:
    for folder, name, path in split_traces(args.gpu, "fitting"):
        scenario = f"scenarios/catalog/{folder}/{name}.yaml"
        device = copy_commit_pairs(path)
        if not device or not os.path.exists(scenario):
            continue
        out = os.path.join(tmp, "model.jsonl")
        subprocess.run([args.tmasim, "run", "--backend", "model", "--arch", arch, "--trace", "all",
                        *trace_words_args(path), scenario, "-o", out, "-q"], capture_output=True)
        model = copy_commit_pairs(out) if os.path.exists(out) else {}
        for key, (kind, cycles) in sorted(device.items()):
            if key in model:
                others = model[key][1] - commit_now  # the model's pair without its commit
                costs[kind].append(cycles - others)
                print(f"{folder}/{name:34} {kind:12} device {cycles:5}  model {model[key][1]:7g}  "
                      f"commit on the device {cycles - others:6g}")

pooled = [c for kind in costs for c in costs[kind]]
for kind, values in sorted(costs.items()):
    print(f"{kind:12} n={len(values):3}  commit cost median {statistics.median(values):g}")
if pooled:
    print(f"{args.gpu}: bulk.commit_group after a store or reduce costs a median {statistics.median(pooled):g} "
          f"cycles (n={len(pooled)}); bulk_commit_cycles is {commit_now:g}")
