#!/usr/bin/env python3
"""What the traced kernel's clock reads cost in a run of ops one thread issues back to back.

Reads recordings of scenarios/catalog/calibrate/thread_run_clock_reads.yaml (runs of 1, 2, 4 and 8
mbarrier.init by thread 0, then of 2 and 8 by thread 32, each closed by a CTA sync that the other
warps reach first) and, with --model, the model's run of the same scenario. Per run it prints an
op's issue to complete (median over the run's ops) and the sync's release (the first wait_end of
a warp other than the run's) after the run's last clock read. Then the two numbers the model's
config stands on: an op read inside the branch costs its own time plus trace_in_branch_probe_cycles,
where a lone op costs its own time plus trace_probe_cycles, so the in-branch read is the in-run
op's time less the lone op's plus trace_probe_cycles; and each of a run's words moves after the
branch: the release after a run of k ops less the release after a lone op, per op (least squares
through the origin over the runs).

usage (from the repository root):
  traces/analysis/thread_runs.py RECORDING.jsonl... [--model] [--gpu NVIDIA-H200]
      [--probe 25] [--tmasim build/cli/tmasim]
Stdlib only.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scaling import ARCH_OF_GPU  # noqa: E402

SCENARIO = "scenarios/catalog/calibrate/thread_run_clock_reads.yaml"
RUNS = [("one", 1, 0), ("two", 2, 0), ("four", 4, 0), ("eight", 8, 0), ("two_w1", 2, 1), ("eight_w1", 8, 1)]


def labels():
    """{label: op id}: the scenario's ops are numbered in program order (no loops in it)."""
    out, op = {}, 0
    with open(SCENARIO) as fh:
        for line in fh:
            s = line.strip()
            if s.startswith("- {op:"):
                if "label: " in s:
                    out[s.split("label: ")[1].rstrip("}").strip()] = op
                op += 1
    return out


def run_figures(path, ids):
    """{run: (median op issue->complete, release after the run's last read)}"""
    t = {}
    with open(path) as fh:
        for line in fh:
            e = json.loads(line)
            if e.get("type") == "event":
                t[(e["op"], e["warp"], e["lane"], e["kind"])] = e["t"]
    out = {}
    for name, k, warp in RUNS:
        ops = [ids[f"run_{name}_{j}"] for j in range(k)]
        sync = ids[f"after_{name}"]
        durations = [t[(op, warp, 0, "complete")] - t[(op, warp, 0, "issue")] for op in ops]
        release = min(t[(sync, w, 0, "wait_end")] for w in range(4) if w != warp)
        out[name] = (statistics.median(durations), release - t[(ops[-1], warp, 0, "complete")])
    return out


def derived(figs, probe):
    in_run = statistics.median(f[name][0] for f in figs for name, k, _ in RUNS if k > 1)
    lone = statistics.median(f["one"][0] for f in figs)
    extra = [(k, f[name][1] - f["one"][1]) for f in figs for name, k, _ in RUNS if k > 1]
    per_word = sum(k * x for k, x in extra) / sum(k * k for k, _ in extra)
    return in_run, lone, in_run - lone + probe, per_word


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("recordings", nargs="+")
    ap.add_argument("--model", action="store_true")
    ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
    ap.add_argument("--probe", type=float, default=25, help="trace_probe_cycles of the config")
    ap.add_argument("--tmasim", default="build/cli/tmasim")
    args = ap.parse_args()
    ids = labels()
    figs = [run_figures(p, ids) for p in args.recordings]
    model = None
    if args.model:
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "model.jsonl")
            subprocess.run([args.tmasim, "run", "--backend", "model", "--arch", ARCH_OF_GPU[args.gpu], "--trace", "all",
                            "--trace-words-in", "shared", SCENARIO, "-o", out, "-q"], check=True)
            model = run_figures(out, ids)
    print(f"{'run':9} {'op issue->complete':>22} {'release after last read':>26}")
    for name, k, warp in RUNS:
        ops = " ".join(f"{f[name][0]:g}" for f in figs)
        rel = " ".join(f"{f[name][1]:g}" for f in figs)
        m = f"  model {model[name][0]:g} / {model[name][1]:g}" if model else ""
        print(f"{name:9} {ops:>22} {rel:>26}{m}")
    in_run, lone, read, per_word = derived(figs, args.probe)
    print(f"in-run op median {in_run:g} cycles, lone op {lone:g}: the in-branch read {read:g} cycles "
          f"(lone op less the probe {args.probe:g}, plus the in-run excess)")
    print(f"each word of a run moved after the branch: {per_word:.1f} cycles (least squares over the runs of 2-8 ops)")
    if model:
        m_in, m_lone, m_read, m_word = derived([model], args.probe)
        print(f"model: in-run op {m_in:g}, lone op {m_lone:g}, in-branch read {m_read:g}, per word {m_word:.1f}")


if __name__ == "__main__":
    main()
