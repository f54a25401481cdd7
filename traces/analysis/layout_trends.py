#!/usr/bin/env python3
"""The layouts tutorial's memcpy trends at full chip: the model's throughput against the
untraced device runs recorded under traces/recorded/<gpu>/layouts_untraced (<name>.summary.json:
the trace's header and memory records).

For each scenario of scenarios/catalog/layouts/full_chip, run the model (the GPU's arch
config, the kernel untraced) and print bytes read + written over the kernel span, beside the
recorded device run's (its kernel span, and its CUDA-event kernel time when present). Then
the two trends the tutorial shows: the R sweep is flat (max/min throughput), and the row
layout on transposed views is several times slower than the fixed layout (fixed/transposed).
Exits 1 when a recorded device trend and the model's disagree in direction (R spread above
1.25 on one side only, or fixed/transposed above 2 on one side only).

usage (from the repository root):
  traces/analysis/layout_trends.py [--gpu NVIDIA-H200] [--tmasim build/cli/tmasim]
Stdlib only.
"""
import argparse, json, os, pathlib, subprocess, sys, tempfile

from summaries import read_trace

ARCH_OF_GPU = {"NVIDIA-H200": "h200", "NVIDIA-H100-80GB-HBM3": "h100-sxm"}
ap = argparse.ArgumentParser()
ap.add_argument("--tmasim", default="build/cli/tmasim")
ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
args = ap.parse_args()


def throughput(header, sizes, key):
    ns = header.get("extra", {}).get(key)
    return 2 * sizes["src"] / int(ns) / 1e3 if ns and int(ns) > 0 else None  # TB/s


scenarios = sorted(pathlib.Path("scenarios/catalog/layouts/full_chip").glob("*.yaml"))
model, device = {}, {}
with tempfile.TemporaryDirectory() as tmp:
    for s in scenarios:
        out = os.path.join(tmp, s.stem + ".jsonl")
        subprocess.run([args.tmasim, "run", str(s), "--backend", "model", "--arch", ARCH_OF_GPU[args.gpu], "--trace",
                        "none", "-q", "-o", out], check=True, stdout=subprocess.DEVNULL)
        h, sizes = read_trace(out)
        model[h["scenario"]] = throughput(h, sizes, "kernel_span_ns")
recorded = pathlib.Path("traces/recorded") / args.gpu / "layouts_untraced"
# Each device run's header and memory sizes (device/scripts/gpu_session.sh keeps only those).
for path in sorted(recorded.rglob("*.summary.json")) if recorded.exists() else []:
    h, sizes = read_trace(path)
    if h and "src" in sizes:
        device[h["scenario"]] = (throughput(h, sizes, "kernel_span_ns"), throughput(h, sizes, "kernel_time_ns"))


def fmt(v):
    return f"{v:7.3f}" if v else "      -"


print(f"{'scenario':46} {'model':>7} {'device':>7} {'events':>7}  (TB/s, bytes read + written / kernel span)")
for name in sorted(model):
    span, events = device.get(name, (None, None))
    print(f"{name:46} {fmt(model[name])} {fmt(span)} {fmt(events)}")


def trends(tp):
    r = [tp.get(f"layouts_full_chip_memcpy_1d_r{k}") for k in (1, 2, 4, 8, 16)]
    t, f = tp.get("layouts_full_chip_memcpy_2d_transposed"), tp.get("layouts_full_chip_memcpy_2d_transposed_fixed")
    spread = max(r) / min(r) if all(r) else None
    return spread, (f / t if t and f else None)


m_spread, m_ratio = trends(model)
d_spread, d_ratio = trends({k: v[0] for k, v in device.items()})
print(f"R sweep max/min: model {fmt(m_spread)}, device {fmt(d_spread)}   (tutorial, GB200: 6.574/6.214 = 1.058)")
print(f"fixed/transposed: model {fmt(m_ratio)}, device {fmt(d_ratio)}   (tutorial, GB200: 6.590/0.774 = 8.514)")
if not device:
    print(f"no recorded device runs under {recorded}: model only")
    sys.exit(0)
bad = (d_spread and (m_spread > 1.25) != (d_spread > 1.25)) or (d_ratio and (m_ratio > 2) != (d_ratio > 2))
sys.exit(1 if bad else 0)
