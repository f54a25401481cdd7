#!/usr/bin/env python3
"""Fit one number of an arch config on the fitting split, never on held-out traces.

For each candidate value the script copies model/arch to a scratch directory, sets the number
there, runs traces/analysis/model_error_table.py --split fitting with that directory
(TMASIM_ARCH_DIR) and reads one of its two overall figures: the per-op error over the traced
recordings (--metric traced) or the kernel-time error of the model's untraced prediction over
the fitting scenarios recorded untraced (--metric untraced, traces/recorded/<gpu>/<folder>_untraced/).
The value with the lowest median (then p90) is the fit; every value's figures are printed, so
the number's source in the config can quote them.

usage (from the repository root):
  traces/analysis/fit_arch_number.py --param NAME --values 0,10,20 [--metric traced|untraced]
      [--gpu NVIDIA-H200] [--tmasim build/cli/tmasim]
Stdlib only.
"""
import argparse, os, re, shutil, subprocess, sys, tempfile

ARCH_OF_GPU = {"NVIDIA-H200": "h200", "NVIDIA-H100-80GB-HBM3": "h100-sxm"}
LINE = {"traced": r"^per-trace median relative error .*median ([\d.]+)%, p90 ([\d.]+)%$",
        "untraced": r"^untraced kernel-time relative error .*median ([\d.]+)%, p90 ([\d.]+)%$"}


def set_arch_number(text, param, value, path="the config"):
    """An arch config's text with `param`'s value replaced by `value`."""
    text, n = re.subn(r"(\n  %s:\s*\n\s*value:\s*)[-\d.]+" % re.escape(param), r"\g<1>%g" % value, text)
    if n != 1:
        sys.exit(f"fit_arch_number: no {param} value in {path}")
    return text


def fit(param, values, metric, gpu, tmasim, quiet=False):
    """[(value, median, p90)] over `values`, in order."""
    here = os.path.dirname(os.path.abspath(__file__))
    arch = ARCH_OF_GPU[gpu]
    results = []
    for value in values:
        with tempfile.TemporaryDirectory() as tmp:
            arch_dir = os.path.join(tmp, "arch")
            shutil.copytree("model/arch", arch_dir)
            path = os.path.join(arch_dir, arch + ".yaml")
            with open(path) as fh:
                text = fh.read()
            text = set_arch_number(text, param, value, path)
            with open(path, "w") as fh:
                fh.write(text)
            env = dict(os.environ, TMASIM_ARCH_DIR=arch_dir)
            run = subprocess.run([sys.executable, os.path.join(here, "model_error_table.py"), "--gpu", gpu,
                                  "--split", "fitting", "--tmasim", tmasim],
                                 env=env, capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"fit_arch_number: {param} = {value:g}: model_error_table.py failed:\n{run.stdout[-400:]}{run.stderr[-400:]}")
        m = re.search(LINE[metric], run.stdout, re.M)
        if not m:
            sys.exit(f"fit_arch_number: no {metric} overall line from model_error_table.py:\n" + run.stdout[-400:])
        results.append((value, float(m.group(1)), float(m.group(2))))
        if not quiet:
            print(f"{param} {value:8g}: fitting {metric} median {results[-1][1]:.1f}%, p90 {results[-1][2]:.1f}%",
                  flush=True)
    return results


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--param", required=True)
    ap.add_argument("--values", required=True, help="comma-separated candidates")
    ap.add_argument("--metric", default="traced", choices=sorted(LINE))
    ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
    ap.add_argument("--tmasim", default="build/cli/tmasim")
    args = ap.parse_args()
    res = fit(args.param, [float(v) for v in args.values.split(",")], args.metric, args.gpu, args.tmasim)
    best = min(res, key=lambda r: (r[1], r[2]))
    print(f"best: {best[0]:g} (median {best[1]:.1f}%, p90 {best[2]:.1f}%) over the fitting {args.metric} "
          f"recordings of {args.gpu}")
