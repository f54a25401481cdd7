#!/usr/bin/env python3
"""Fit the chip's L1-to-L2 request path (l2_sectors_per_cycle S, l2_request_overhead_sectors r
in model/arch/*.yaml) on the calibration scenarios scenarios/catalog/calibrate/full_chip/*.yaml,
run untraced on the device and recorded as
traces/recorded/<gpu>/calibrate_untraced/<stem>.summary.json (the trace's header and memory
records, as layouts_untraced/).

The model sends one request per 128-byte line a warp instruction touches; a request takes
r + (its 32-byte sectors) slots of the S per cycle the chip serves (model/state/l2_request_path.h).
Each scenario moves the same 16.5 MiB per direction through HBM as a dense copy, but its
instructions use 32, 64 or 128 bytes of each line they touch, so requests and sectors per byte
differ (table below). r and S are fitted on the two load-only scenarios: load_v4_32b_lines
(one whole sector per request) and load_v4_32b_split_sectors (the halves of two sectors per
request): the second costs one more slot per request, which gives S; the first then gives r.
The three copies are checks, not fitted: the same costs for stores (copy_v4_32b_lines), for
scalar instructions (copy_v1_32b_lines), and half the requests per byte (copy_v2_64b_lines).

The fit runs the model itself (the GPU's arch config with the candidate numbers, untraced):
each round takes the model's span less its request-path cycles as the kernel's fixed part
(start, latency, tail), solves the two equations on the device spans less that part, and
stops when the model's spans match the device's within 0.5%.

usage (from the repository root):
  traces/analysis/fit_global_granularity.py [--gpu NVIDIA-H200 ...] [--tmasim build/cli/tmasim] [--bound-only]
Prints, per GPU, each scenario's device throughput, the fitted numbers, and the model against
the device on all five scenarios. Stdlib only.
"""
import argparse, json, os, pathlib, re, shutil, subprocess, sys, tempfile

ARCH_OF_GPU = {"NVIDIA-H200": "h200", "NVIDIA-H100-80GB-HBM3": "h100-sxm"}
CATALOG = pathlib.Path("scenarios/catalog/calibrate/full_chip")
# stem: (line requests per byte moved, sectors per byte moved, role). Lines of 128 B,
# sectors of 32 B; bytes moved = bytes loaded + bytes stored.
SCENARIOS = {
    "load_v4_32b_lines": (1 / 32, 1 / 32, "fitted (r, S)"),
    "load_v4_32b_split_sectors": (1 / 32, 1 / 16, "fitted (S)"),
    "copy_v4_32b_lines": (1 / 32, 1 / 32, "check: stores cost as loads"),
    "copy_v1_32b_lines": (1 / 32, 1 / 32, "check: scalar instructions"),
    "copy_v2_64b_lines": (1 / 64, 1 / 32, "check: half the requests per byte"),
}
FIT = ("load_v4_32b_lines", "load_v4_32b_split_sectors")


def read_summary(path):
    """(kernel span ns, sm clock MHz, bytes loaded, bytes stored) of one recorded run."""
    header, sizes = None, {}
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            if d.get("type") == "header":
                header = d
            elif d.get("type") == "memory" and d.get("space") == "global":
                sizes[d["name"]] = int(d["size"])
    span = int(header.get("extra", {}).get("kernel_span_ns", 0))
    return span, float(header.get("sm_clock_mhz") or 1980), sizes.get("src", 0), sizes.get("dst", 0)


def model_span_ns(tmasim, arch, stem, arch_dir):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "t.jsonl")
        subprocess.run([tmasim, "run", str(CATALOG / (stem + ".yaml")), "--backend", "model", "--arch", arch,
                        "--trace", "none", "-q", "-o", out], check=True, stdout=subprocess.DEVNULL,
                       env=dict(os.environ, TMASIM_ARCH_DIR=arch_dir))
        return read_summary(out)[0]


def write_numbers(arch_dir, arch, sectors_per_cycle, overhead):
    path = os.path.join(arch_dir, arch + ".yaml")
    text = open(path).read()
    for key, value in (("l2_sectors_per_cycle", sectors_per_cycle), ("l2_request_overhead_sectors", overhead)):
        text, n = re.subn(r"(%s:\s*\n\s*value:\s*)[\d.eE+-]+" % key, r"\g<1>%.4f" % value, text)
        if n != 1:
            sys.exit("fit_global_granularity: no %s value in %s" % (key, path))
    open(path, "w").write(text)


