#!/usr/bin/env python3
"""The model's kernel-time error on the blind held-out set (scenarios/heldout/README.md).

For every scenario of scenarios/catalog/blind (less SPLIT.yaml's blind_excluded): the device's
untraced kernel span, the median of the three runs device/scripts/record_scenarios.sh recorded
(traces/recorded/<gpu>/bench/blind_repeats_*.txt, the later file where a scenario was recorded
twice: the first recording lost its large traces' sidecars), against the model's default
prediction (`tmasim run --trace none`). Every scenario counts, also the 17 whose traces are too
large to keep in the repository (their spans are in the repeats files). Prints each, and the
median and p90; --check FILE fails (exit 1) when either is more than 0.5 points worse than FILE's
"<gpu>/blind/untraced_kernel", --write-baseline FILE records them.

usage: traces/analysis/blind_error.py [--gpu NVIDIA-H200] [--tmasim build/cli/tmasim] [--check F | --write-baseline F]
Stdlib only.
"""
import argparse, glob, json, os, statistics, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from split import split_folders  # noqa: E402

ARCH_OF_GPU = {"NVIDIA-H200": "h200", "NVIDIA-H100-80GB-HBM3": "h100-sxm"}
SLACK = 0.5

ap = argparse.ArgumentParser()
ap.add_argument("--tmasim", default="build/cli/tmasim")
ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
ap.add_argument("--check")
ap.add_argument("--write-baseline")
args = ap.parse_args()


def device_spans(gpu):
    """{"blind/NAME": median untraced span in ns} from the repeats files, later files winning."""
    spans = {}
    for path in sorted(glob.glob(os.path.join("traces/recorded", gpu, "bench", "blind_repeats_*.txt"))):
        for line in open(path):
            parts = line.split()
            if len(parts) < 4 or line.startswith("#") or parts[1] != "untraced":
                continue
            runs = [int(x) for x in parts[2:] if x.isdigit()]
            spans[parts[0]] = int(statistics.median(runs[:3]))
    return spans


def percentile(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


device = device_spans(args.gpu)
excluded = set(split_folders("blind_excluded"))
rows = {}
for path in sorted(glob.glob("scenarios/catalog/blind/*.yaml")):
    rel = "blind/" + os.path.basename(path)[:-5]
    if rel in excluded:
        continue
    if rel not in device:
        sys.exit(f"{rel}: no recorded device span in traces/recorded/{args.gpu}/bench/blind_repeats_*.txt")
    r = subprocess.run([args.tmasim, "run", path, "--backend", "model", "--arch", ARCH_OF_GPU[args.gpu], "--trace", "none",
                        "--json"], capture_output=True, text=True)
    doc = json.loads(r.stdout)
    result = doc["results"][0] if "results" in doc else doc
    extra = result.get("provenance", {}).get("extra", result.get("extra", {}))
    model_ns = int(extra["kernel_span_ns"])
    rows[rel] = (model_ns, device[rel], abs(model_ns - device[rel]) / device[rel] * 100)
print(f"blind held-out, untraced kernel time, model --arch {ARCH_OF_GPU[args.gpu]} --trace none against {args.gpu}: "
      f"{len(rows)} scenarios ({len(excluded)} excluded: drawn equal to a fitting scenario)")
print(f"{'scenario':32s} {'model':>8s} {'device':>8s} {'error':>7s}")
for rel, (m, d, e) in rows.items():
    print(f"{rel:32s} {m:6d}ns {d:6d}ns {e:6.1f}%")
errs = [e for _, _, e in rows.values()]
by_class = {}
for rel, (_, _, e) in rows.items():
    by_class.setdefault(rel.split("_", 1)[1], []).append(e)
for cls, v in sorted(by_class.items()):
    print(f"  class {cls}: {len(v)} scenarios, median {statistics.median(v):.1f}%, p90 {percentile(v, 0.9):.1f}%")
fig = {"traces": len(errs), "median": round(statistics.median(errs), 2), "p90": round(percentile(errs, 0.9), 2)}
print(f"blind untraced kernel-time relative error over {fig['traces']} scenarios ({args.gpu}): "
      f"median {fig['median']:.1f}%, p90 {fig['p90']:.1f}%")
key = f"{args.gpu}/blind/untraced_kernel"
if args.write_baseline:
    base = json.load(open(args.write_baseline)) if os.path.exists(args.write_baseline) else {}
    base[key] = fig
    with open(args.write_baseline, "w") as fh:
        json.dump(base, fh, indent=1, sort_keys=True)
        fh.write("\n")
if args.check:
    want = json.load(open(args.check)).get(key)
    if want is None:
        sys.exit(f"{args.check} has no {key}")
    worse = [k for k in ("median", "p90") if fig[k] > want[k] + SLACK]
    if worse:
        sys.exit(f"blind error worse than {args.check} ({key}): " + ", ".join(f"{k} {fig[k]} > {want[k]}" for k in worse))
    print(f"not worse than {args.check} ({key}: median {want['median']}, p90 {want['p90']})")
