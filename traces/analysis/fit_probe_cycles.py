#!/usr/bin/env python3
"""Fit an arch config's trace_probe_cycles on the fitting split, never on held-out traces.

With the executor's ring tracer an op's begin is the clock read that ended the previous op,
so the probe's cost no longer shows as a gap between ops (traces/analysis/probe_gap.py now
reads 0): it sits inside each traced op. This script finds it the way the model uses it:
for each candidate value, the per-trace error of the model over the fitting traces of one GPU
(traces/analysis/fit_arch_number.py with --metric traced); the value with the lowest median is
the fit.

usage (from the repository root):
  traces/analysis/fit_probe_cycles.py [--gpu NVIDIA-H200] [--values 0,5,10,...]
Stdlib only.
"""
import argparse

from fit_arch_number import ARCH_OF_GPU, fit

ap = argparse.ArgumentParser()
ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
ap.add_argument("--values", default="0,5,10,15,20,30,45,60")
ap.add_argument("--tmasim", default="build/cli/tmasim")
args = ap.parse_args()

results = fit("trace_probe_cycles", [int(v) for v in args.values.split(",")], "traced", args.gpu, args.tmasim,
              quiet=True)
for value, median, p90 in results:
    print("trace_probe_cycles %4d: fitting median %.1f%%, p90 %.1f%%" % (value, median, p90))
best = min(results, key=lambda r: (r[1], r[2]))
print("best: %d (median %.1f%%, p90 %.1f%%) over the fitting traces of %s" % (best + (args.gpu,)))
