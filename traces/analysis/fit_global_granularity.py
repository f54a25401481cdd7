#!/usr/bin/env python3
"""Fit the chip's L1-to-L2 request path (l2_sectors_per_cycle in model/arch/*.yaml) on the
calibration scenarios scenarios/catalog/calibrate/full_chip/*.yaml, run untraced on the device
and recorded as traces/recorded/<gpu>/calibrate_untraced/<stem>.summary.json (the trace's header
and memory records, as layouts_untraced/).

The model sends one request per 128-byte line a warp instruction touches; a request takes
l2_request_overhead_sectors + (its 32-byte sectors) slots of the l2_sectors_per_cycle the chip
serves (model/state/l2_request_path.h). Each scenario moves the same 16.5 MiB per direction
through HBM as a dense copy, but its instructions use 32, 64 or 128 bytes of each line they
touch (table below). The rate is fitted on copy_v4_32b_lines, the copy with the most requests
per byte and per instruction. The overhead is the config's (an estimate) unless
copy_v4_32b_split_sectors is recorded: it has the same requests and twice the sectors (each
instruction uses half of each sector it touches), so the span it adds fixes the rate per sector
and copy_v4_32b_lines then the overhead. copy_v1_32b_lines (the same requests from scalar
instructions) and copy_v2_64b_lines (half the requests) are checks.

The load-only scenarios do not calibrate anything: their device kernels end within a microsecond
(a warp exits without waiting for loads whose values it never uses), so they are printed and
left out.

The fit runs the model itself (the GPU's arch config with the candidate rate, untraced): each
round moves the cycles per slot by the span the model misses, divided by the slots, until the
model's span matches the device's within 0.5%. When the model is slower than the device even
with no request limit (its HBM bound already is), the rate is not identifiable on that GPU.

usage (from the repository root):
  traces/analysis/fit_global_granularity.py [--gpu NVIDIA-H200 ...] [--tmasim build/cli/tmasim]
Prints, per GPU, each scenario's device throughput, the fitted rate, and the model against the
device on the copies. Exits 1 when a GPU has no recorded fitting run, 2 when the rate is not
identifiable on one. Stdlib only.
"""
import argparse, json, os, pathlib, re, shutil, subprocess, sys, tempfile

from summaries import read_trace

ARCH_OF_GPU = {"NVIDIA-H200": "h200", "NVIDIA-H100-80GB-HBM3": "h100-sxm"}
CATALOG = pathlib.Path("scenarios/catalog/calibrate/full_chip")
# stem: (line requests per byte moved, sectors per byte moved, role). Lines of 128 B, sectors
# of 32 B; bytes moved = bytes loaded + bytes stored.
SCENARIOS = {
    "copy_v4_32b_lines": (1 / 32, 1 / 32, "fitted"),
    "copy_v1_32b_lines": (1 / 32, 1 / 32, "check: scalar instructions"),
    "copy_v2_64b_lines": (1 / 64, 1 / 32, "check: half the requests per byte"),
    "copy_v4_32b_split_sectors": (1 / 32, 1 / 16, "fitted with copy_v4_32b_lines when recorded (the overhead)"),
    "load_v4_32b_lines": (1 / 32, 1 / 32, "left out: loads never used"),
    "load_v4_32b_split_sectors": (1 / 32, 1 / 16, "left out: loads never used"),
}
FIT, SPLIT = "copy_v4_32b_lines", "copy_v4_32b_split_sectors"


def read_summary(path):
    """(kernel span ns, sm clock MHz, bytes loaded, bytes stored) of one recorded run."""
    header, sizes = read_trace(path)
    span = int(header.get("extra", {}).get("kernel_span_ns", 0))
    return span, float(header.get("sm_clock_mhz") or 1980), sizes.get("src", 0), sizes.get("dst", 0)


def model_span_ns(tmasim, arch, stem, arch_dir):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.jsonl")
        subprocess.run([tmasim, "run", str(CATALOG / (stem + ".yaml")), "--backend", "model", "--arch", arch,
                        "--trace", "none", "-q", "-o", out], check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, TMASIM_ARCH_DIR=arch_dir))
        return read_summary(out)[0]


def config_value(path, key):
    m = re.search(r"%s:\s*\n\s*value:\s*([\d.eE+-]+)" % key, open(path).read())
    if not m:
        sys.exit("fit_global_granularity: no %s value in %s" % (key, path))
    return float(m.group(1))


def write_numbers(path, rate, overhead):
    text = open(path).read()
    for key, value in (("l2_sectors_per_cycle", rate), ("l2_request_overhead_sectors", overhead)):
        text, n = re.subn(r"(%s:\s*\n\s*value:\s*)[\d.eE+-]+" % key, r"\g<1>%.4f" % value, text)
        if n != 1:
            sys.exit("fit_global_granularity: no %s value in %s" % (key, path))
    open(path, "w").write(text)