def solve(cycles_per_byte):
    """(S, r) from the two fitting scenarios' request-path cycles per byte moved."""
    (qa, sa), (qb, sb) = (SCENARIOS[s][:2] for s in FIT)
    ca, cb = (cycles_per_byte[s] for s in FIT)
    if cb <= ca * 1.001:  # the extra sector costs nothing: requests alone bind (r large)
        print("    the split sectors cost no more than whole ones: r capped at 64")
        return (64 * qa + sa) / ca, 64.0
    S = (sb - sa) / (cb - ca)  # the two differ only in sectors per byte (qa == qb)
    r = (ca * S - sa) / qa
    if r < 0.1:
        print(f"    r = {r:.2f} below 0.1: sectors alone bind; r set to 0.1")
        r = 0.1
        S = (r * qa + sa) / ca
    return S, r


def slots_per_byte(stem, r):
    return r * SCENARIOS[stem][0] + SCENARIOS[stem][1]


ap = argparse.ArgumentParser()
ap.add_argument("--gpu", action="append", choices=sorted(ARCH_OF_GPU))
ap.add_argument("--tmasim", default="build/cli/tmasim")
ap.add_argument("--bound-only", action="store_true", help="only the requests / span estimate; no model runs")
args = ap.parse_args()
status = 0
for gpu in args.gpu or sorted(ARCH_OF_GPU):
    folder = pathlib.Path("traces/recorded") / gpu / "calibrate_untraced"
    runs = {s: read_summary(folder / (s + ".summary.json")) for s in SCENARIOS if (folder / (s + ".summary.json")).exists()}
    print(f"== {gpu} ({folder})")
    print(f"  {'scenario':28} {'span ns':>8} {'TB/s':>6} {'B/cycle':>8} {'requests/cycle':>14}")
    for stem, (span, mhz, loaded, stored) in runs.items():
        cycles = span * mhz / 1000
        requests = (loaded + stored) * SCENARIOS[stem][0]
        print(f"  {stem:28} {span:8d} {(loaded + stored) / span / 1e3:6.3f} {(loaded + stored) / cycles:8.1f}"
              f" {requests / cycles:14.2f}   {SCENARIOS[stem][2]}")
    if any(s not in runs for s in FIT):
        print(f"  missing {' or '.join(FIT)}: nothing fitted")
        status = 1
        continue
    moved = {s: runs[s][2] + runs[s][3] for s in runs}
    device_cycles = {s: runs[s][0] * runs[s][1] / 1000 for s in runs}
    S, r = solve({s: device_cycles[s] / moved[s] for s in FIT})
    print(f"  bound estimate (spans as request-path time): l2_sectors_per_cycle {S:.1f}, "
          f"l2_request_overhead_sectors {r:.2f} ({S / (r + 1):.1f} one-sector or {S / (r + 4):.1f} full-line requests per cycle)")
    if args.bound_only:
        continue
    arch = ARCH_OF_GPU[gpu]
    with tempfile.TemporaryDirectory() as tmp:
        arch_dir = os.path.join(tmp, "arch")
        shutil.copytree("model/arch", arch_dir)
        for _ in range(6):
            write_numbers(arch_dir, arch, S, r)
            model_cycles = {s: model_span_ns(args.tmasim, arch, s, arch_dir) * runs[s][1] / 1000 for s in FIT}
            if all(abs(model_cycles[s] - device_cycles[s]) <= 0.005 * device_cycles[s] for s in FIT):
                break
            fixed = {s: model_cycles[s] - moved[s] * slots_per_byte(s, r) / S for s in FIT}
            S, r = solve({s: max(device_cycles[s] - fixed[s], 1.0) / moved[s] for s in FIT})
        write_numbers(arch_dir, arch, S, r)
        print(f"  fitted with the model ({arch}): l2_sectors_per_cycle {S:.1f}, l2_request_overhead_sectors {r:.2f}")
        for stem in runs:
            ns = model_span_ns(args.tmasim, arch, stem, arch_dir)
            print(f"    {stem:28} model {ns:7d} ns, device {runs[stem][0]:7d} ns, model/device {ns / runs[stem][0]:5.3f}"
                  f"   {SCENARIOS[stem][2]}")
sys.exit(status)
