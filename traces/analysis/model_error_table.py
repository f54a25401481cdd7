#!/usr/bin/env python3
"""The model's timing error against recorded hardware traces, per trace and overall.

For every trace traces/recorded/<gpu>/<folder>/<name>.jsonl of the chosen split
(traces/recorded/SPLIT.yaml: `fitting` folders fitted the arch configs, `held_out` ones never
did) whose scenario scenarios/catalog/<folder>/<name>.yaml exists: run the model on it with
the arch config of that GPU and at the trace level the recording was made at (a traced
recording is compared with the model's prediction of that traced kernel), `tmasim diff
--json` the two, and keep the trace's median and p90 relative error over its paired event
times, and the error of its kernel span (first warp entry to last warp exit).

Overall: the median and the p90 over traces of the per-trace median error. With --check FILE
the run fails (exit 1) when either is more than 0.5 points worse than the figures FILE
records for this GPU and split; --write-baseline FILE records them.

Untraced kernel times: for each scenario of the split also recorded untraced
(traces/recorded/<gpu>/<folder>_untraced/<name>.jsonl, `tmasim run --trace none`: no per-op
events, the kernel span only), the model's default prediction (--trace none) against it, the
relative error of the kernel span, where the device's span is the median of the three runs in
traces/recorded/<gpu>/bench/<split>_untraced_repeats.txt (the recorded trace's own span where a
scenario has none there); the median and p90 over those scenarios are printed, and
recorded and checked under "<gpu>/<split>/untraced_kernel" the same way.

The device against itself: where traces/recorded/<gpu>/<split>_session_a/ holds the same
scenarios recorded in another session (held_out: one run each in the session the fitting folders
were recorded in, before the held-out traces became the median of three runs), the table also
prints the per-trace error of those recordings against the split's (what no model can beat) and
the model's against them. Informational: --check does not judge them.

usage (from the repository root):
  traces/analysis/model_error_table.py [--gpu NVIDIA-H200] [--split held_out|fitting|all]
      [--tmasim build/cli/tmasim] [--json OUT.json] [--check F.json | --write-baseline F.json]
Stdlib only.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile

from recording import trace_words_args
from split import split_traces

ARCH_OF_GPU = {"NVIDIA-H200": "h200", "NVIDIA-H100-80GB-HBM3": "h100-sxm"}
SLACK = 0.5  # percentage points a check allows before it calls the error worse

ap = argparse.ArgumentParser()
ap.add_argument("--tmasim", default="build/cli/tmasim")
ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
ap.add_argument("--split", default="all", choices=["fitting", "held_out", "blind", "all"])
ap.add_argument("--align", default="entry", choices=["entry", "first-op"],
                help="event-time origin of the per-op comparison (tmasim diff --align): kernel entry, or each CTA's first op")
ap.add_argument("--json", help="write the per-trace figures here")
ap.add_argument("--check", help="fail when worse than the figures this file records")
ap.add_argument("--write-baseline", help="record the overall figures in this file")
args = ap.parse_args()


def header(path):
    with open(path) as fh:
        return json.loads(fh.readline())


def percentile(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


root = os.path.join("traces/recorded", args.gpu)  # for the messages
arch = ARCH_OF_GPU[args.gpu]
tmp = tempfile.mkdtemp()


def model_timing(rel, recorded, level):
    """The timing part of `tmasim diff --json` of the model's run of scenario `rel` at trace
    level `level` against the recorded trace; None when there is no scenario or the model fails."""
    scen = os.path.join("scenarios/catalog", rel + ".yaml")
    if not os.path.exists(scen):
        return None
    out = os.path.join(tmp, rel.replace("/", "_") + "." + level + ".jsonl")
    # A traced prediction keeps its clock words where the recorded kernel kept them (the header says).
    words = trace_words_args(recorded) if level != "none" else []
    r = subprocess.run([args.tmasim, "run", "--backend", "model", "--arch", arch, "--trace", level, *words, scen,
                        "-o", out, "-q"], capture_output=True, text=True)
    if not os.path.exists(out):
        print(f"{rel}: model run failed: {r.stderr.strip()[:200]}", file=sys.stderr)
        return None
    dj = subprocess.run([args.tmasim, "diff", "--json", "--align", args.align, out, recorded], capture_output=True, text=True)
    if not dj.stdout.strip():
        print(f"{rel}: tmasim diff failed: {dj.stderr.strip()[:300]}", file=sys.stderr)
        return None
    return json.loads(dj.stdout)["timing"]


def untraced_repeats(gpu):
    """{"folder/name": [ns, ns, ns]}: the three untraced runs of each scenario that
    device/scripts/record_held_out.sh recorded (bench/<split>_untraced_repeats.txt)."""
    out = {}
    for split in ("held_out", "fitting"):
        path = os.path.join("traces/recorded", gpu, "bench", split + "_untraced_repeats.txt")
        if not os.path.exists(path):
            continue
        for line in open(path):
            parts = line.split()
            if not parts or line.startswith("#"):
                continue
            # The spans, then (recordings since the median run is the one kept) "run N kept".
            spans = []
            for x in parts[1:]:
                if not x.isdigit():
                    break
                spans.append(int(x))
            if spans and (len(spans) == len(parts) - 1 or parts[len(spans) + 1] == "run"):
                out[parts[0]] = spans
    return out


repeats = untraced_repeats(args.gpu)
rows, untraced = {}, {}
for folder, name, recorded in split_traces(args.gpu, args.split):
    rel = folder + "/" + name
    level = header(recorded).get("extra", {}).get("trace_level", "all")
    t = model_timing(rel, recorded, level)
    if t is None or t["events"]["paired"] == 0:
        continue
    span = t.get("kernel_span_ns", {}).get("rel_err", -1)
    rows[rel] = {"median": 100 * t["events"]["median_rel_err"], "p90": 100 * t["events"]["p90_rel_err"],
                 "kernel": 100 * span if span >= 0 else None, "trace_level": level}
    plain = os.path.join(root, folder + "_untraced", name + ".jsonl")
    if os.path.exists(plain):
        u = model_timing(rel, plain, "none")
        span = (u or {}).get("kernel_span_ns", {})
        if span.get("rel_err", -1) >= 0:
            # The device's figure: the median of its three runs where they were recorded (a
            # launch's first run is now and then slow: bench/bulk_stream 1920 ns, then 1152, 1120).
            device = statistics.median(repeats[rel]) if rel in repeats else span.get("b")
            untraced[rel] = {"kernel": 100 * abs(span.get("a") - device) / device, "model_ns": span.get("a"),
                             "device_ns": int(device), "runs": repeats.get(rel, [span.get("b")])}

if not rows:
    sys.exit(f"no traces of split {args.split} under {root} have a catalog scenario")
print(f"model --arch {arch} against {root}, split {args.split}: {len(rows)} traces")
print(f"{'trace':48s} {'median':>7s} {'p90':>7s} {'kernel':>7s}")
for k in sorted(rows):
    v = rows[k]
    kernel = f"{v['kernel']:6.1f}%" if v["kernel"] is not None else "     -"
    print(f"{k:48s} {v['median']:6.1f}% {v['p90']:6.1f}% {kernel}")
medians = [v["median"] for v in rows.values()]
overall = {"traces": len(rows), "median": round(statistics.median(medians), 2),
           "p90": round(percentile(medians, 0.9), 2)}
print(f"per-trace median relative error over {overall['traces']} traces ({args.gpu}, {args.split}): "
      f"median {overall['median']:.1f}%, p90 {overall['p90']:.1f}%")
figures = {f"{args.gpu}/{args.split}": overall}
# The device against itself: the same scenarios recorded in another session (one run each, the
# session the fitting folders were recorded in), diffed the same way. What no model can beat.
again = os.path.join(root, args.split + "_session_a")
def per_op_error(a, b):
    """`tmasim diff` of trace a against reference b: the per-op median relative error in %, or None."""
    dj = subprocess.run([args.tmasim, "diff", "--json", "--align", args.align, a, b], capture_output=True, text=True)
    t = json.loads(dj.stdout)["timing"] if dj.stdout.strip() else None
    return 100 * t["events"]["median_rel_err"] if t and t["events"]["paired"] else None


if os.path.isdir(again):
    floor, model_there = [], []
    for rel in sorted(rows):
        other = os.path.join(again, rel + ".jsonl")
        if not os.path.exists(other):
            continue
        model_run = os.path.join(tmp, rel.replace("/", "_") + "." + rows[rel]["trace_level"] + ".jsonl")
        for err, into in ((per_op_error(other, os.path.join(root, rel + ".jsonl")), floor),
                          (per_op_error(model_run, other), model_there)):
            if err is not None:
                into.append(err)
    if floor:
        print(f"the device against itself ({os.path.relpath(again)}, another session's run of the same "
              f"scenarios): median {statistics.median(floor):.1f}%, p90 {percentile(floor, 0.9):.1f}% over {len(floor)} traces")
    if model_there:
        print(f"the model against that session's runs: median {statistics.median(model_there):.1f}%, "
              f"p90 {percentile(model_there, 0.9):.1f}% over {len(model_there)} traces")
if untraced:
    print()
    print(f"untraced kernel time, model --trace none against {root}/<folder>_untraced, split {args.split}: "
          f"{len(untraced)} scenarios; device: the median of the runs in bench/<split>_untraced_repeats.txt")
    print(f"{'scenario':48s} {'model':>8s} {'device':>8s} {'error':>7s}")
    for k in sorted(untraced):
        v = untraced[k]
        print(f"{k:48s} {v['model_ns']:6d}ns {v['device_ns']:6d}ns {v['kernel']:6.1f}%")
    errs = [v["kernel"] for v in untraced.values()]
    plain = {"traces": len(errs), "median": round(statistics.median(errs), 2), "p90": round(percentile(errs, 0.9), 2)}
    print(f"untraced kernel-time relative error over {plain['traces']} scenarios ({args.gpu}, {args.split}): "
          f"median {plain['median']:.1f}%, p90 {plain['p90']:.1f}%")
    figures[f"{args.gpu}/{args.split}/untraced_kernel"] = plain
if args.json:
    with open(args.json, "w") as fh:
        json.dump({"traced": rows, "untraced_kernel": untraced}, fh, indent=1, sort_keys=True)
if args.write_baseline:
    base = json.load(open(args.write_baseline)) if os.path.exists(args.write_baseline) else {}
    base.update(figures)
    with open(args.write_baseline, "w") as fh:
        json.dump(base, fh, indent=1, sort_keys=True)
        fh.write("\n")
if args.check:
    recorded = json.load(open(args.check))
    failed = False
    for key, now in figures.items():
        base = recorded.get(key)
        if base is None:
            sys.exit(f"{args.check} records nothing for {key}")
        worse = [m for m in ("median", "p90") if now[m] > base[m] + SLACK]
        if worse:
            print(f"WORSE than {args.check} ({key}: median {base['median']}%, p90 {base['p90']}%): {', '.join(worse)}")
            failed = True
        else:
            print(f"not worse than {args.check} ({key}: median {base['median']}%, p90 {base['p90']}%)")
    if failed:
        sys.exit(1)