def fit_rate(tmasim, arch, path, arch_dir, run, overhead, cycles_per_slot):
    """Cycles per slot whose model span of FIT is the device's, and that span (ns)."""
    span, mhz, loaded, stored = run
    slots = (loaded + stored) * (overhead * SCENARIOS[FIT][0] + SCENARIOS[FIT][1])
    for _ in range(8):
        write_numbers(path, 1 / cycles_per_slot, overhead)
        ns = model_span_ns(tmasim, arch, FIT, arch_dir)
        if abs(ns - span) <= 0.005 * span:
            break
        cycles_per_slot = max(cycles_per_slot + (span - ns) * mhz / 1000 / slots, 1e-6)
    return cycles_per_slot, ns


ap = argparse.ArgumentParser()
ap.add_argument("--gpu", action="append", choices=sorted(ARCH_OF_GPU))
ap.add_argument("--tmasim", default="build/cli/tmasim")
args = ap.parse_args()
status = 0
for gpu in args.gpu or sorted(ARCH_OF_GPU):
    folder = pathlib.Path("traces/recorded") / gpu / "calibrate_untraced"
    runs = {s: read_summary(folder / (s + ".summary.json")) for s in SCENARIOS if (folder / (s + ".summary.json")).exists()}
    print(f"== {gpu} ({folder})")
    print(f"  {'scenario':28} {'span ns':>8} {'TB/s':>6} {'B/cycle':>8} {'requests/cycle':>14}")
    for stem, (span, mhz, loaded, stored) in runs.items():
        cycles = span * mhz / 1000
        print(f"  {stem:28} {span:8d} {(loaded + stored) / span / 1e3:6.3f} {(loaded + stored) / cycles:8.1f}"
              f" {(loaded + stored) * SCENARIOS[stem][0] / cycles:14.2f}   {SCENARIOS[stem][2]}")
    if FIT not in runs:
        print(f"  no {FIT}: nothing fitted")
        status = 1
        continue
    arch = ARCH_OF_GPU[gpu]
    span, mhz, loaded, stored = runs[FIT]
    with tempfile.TemporaryDirectory() as tmp:
        arch_dir = os.path.join(tmp, "arch")
        shutil.copytree("model/arch", arch_dir)
        path = os.path.join(arch_dir, arch + ".yaml")
        overhead = config_value(path, "l2_request_overhead_sectors")
        slots = (loaded + stored) * (overhead * SCENARIOS[FIT][0] + SCENARIOS[FIT][1])
        cycles_per_slot = span * mhz / 1000 / slots  # the bound: the whole span as request-path time
        cycles_per_slot, ns = fit_rate(args.tmasim, arch, path, arch_dir, runs[FIT], overhead, cycles_per_slot)
        # With SPLIT recorded: it has FIT's requests and twice its sectors. For each overhead
        # the rate is refitted on FIT; a larger overhead leaves the sectors a smaller share, so
        # SPLIT's model span falls as the overhead grows: bisect (in log space) until it
        # matches the device's.
        if SPLIT in runs and ns <= 1.005 * span:
            lo, hi = 0.01, 64.0
            for _ in range(12):
                overhead = (lo * hi) ** 0.5
                cycles_per_slot, ns = fit_rate(args.tmasim, arch, path, arch_dir, runs[FIT], overhead, cycles_per_slot)
                split_ns = model_span_ns(args.tmasim, arch, SPLIT, arch_dir)
                if abs(split_ns - runs[SPLIT][0]) <= 0.003 * runs[SPLIT][0]:
                    break
                lo, hi = (overhead, hi) if split_ns > runs[SPLIT][0] else (lo, overhead)
        if ns > 1.005 * span:  # still too slow with the path all but free: HBM binds in the model
            write_numbers(path, 1e6, overhead)
            ns = model_span_ns(args.tmasim, arch, FIT, arch_dir)
            print(f"  not identifiable: with no request limit the model takes {ns} ns, the device {span} ns "
                  f"(the model's HBM bound is already slower than the device)")
            status = 2
        else:
            print(f"  fitted with the model ({arch}, l2_request_overhead_sectors {overhead:g}): "
                  f"l2_sectors_per_cycle {1 / cycles_per_slot:.1f} "
                  f"({1 / cycles_per_slot / (overhead + 1):.1f} one-sector, {1 / cycles_per_slot / (overhead + 4):.1f} "
                  f"full-line requests per cycle)")
        for stem in (s for s in runs if not s.startswith("load_")):
            ns = model_span_ns(args.tmasim, arch, stem, arch_dir)
            print(f"    {stem:28} model {ns:7d} ns, device {runs[stem][0]:7d} ns, model/device {ns / runs[stem][0]:5.3f}"
                  f"   {SCENARIOS[stem][2]}")
sys.exit(status)
