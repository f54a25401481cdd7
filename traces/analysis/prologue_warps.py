#!/usr/bin/env python3
"""How the traced kernel's prologue grows with the warps that share an SM sub-partition.

An SM issues from four schedulers, warp w on scheduler w % 4 (CUDA C++ Programming Guide,
Hopper). Every warp runs the traced kernel's prologue (its region of the trace buffer, the
election, the clock reads) before its first op, and warps on one scheduler issue those
instructions in turn. For each traced recording of the split this prints CTA 0's first event
on the device less the model's, with trace_prologue_warp_cycles set to 0 (so the model's
first op already carries everything else it knows: the fixed prologue, an op's vote and index),
grouped by ceil(warps / 4); then, over the kernels with two or more warps per scheduler, the
median of that difference per further warp: the number model/arch/<gpu>.yaml's
trace_prologue_warp_cycles cites.

usage (from the repository root):
  traces/analysis/prologue_warps.py [--gpu NVIDIA-H200] [--split fitting|held_out|all]
      [--tmasim build/cli/tmasim]
Needs python3-yaml (.ci/install-deps).
"""
import argparse, collections, json, os, shutil, statistics, subprocess, sys, tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scaling import ARCH_OF_GPU  # noqa: E402
from fit_arch_number import set_arch_number  # noqa: E402
from prologue_oracle import first_op_cycles  # noqa: E402
from recording import trace_words_args  # noqa: E402
from split import split_traces  # noqa: E402


def warps_per_scheduler(scenario):
    with open(scenario) as fh:
        block = yaml.safe_load(fh)["launch"]["block"]
    threads = 1
    for n in block if isinstance(block, list) else [block]:
        threads *= int(n)
    return ((threads + 31) // 32 + 3) // 4


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
    ap.add_argument("--split", default="fitting", choices=["fitting", "held_out", "all"])
    ap.add_argument("--tmasim", default="build/cli/tmasim")
    args = ap.parse_args()
    arch = ARCH_OF_GPU[args.gpu]
    by_sharing = collections.defaultdict(list)
    with tempfile.TemporaryDirectory() as tmp:
        arch_dir = os.path.join(tmp, "arch")
        shutil.copytree("model/arch", arch_dir)
        config = os.path.join(arch_dir, arch + ".yaml")
        with open(config) as fh:
            text = set_arch_number(fh.read(), "trace_prologue_warp_cycles", 0, config)
        with open(config, "w") as fh:
            fh.write(text)
        env = dict(os.environ, TMASIM_ARCH_DIR=arch_dir)
        out = os.path.join(tmp, "model.jsonl")
        for folder, name, path in split_traces(args.gpu, args.split):
            scenario = os.path.join("scenarios/catalog", folder, name + ".yaml")
            with open(path) as fh:
                header = json.loads(fh.readline())
            if not os.path.exists(scenario) or header.get("extra", {}).get("trace_level", "all") != "all":
                continue
            if os.path.exists(out):
                os.remove(out)
            subprocess.run([args.tmasim, "run", "--backend", "model", "--arch", arch, "--trace", "all",
                            *trace_words_args(path), scenario, "-o", out, "-q"], env=env, capture_output=True)
            device, model = first_op_cycles(path), first_op_cycles(out) if os.path.exists(out) else None
            if device is not None and model is not None:
                by_sharing[warps_per_scheduler(scenario)].append((device - model, f"{folder}/{name}"))
    per_warp = []
    for k in sorted(by_sharing):
        diffs = [d for d, _ in by_sharing[k]]
        print(f"{k} warp(s) per scheduler: {len(diffs)} kernels, device first op - model's: median "
              f"{statistics.median(diffs):.1f} cycles (min {min(diffs)}, max {max(diffs)})")
        if k > 1:
            for d, name in by_sharing[k]:
                per_warp.append(d / (k - 1))
                print(f"    {name}: {d} cycles, {d / (k - 1):.1f} per further warp")
    if per_warp:
        print(f"per further warp on a scheduler: median {statistics.median(per_warp):.1f} cycles over {len(per_warp)} kernels")


if __name__ == "__main__":
    main()
