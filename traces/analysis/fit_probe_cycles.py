#!/usr/bin/env python3
"""Fit an arch config's trace_probe_cycles on the fitting split, never on held-out traces.

With the executor's ring tracer an op's begin is the clock read that ended the previous op,
so the probe's cost no longer shows as a gap between ops (traces/analysis/probe_gap.py now
reads 0): it sits inside each traced op. This script finds it the way the model uses it:
for each candidate value it runs traces/analysis/model_error_table.py on the fitting traces
of one GPU with an arch directory whose config carries that value, and prints the median
and p90 per-trace error; the value with the lowest median is the fit.

usage (from the repository root):
  traces/analysis/fit_probe_cycles.py [--gpu NVIDIA-H200] [--values 0,5,10,...]
Stdlib only.
"""
import argparse, os, re, shutil, subprocess, sys, tempfile

ARCH_OF_GPU = {"NVIDIA-H200": "h200", "NVIDIA-H100-80GB-HBM3": "h100-sxm"}

ap = argparse.ArgumentParser()
ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
ap.add_argument("--values", default="0,5,10,15,20,30,45,60")
ap.add_argument("--tmasim", default="build/cli/tmasim")
args = ap.parse_args()

here = os.path.dirname(os.path.abspath(__file__))
arch = ARCH_OF_GPU[args.gpu]
results = []
for value in [int(v) for v in args.values.split(",")]:
    with tempfile.TemporaryDirectory() as tmp:
        arch_dir = os.path.join(tmp, "arch")
        shutil.copytree("model/arch", arch_dir)
        path = os.path.join(arch_dir, arch + ".yaml")
        with open(path) as fh:
            text = fh.read()
        text, n = re.subn(r"(trace_probe_cycles:\s*\n\s*value:\s*)\d+", r"\g<1>%d" % value, text)
        if n != 1:
            sys.exit("fit_probe_cycles: no trace_probe_cycles value in " + path)
        with open(path, "w") as fh:
            fh.write(text)
        env = dict(os.environ, TMASIM_ARCH_DIR=arch_dir)
        run = subprocess.run([sys.executable, os.path.join(here, "model_error_table.py"), "--gpu", args.gpu,
                              "--split", "fitting", "--tmasim", args.tmasim],
                             env=env, check=True, capture_output=True, text=True)
    # The table's own overall line: the same median and p90 CI prints.
    m = re.search(r"median ([\d.]+)%, p90 ([\d.]+)%\s*$", run.stdout)
    if not m:
        sys.exit("fit_probe_cycles: no overall line from model_error_table.py:\n" + run.stdout[-400:])
    results.append((value, float(m.group(1)), float(m.group(2))))
    print("trace_probe_cycles %4d: fitting median %.1f%%, p90 %.1f%%" % results[-1], flush=True)
best = min(results, key=lambda r: (r[1], r[2]))
print("best: %d (median %.1f%%, p90 %.1f%%) over the fitting traces of %s" % (best + (args.gpu,)))
