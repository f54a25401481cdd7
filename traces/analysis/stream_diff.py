#!/usr/bin/env python3
"""`tmasim diff` of the model's default prediction against the untraced device run, for each
benchmark stream case (scenarios/catalog/bench/, as the catalog has them: one CTA or cluster,
8 tiles, the executor's launch).

For each case the model runs with the GPU's arch config (untraced, `--l2 inputs`: the default)
and `tmasim diff --json` compares its kernel span with the recorded untraced run
(traces/recorded/<gpu>/bench_untraced/<case>.jsonl, the median-span run of three:
device/scripts/record_held_out.sh). Prints one row per case; with --max-error, exits 1 when a
case's relative error is above it (issue 10 asks 10%). These recordings are held out: nothing
in the arch configs was fitted on them.

usage (from the repository root):
  traces/analysis/stream_diff.py [--gpu NVIDIA-H200] [--max-error 10] [--tmasim build/cli/tmasim]
Stdlib only.
"""
import argparse, glob, json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scaling import ARCH_OF_GPU  # noqa: E402

CASES = sorted(os.path.basename(p)[:-5] for p in glob.glob("scenarios/catalog/bench/*.yaml"))


def kernel_span_error(tmasim, arch, case, recorded, tmp):
    """(model ns, device ns, relative error) of the case's kernel span."""
    model = os.path.join(tmp, case + ".jsonl")
    subprocess.run([tmasim, "run", f"scenarios/catalog/bench/{case}.yaml", "--backend", "model", "--arch", arch,
                    "-o", model, "-q"], check=True)
    out = subprocess.run([tmasim, "diff", model, recorded, "--json"], capture_output=True, text=True)
    span = json.loads(out.stdout)["timing"]["kernel_span_ns"]
    return span["a"], span["b"], span["rel_err"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tmasim", default="build/cli/tmasim")
    ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
    ap.add_argument("--max-error", type=float, help="exit 1 when a case is further than this many percent")
    a = ap.parse_args()
    worst = 0.0
    print(f"model --arch {ARCH_OF_GPU[a.gpu]} (default: untraced, --l2 inputs) against "
          f"traces/recorded/{a.gpu}/bench_untraced/")
    print(f"{'case':18s} {'model ns':>9s} {'device ns':>10s} {'err':>7s}")
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            recorded = f"traces/recorded/{a.gpu}/bench_untraced/{case}.jsonl"
            if not os.path.exists(recorded):
                print(f"{case:18s} no recording at {recorded}")
                continue
            m, d, err = kernel_span_error(a.tmasim, ARCH_OF_GPU[a.gpu], case, recorded, tmp)
            worst = max(worst, 100 * err)
            print(f"{case:18s} {m:9d} {d:10d} {100 * err:6.1f}%")
    if a.max_error is not None:
        verdict = "within" if worst <= a.max_error else "NOT within"
        print(f"worst {worst:.1f}%: {verdict} {a.max_error:g}%")
        if worst > a.max_error:
            sys.exit(1)


if __name__ == "__main__":
    main()
