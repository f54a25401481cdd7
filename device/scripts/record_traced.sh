#!/usr/bin/env bash
# Records catalog scenarios traced on this GPU, each RUNS times (default 1) after one warm
# launch: the fitting folders keep their one run, held-out ones the median-span run of three
# (traces/recorded/<gpu>/bench/held_out_traced_repeats.txt). For re-recording a few scenarios
# after an executor change (as at 66b54a5: the kernels whose clock words live in global memory).
#   usage (device machine, repo root, binaries in .gpu/): [RUNS=3] device/scripts/record_traced.sh FOLDER/NAME...
# Output: $OUT/traced_<gpu>.tar.gz with <gpu>/provenance.txt and <gpu>/runs/<folder>__<name>_<i>.jsonl.
set -uo pipefail
export TMASIM_ARCH_DIR=$PWD/model/arch LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-' | tr -cd 'A-Za-z0-9_-')
runs=${RUNS:-1}
w=/tmp/traced/$gpu; rm -rf /tmp/traced; mkdir -p "$w/runs"
echo "commit $(cat .gpu/COMMIT) $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)" | tee "$w/provenance.txt"
for s in "$@"; do
  for i in $(seq "$runs"); do
    .gpu/tmasim run "scenarios/catalog/$s.yaml" --backend device -o "$w/runs/${s//\//__}_$i.jsonl" 2>&1 | tail -1
  done
done
tar czf "$OUT/traced_$gpu.tar.gz" -C /tmp/traced .
ls -la "$OUT"
