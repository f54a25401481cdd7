#!/usr/bin/python3
"""Records Nsight Compute's counters of the layout scenarios on this machine's GPU into
traces/recorded/<gpu>/ncu/layouts.json, which tests/regress/test_ncu_layouts.cpp compares
with the model's counts. Each scenario runs untraced (--trace none) under
`tmasim run FILE --backend device --ncu`, and so does its baseline twin: the same
declarations with the program replaced by one `sync`, whose counters are the executor's
own accesses (status flags, the copy of the shared buffers out, trace bookkeeping). The
test compares the model's counts with the difference.

usage: record_layout_ncu.py TMASIM GPU_DIR_NAME   (e.g. build/cli/tmasim NVIDIA-H200)"""
import datetime
import json
import pathlib
import re
import subprocess
import sys
import tempfile

import yaml

tmasim, gpu_dir = sys.argv[1], sys.argv[2]
root = pathlib.Path(__file__).resolve().parents[2]
catalog = root / "scenarios/catalog"
counters, baseline, gpu = {}, {}, None
scratch = pathlib.Path(tempfile.mkdtemp(prefix="layout-ncu-"))


def ncu_counters(path, rel):
    global gpu
    run = subprocess.run([tmasim, "run", str(path), "--backend", "device", "--trace", "none", "--ncu"],
                         capture_output=True, text=True)
    found = dict(re.findall(r"^ncu: (\S+) = (.+)$", run.stdout, re.M))
    if run.returncode != 0 or not found:
        sys.exit(f"{rel}: tmasim exited {run.returncode}\n{run.stdout}\n{run.stderr}")
    gpu = gpu or re.search(r"^backend:\s+device, gpu (.+?) @", run.stdout, re.M)
    return {name: int(value.replace(",", "")) for name, value in found.items()}


for path in sorted((catalog / "layouts").glob("*.yaml")):  # not full_chip/: one small kernel each
    rel = str(path.relative_to(catalog))
    counters[rel] = ncu_counters(path, rel)
    twin = yaml.safe_load(path.read_text())
    twin["program"] = [{"op": "sync"}]
    twin.pop("expect", None)
    twin_path = scratch / path.name
    twin_path.write_text(yaml.safe_dump(twin))
    baseline[rel] = ncu_counters(twin_path, rel + " (baseline twin)")
    print(rel, counters[rel], "baseline", baseline[rel])
doc = {
    "provenance": {
        "gpu": gpu.group(1).strip() if gpu else gpu_dir,
        "tool": "tmasim, `tmasim run FILE --backend device --trace none --ncu` (traces/scripts/record_layout_ncu.py)",
        "recorded": datetime.date.today().isoformat(),
        "note": "Counters of the whole kernel; baseline: the same declarations with the program one sync (the "
                "executor's own accesses), which tests/regress/test_ncu_layouts.cpp adds to the model's counts.",
    },
    "counters": counters,
    "baseline": baseline,
}
out = root / "traces/recorded" / gpu_dir / "ncu/layouts.json"
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text(json.dumps(doc, indent=2) + "\n")
print("wrote", out)
