#!/usr/bin/env python3
"""Fit hbm_sm_load_slowdown: how much of its HBM share an SM loses as the chip's HBM gets busy.

The data is device/scripts/probes/sm_placement_probe.cu's part 4 (L2 flushed before each launch),
recorded as traces/recorded/<gpu>/bench/sm_placement_probe.txt: the 4-stage 16 KiB bulk stream on
the first 1, 2, 4, 8, 16, 18, 32, 33 and 66 SMs and on all of them. An SM alone streams at its
share (hbm_sm_bytes_per_cycle, fitted on the one-SM row); with 16 and 33 SMs streaming each gets
less, though the chip's HBM is far from full. The model runs the bench bulk stream
(scenarios/catalog/bench/bulk_stream.yaml, cold L2) on as many CTAs, for each candidate value in
a copy of the arch directory, and the value with the smallest largest error over the rows below
66 SMs wins (from 66 SMs on the chip's channel, hbm_bytes_per_cycle, decides). The benchmark
rows (traces/recorded/<gpu>/bench/executor_overhead*.txt, held out) are not used here:
traces/analysis/stream_scaling.py checks the model against them.

usage (from the repository root):
  traces/analysis/fit_hbm_share.py [--gpu NVIDIA-H200] [--tmasim build/cli/tmasim] [--tiles 128]
Stdlib only.
"""
import argparse, os, re, shutil, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scaling import ARCH_OF_GPU, model_gbps_per_cta  # noqa: E402

CANDIDATES = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]

ap = argparse.ArgumentParser()
ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
ap.add_argument("--tmasim", default="build/cli/tmasim")
ap.add_argument("--tiles", type=int, default=128, help="tiles per CTA of the model runs (the probe streams 512)")
args = ap.parse_args()


def probe_rows(gpu):
    """{SMs: per-SM GB/s} from part 4's rows on the first N SMs ("sm 0", "sm 0-N", "all")."""
    rows, part4 = {}, False
    for line in open(os.path.join("traces/recorded", gpu, "bench/sm_placement_probe.txt")):
        if line.startswith("## part"):
            part4 = line.startswith("## part 4")
            continue
        m = re.match(r"(sm 0|sm 0-\d+|all)\s+(\d+)\s+[0-9.]+\s+[0-9.]+\s+[0-9.]+\s+([0-9.]+)", line)
        if part4 and m:
            rows[int(m.group(2))] = float(m.group(3))
    if not rows:
        sys.exit(f"{gpu}: no part 4 rows in sm_placement_probe.txt")
    return rows


def model_per_cta(arch_dir, arch, ctas, tmp):
    env = dict(os.environ, TMASIM_ARCH_DIR=arch_dir)
    bw, error = model_gbps_per_cta(args.tmasim, arch, "bulk_stream", ctas, args.tiles,
                                   os.path.join(tmp, f"bulk_{ctas}.yaml"), env=env)
    if bw is None:
        sys.exit(f"bulk_stream at {ctas} CTAs: the model run gave no kernel span: {error[:200]}")
    return bw


arch = ARCH_OF_GPU[args.gpu]
rows = probe_rows(args.gpu)
judged = sorted(n for n in rows if n < 66)
tmp = tempfile.mkdtemp()
arch_dir = os.path.join(tmp, "arch")
shutil.copytree("model/arch", arch_dir)
config = os.path.join(arch_dir, f"{arch}.yaml")
original = open(config).read()
print(f"model --arch {arch}, cold L2, bulk stream of {args.tiles} tiles per CTA, against "
      f"traces/recorded/{args.gpu}/bench/sm_placement_probe.txt part 4 (per-SM GB/s)")
print(f"{'slowdown':>8s} " + " ".join(f"{n:>7d}" for n in judged) + f" {'worst':>7s}")
print(f"{'device':>8s} " + " ".join(f"{rows[n]:7.1f}" for n in judged))
best = None
for k in CANDIDATES:
    text = re.sub(r"(\n  hbm_sm_load_slowdown:\n    value: )[0-9.]+", lambda m: m.group(1) + f"{k:g}", original)
    with open(config, "w") as fh:
        fh.write(text)
    errs = []
    cells = []
    for n in judged:
        bw = model_per_cta(arch_dir, arch, n, tmp)
        errs.append(abs(bw - rows[n]) / rows[n])
        cells.append(f"{bw:7.1f}")
    worst = max(errs)
    print(f"{k:8g} " + " ".join(cells) + f" {100 * worst:6.1f}%")
    if best is None or worst < best[1] - 1e-9:
        best = (k, worst)
print(f"fitted hbm_sm_load_slowdown: {best[0]:g} (largest error {100 * best[1]:.1f}% over {len(judged)} rows)")
