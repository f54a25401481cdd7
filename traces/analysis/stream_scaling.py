#!/usr/bin/env python3
"""The model's per-CTA bandwidth for the benchmark streams at 1 to 132 CTAs, against the GPU.

For each case of scenarios/catalog/bench/ and each CTA count that
traces/recorded/<gpu>/bench/executor_overhead.txt has a row for, scale the scenario as
`tmasim bench executor-overhead` does (grid, each CTA's own region, the loop over tiles),
run the model at its default prediction (the kernel untraced), and print its bandwidth per CTA
next to the recorded untraced executor run and the hand-written reference kernel, with the
relative error against each. The model runs fewer tiles per CTA than the recording (--tiles,
default 512 up to 16 CTAs and 64 beyond, to keep a full chip quick): bandwidth is a rate, and
the fill and drain of 4 stages are a small part of 64 tiles once the chip's HBM is the limit.

usage (from the repository root):
  traces/analysis/stream_scaling.py [--gpu NVIDIA-H200] [--case tma_stream ...] [--tmasim build/cli/tmasim]
Stdlib only.
"""
import argparse, json, os, re, subprocess, sys, tempfile

ARCH_OF_GPU = {"NVIDIA-H200": "h200", "NVIDIA-H100-80GB-HBM3": "h100-sxm"}
# Per case: the per-CTA region constant in the catalog scenario, elements per 16 KiB tile in
# that global's first dimension, bytes into shared memory per tile, loop over t is tiles - 4.
CASES = {
    "tma_stream": ("32768", 64, 16384, True),
    "bulk_stream": ("2097152", 4096, 16384, True),
    "ldgsts_stream": ("2097152", 4096, 16384, True),
    "tma_round_trip": ("32768", 64, 2 * 16384, False),
}

ap = argparse.ArgumentParser()
ap.add_argument("--tmasim", default="build/cli/tmasim")
ap.add_argument("--gpu", default="NVIDIA-H200", choices=sorted(ARCH_OF_GPU))
ap.add_argument("--case", nargs="*", default=sorted(CASES))
ap.add_argument("--tiles", type=int, help="tiles per CTA for every count (default 512 to 16 CTAs, 64 beyond)")
ap.add_argument("--max-error", type=float, help="exit 1 when a row of --from-ctas CTAs or more is further than "
                "this many percent from the reference kernel (issue 10 asks 15)")
ap.add_argument("--from-ctas", type=int, default=1, help="the smallest CTA count --max-error judges")
args = ap.parse_args()


def recorded_rows(gpu):
    """{(case, ctas): (reference GB/s, untraced GB/s)} from the committed benchmark output."""
    rows, key = {}, None
    lines = []
    for name in ("executor_overhead.txt", "executor_overhead_33ctas.txt"):  # 1, 16, 66, 132; then 33
        path = os.path.join("traces/recorded", gpu, "bench", name)
        if os.path.exists(path):
            lines += open(path).read().splitlines()
    for line in lines:
        m = re.match(r"case (\w+), (\d+) CTAs", line)
        if m:
            key = (m.group(1), int(m.group(2)))
            rows[key] = {}
        m = re.match(r"\s+(reference|untraced):\s+[0-9.]+ ms\s+([0-9.]+) GB/s", line)
        if m and key:
            rows[key][m.group(1)] = float(m.group(2))
    return rows


def scaled(case, ctas, tiles):
    region, per_tile, _, less_four = CASES[case]
    text = open(f"scenarios/catalog/bench/{case}.yaml").read()
    text = text.replace("grid: [1]", f"grid: [{ctas}]")
    text = text.replace(f"cta*{region}", f"cta*{tiles * per_tile}")
    # Each global's first extent: every CTA's region of `tiles` tiles.
    text = re.sub(r"shape: \[(512|32768)(, 64)?\], init", lambda m: f"shape: [{ctas * tiles * per_tile}{m.group(2) or ''}], init", text)
    loop = re.search(r"var: t\n(\s+)count: (\d+)", text)
    if not loop:
        sys.exit(f"{case}: no loop over t")
    count = tiles - 4 if less_four else tiles
    return text[:loop.start()] + f"var: t\n{loop.group(1)}count: {count}" + text[loop.end():]


def arch_l2_bytes(arch):
    """The arch config's l2_bytes value."""
    m = re.search(r"\n  l2_bytes:\n    value: ([0-9.e+]+)", open(f"model/arch/{arch}.yaml").read())
    if not m:
        sys.exit(f"model/arch/{arch}.yaml: no l2_bytes")
    return float(m.group(1))


failed = []
recorded = recorded_rows(args.gpu)
arch = ARCH_OF_GPU[args.gpu]
l2_bytes = arch_l2_bytes(arch)
RECORDED_TILES = 512  # tiles per CTA of every recorded benchmark row
tmp = tempfile.mkdtemp()
print(f"model --arch {arch} (untraced prediction) against traces/recorded/{args.gpu}/bench/executor_overhead.txt")
print(f"{'case':16s} {'CTAs':>5s} {'tiles':>5s} {'L2':>4s} {'model GB/s/CTA':>15s} {'untraced':>9s} {'err':>7s} "
      f"{'reference':>9s} {'err':>7s}")
for case in args.case:
    for (name, ctas), bw in sorted(recorded.items()):
        if name != case or "untraced" not in bw:
            continue
        tiles = args.tiles or (512 if ctas <= 16 else 64)
        path = os.path.join(tmp, f"{case}_{ctas}.yaml")
        with open(path, "w") as fh:
            fh.write(scaled(case, ctas, tiles))
        # The benchmark times repeated launches over the same data: a launch finds in L2 what
        # the one before read where the recorded run's footprint fits (its 512 tiles per CTA,
        # not the shortened model run's).
        warm = ctas * RECORDED_TILES * CASES[case][2] <= l2_bytes
        r = subprocess.run([args.tmasim, "run", "-b", "model", "--arch", arch, "--max-work", "0", path, "--json",
                            "--l2", "warm" if warm else "cold"], capture_output=True, text=True)
        try:
            extra = json.loads(r.stdout)["provenance"]["extra"]
            span_ns = float(extra["kernel_span_ns"])
        except (ValueError, KeyError):
            print(f"{case} at {ctas} CTAs: the model run gave no kernel span: {r.stderr.strip()[:200]}")
            if args.max_error is not None and ctas >= args.from_ctas:
                failed.append(f"{case} at {ctas} CTAs (no model span)")
            continue
        model = CASES[case][2] * tiles / span_ns  # bytes/ns = GB/s, per CTA
        dev, ref = bw["untraced"] / ctas, bw["reference"] / ctas
        print(f"{case:16s} {ctas:5d} {tiles:5d} {'warm' if warm else 'cold':>4s} {model:15.1f} {dev:9.1f} "
              f"{100 * (model - dev) / dev:6.1f}% {ref:9.1f} {100 * (model - ref) / ref:6.1f}%")
        if args.max_error is not None and ctas >= args.from_ctas and abs(model - ref) / ref * 100 > args.max_error:
            failed.append(f"{case} at {ctas} CTAs")
if args.max_error is not None:
    judged = f"rows of {args.from_ctas} CTAs or more"
    if failed:
        sys.exit(f"FAILED: {', '.join(failed)}: further than {args.max_error:g}% from the reference kernel ({judged})")
    print(f"every judged row within {args.max_error:g}% of the reference kernel ({judged})")
