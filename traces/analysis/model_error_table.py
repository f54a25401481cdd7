#!/usr/bin/env python3
"""Model-vs-H200 timing error per recorded trace.

For every trace under traces/recorded/NVIDIA-H200/<path>.jsonl whose catalog scenario
scenarios/catalog/<path>.yaml exists, run the model (--arch h200, or --arch ARCH) on the
scenario, `tmasim diff` the model trace against the recorded one and collect the `timing:`
line's median and p90 relative error. Prints one row per trace and the overall median of the
per-trace medians and of the per-trace p90s. Stdlib only.

usage: traces/analysis/model_error_table.py [--tmasim build/cli/tmasim] [--align entry|first-op]
       [--arch h200] [--json OUT.json] [--compare BEFORE.json]
Run from the repository root.
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile

ap = argparse.ArgumentParser()
ap.add_argument("--tmasim", default="build/cli/tmasim")
ap.add_argument("--align", default="entry")
ap.add_argument("--arch", default="h200")
ap.add_argument("--gpu", default="NVIDIA-H200", help="the folder under traces/recorded/")
ap.add_argument("--json", help="write the per-trace figures here")
ap.add_argument("--compare", help="a --json file from an earlier run: print before/after")
args = ap.parse_args()

root = "traces/recorded/" + args.gpu
line_re = re.compile(r"^timing: .*median rel err ([0-9.]+)%, p90 ([0-9.]+)%")
rows = {}
tmp = tempfile.mkdtemp()
for dirpath, _, files in sorted(os.walk(root)):
    for f in sorted(files):
        if not f.endswith(".jsonl"):
            continue
        rel = os.path.relpath(os.path.join(dirpath, f), root)[:-len(".jsonl")]
        scen = os.path.join("scenarios/catalog", rel + ".yaml")
        if not os.path.exists(scen):
            continue
        out = os.path.join(tmp, rel.replace("/", "_") + ".jsonl")
        r = subprocess.run([args.tmasim, "run", "--backend", "model", "--arch", args.arch, scen,
                            "-o", out, "-q"], capture_output=True, text=True)
        if not os.path.exists(out):
            print(f"{rel}: model run failed: {r.stderr.strip()[:200]}", file=sys.stderr)
            continue
        d = subprocess.run([args.tmasim, "diff", "--align", args.align, out,
                            os.path.join(dirpath, f)], capture_output=True, text=True)
        for line in d.stdout.splitlines():
            m = line_re.match(line)
            if m:
                rows[rel] = (float(m.group(1)), float(m.group(2)))
before = {}
if args.compare:
    with open(args.compare) as fh:
        before = {k: tuple(v) for k, v in json.load(fh).items()}
if before:
    print(f"{'trace':48s} {'median before':>13s} {'after':>7s} {'p90 before':>10s} {'after':>7s}")
    for k in sorted(set(rows) | set(before)):
        b = before.get(k, (float('nan'),) * 2)
        a = rows.get(k, (float('nan'),) * 2)
        print(f"{k:48s} {b[0]:12.1f}% {a[0]:6.1f}% {b[1]:9.1f}% {a[1]:6.1f}%")
else:
    print(f"{'trace':48s} {'median':>7s} {'p90':>7s}")
    for k in sorted(rows):
        print(f"{k:48s} {rows[k][0]:6.1f}% {rows[k][1]:6.1f}%")
def overall(d):
    return (statistics.median(v[0] for v in d.values()), statistics.median(v[1] for v in d.values()))
if before:
    bm, bp = overall(before)
    print(f"overall (n={len(before)}) before: median of medians {bm:.1f}%, median of p90s {bp:.1f}%")
am, ap90 = overall(rows)
print(f"overall (n={len(rows)}){' after' if before else ''}: median of medians {am:.1f}%, median of p90s {ap90:.1f}%")
if args.json:
    with open(args.json, "w") as fh:
        json.dump(rows, fh, indent=1, sort_keys=True)
