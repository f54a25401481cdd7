"""The benchmark streams of scenarios/catalog/bench/ scaled as `tmasim bench executor-overhead`
scales them (grid, each CTA's own region, the loop over tiles), and a model run's bandwidth per
CTA: shared by stream_scaling.py and fit_hbm_share.py. Stdlib only."""
import json, os, re, subprocess, sys

ARCH_OF_GPU = {"NVIDIA-H200": "h200", "NVIDIA-H100-80GB-HBM3": "h100-sxm"}


def arch_number(arch, key):
    """The value of `key` in <arch dir>/<arch>.yaml: $TMASIM_ARCH_DIR as tmasim reads it, else model/arch."""
    with open(os.path.join(os.environ.get("TMASIM_ARCH_DIR", "model/arch"), arch + ".yaml")) as fh:
        return float(re.search(r"\n  %s:\s*\n\s*value:\s*([-\d.eE+]+)" % re.escape(key), fh.read()).group(1))
# Per case: the per-CTA region constant in the catalog scenario, elements per 16 KiB tile in
# that global's first dimension, bytes into shared memory per tile, loop over t is tiles - 4.
CASES = {
    "tma_stream": ("32768", 64, 16384, True),
    "bulk_stream": ("2097152", 4096, 16384, True),
    "ldgsts_stream": ("2097152", 4096, 16384, True),
    "tma_round_trip": ("32768", 64, 2 * 16384, False),
}


def scaled(case, ctas, tiles):
    """The catalog scenario's YAML text at `ctas` CTAs of `tiles` tiles each."""
    region, per_tile, _, less_four = CASES[case]
    text = open(f"scenarios/catalog/bench/{case}.yaml").read()
    text = text.replace("grid: [1]", f"grid: [{ctas}]")
    text = text.replace(f"cta*{region}", f"cta*{tiles * per_tile}")
    # Each global's first extent: every CTA's region of `tiles` tiles.
    text = re.sub(r"shape: \[(512|32768)(, 64)?\], init",
                  lambda m: f"shape: [{ctas * tiles * per_tile}{m.group(2) or ''}], init", text)
    loop = re.search(r"var: t\n(\s+)count: (\d+)", text)
    if not loop:
        sys.exit(f"{case}: no loop over t")
    count = tiles - 4 if less_four else tiles
    return text[:loop.start()] + f"var: t\n{loop.group(1)}count: {count}" + text[loop.end():]


def model_gbps_per_cta(tmasim, arch, case, ctas, tiles, path, extra_args=(), env=None):
    """Write the scaled scenario to `path`, run the model (untraced) and return (GB/s per CTA,
    None), or (None, the model's error text) when the run gave no kernel span."""
    with open(path, "w") as fh:
        fh.write(scaled(case, ctas, tiles))
    r = subprocess.run([tmasim, "run", "-b", "model", "--arch", arch, "--max-work", "0", path, "--json",
                        *extra_args], capture_output=True, text=True, env=env)
    try:
        span_ns = float(json.loads(r.stdout)["provenance"]["extra"]["kernel_span_ns"])
    except (ValueError, KeyError):
        return None, r.stderr.strip()
    return CASES[case][2] * tiles / span_ns, None  # bytes/ns = GB/s
