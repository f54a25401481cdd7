#!/usr/bin/env python3
"""Per-op-kind durations in one GPU's recorded traces (and, with --model, in the model's).

A duration is issue->complete (or wait_begin->wait_end for a wait op) of one op instance on
one (cta, warp, lane). Prints, per op kind, the median, min, max and count over the traces of
the fitting folders (traces/recorded/SPLIT.yaml) under traces/recorded/<--gpu> (or the files/
folders given), and with --model the model's median for the same instances (the model run on
each trace's catalog scenario with that GPU's config), so a number in model/arch/<gpu>.yaml that
says "measured" can be re-derived and checked.

usage (from the repository root):
  traces/analysis/op_durations.py [--gpu GPU] [--model] [--by-trace] [--name OPKIND] [PATH ...]
Stdlib only.
"""
import argparse, collections, json, os, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_scaling import ARCH_OF_GPU as ARCH  # noqa: E402
from recording import trace_words_args  # noqa: E402
from split import split_folders  # noqa: E402

ROOT = "traces/recorded/NVIDIA-H200"


def trace_files(paths):
    for p in paths or [os.path.join(ROOT, f) for f in split_folders("fitting") if os.path.isdir(os.path.join(ROOT, f))]:
        if os.path.isdir(p):
            for d, _, fs in sorted(os.walk(p)):
                for f in sorted(fs):
                    if f.endswith(".jsonl"):
                        yield os.path.join(d, f)
        else:
            yield p


def load_events(path):
    with open(path) as fh:
        for line in fh:
            e = json.loads(line)
            if e.get("type") == "event" and not e.get("model_only"):
                yield e


def durations(path):
    """{(op, iters, cta, warp, lane): (name, duration)}"""
    start, out = {}, {}
    for e in load_events(path):
        k = (e["op"], tuple(e["iters"]), e["cta"], e["warp"], e["lane"])
        if e["kind"] in ("issue", "wait_begin"):
            start[k] = (e["name"], e["t"])
        elif e["kind"] in ("complete", "wait_end") and k in start:
            out[k] = (start[k][0], e["t"] - start[k][1])
    return out


def model_trace(dev_path, tmp, tmasim):
    rel = os.path.relpath(dev_path, ROOT)[:-len(".jsonl")]
    scen = os.path.join("scenarios/catalog", rel + ".yaml")
    if not os.path.exists(scen):
        return None
    out = os.path.join(tmp, rel.replace("/", "_") + ".jsonl")
    subprocess.run([tmasim, "run", "--backend", "model", "--arch", ARCH[os.path.basename(ROOT)], "--trace", "all",
                    *trace_words_args(dev_path), scen, "-o", out, "-q"],
                   capture_output=True)
    return out if os.path.exists(out) else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--model", action="store_true", help="also the model's median per kind")
    ap.add_argument("--by-trace", action="store_true", help="one row per (trace, op kind)")
    ap.add_argument("--name", help="only this op kind")
    ap.add_argument("--tmasim", default="build/cli/tmasim")
    ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH))
    a = ap.parse_args()
    global ROOT
    ROOT = "traces/recorded/" + a.gpu
    tmp = tempfile.mkdtemp()
    dev = collections.defaultdict(list)
    mod = collections.defaultdict(list)
    for f in trace_files(a.paths):
        d = durations(f)
        m = {}
        if a.model:
            mp = model_trace(f, tmp, a.tmasim)
            m = durations(mp) if mp else {}
        rel = os.path.relpath(f, ROOT)[:-len(".jsonl")]
        for k, (name, dt) in d.items():
            if a.name and name != a.name:
                continue
            group = (rel, name) if a.by_trace else name
            dev[group].append(dt)
            if k in m:
                mod[group].append(m[k][1])
    w = max([len(str(g)) for g in dev] + [10])
    print(f"{'op kind':{w}s} {'n':>6s} {'median':>8s} {'min':>7s} {'max':>7s}" +
          (f" {'model med':>9s}" if a.model else ""))
    for g in sorted(dev, key=str):
        v = dev[g]
        label = " ".join(g) if isinstance(g, tuple) else g
        row = f"{label:{w}s} {len(v):6d} {statistics.median(v):8.1f} {min(v):7d} {max(v):7d}"
        if a.model:
            row += f" {statistics.median(mod[g]):9.1f}" if mod[g] else f" {'-':>9s}"
        print(row)


if __name__ == "__main__":
    main()
