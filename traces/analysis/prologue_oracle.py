#!/usr/bin/env python3
"""How much of the model's traced per-op error is each kernel's prologue. A diagnostic: fits nothing.

The model starts every warp kernel_prologue_cycles after entry (one number per GPU: the fitting
set's median first op), where the traced kernels start their first op 106-766 cycles after entry
depending on the code the compiler places ahead of the first clock read. For each recorded trace
of the split this runs the model twice at the trace's level: with the config as it is, and with
kernel_prologue_cycles set to that trace's own first op (CTA 0's earliest event, read from the
recording: an oracle no prediction has), and prints the per-trace median relative error of
both (`tmasim diff --json`), then the median and p90 over the traces of each. The gap between
the two is what a per-kernel prologue estimate could win at most; the rest is the ops.

usage (from the repository root):
  traces/analysis/prologue_oracle.py [--gpu NVIDIA-H200] [--split held_out|fitting|all]
      [--tmasim build/cli/tmasim]
Stdlib only.
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scaling import ARCH_OF_GPU  # noqa: E402
from fit_arch_number import set_arch_number  # noqa: E402
from recording import trace_words_args  # noqa: E402
from split import split_traces  # noqa: E402


def first_op_cycles(path):
    """CTA 0's earliest device event (cycles after its first warp's entry), or None."""
    first = None
    with open(path) as fh:
        for line in fh:
            e = json.loads(line)
            if e.get("type") == "event" and e.get("cta") == 0 and not e.get("model_only"):
                first = e["t"] if first is None else min(first, e["t"])
    return first


def median_error(tmasim, arch, scenario, recorded, level, env, out):
    """The per-op median relative error (%) of the model's run against the recording."""
    subprocess.run([tmasim, "run", "--backend", "model", "--arch", arch, "--trace", level, *trace_words_args(recorded),
                    scenario, "-o", out, "-q"],
                   env=env, capture_output=True, check=True)
    diff = subprocess.run([tmasim, "diff", "--json", out, recorded], capture_output=True, text=True)
    return 100 * json.loads(diff.stdout)["timing"]["events"]["median_rel_err"]


def p90(values):
    v = sorted(values)
    return v[min(len(v) - 1, int(0.9 * (len(v) - 1) + 0.5))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
    ap.add_argument("--split", default="held_out", choices=["fitting", "held_out", "all"])
    ap.add_argument("--tmasim", default="build/cli/tmasim")
    a = ap.parse_args()
    arch = ARCH_OF_GPU[a.gpu]
    tmp = tempfile.mkdtemp()
    arch_dir, out = os.path.join(tmp, "arch"), os.path.join(tmp, "run.jsonl")
    shutil.copytree("model/arch", arch_dir)
    config = os.path.join(arch_dir, arch + ".yaml")
    text = open(config).read()
    as_is, oracle = [], []
    print(f"{'trace':48s} {'first op':>8s} {'model':>7s} {'oracle':>7s}")
    for folder, name, recorded in split_traces(a.gpu, a.split):
        scenario = os.path.join("scenarios/catalog", folder, name + ".yaml")
        first = first_op_cycles(recorded)
        if not os.path.exists(scenario) or first is None:
            continue
        with open(recorded) as fh:
            level = json.loads(fh.readline()).get("extra", {}).get("trace_level", "all")
        with open(config, "w") as fh:
            fh.write(set_arch_number(text, "kernel_prologue_cycles", first, config))
        base = median_error(a.tmasim, arch, scenario, recorded, level, dict(os.environ), out)
        known = median_error(a.tmasim, arch, scenario, recorded, level, dict(os.environ, TMASIM_ARCH_DIR=arch_dir), out)
        as_is.append(base)
        oracle.append(known)
        print(f"{folder + '/' + name:48s} {first:8d} {base:6.1f}% {known:6.1f}%")
    shutil.rmtree(tmp)
    if not as_is:
        sys.exit(f"no traces of split {a.split} for {a.gpu}")
    print(f"{a.gpu} {a.split}, {len(as_is)} traces: model median {statistics.median(as_is):.1f}%, p90 {p90(as_is):.1f}%; "
          f"with each trace's own prologue median {statistics.median(oracle):.1f}%, p90 {p90(oracle):.1f}%")


if __name__ == "__main__":
    main()
