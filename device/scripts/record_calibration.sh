#!/usr/bin/env bash
# Records calibration scenarios (scenarios/catalog/calibrate/<name>.yaml) on this GPU: traced four
# times and untraced three times, for the runs files under traces/recorded/<gpu>/bench/.
#   usage (device machine, repo root, binaries in .gpu/): device/scripts/record_calibration.sh NAME...
# Output: $OUT/cal_<gpu>.tar.gz with <gpu>/calibrate/, <gpu>/calibrate_untraced/, <gpu>/runs/.
set -uo pipefail
export TMASIM_ARCH_DIR=$PWD/model/arch LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-' | tr -cd 'A-Za-z0-9_-')
w=/tmp/cal/$gpu; rm -rf /tmp/cal; mkdir -p $w/calibrate $w/calibrate_untraced $w/runs
echo "commit $(cat .gpu/COMMIT) $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)" | tee $w/provenance.txt
for s in "$@"; do
  f=scenarios/catalog/calibrate/$s.yaml
  .gpu/tmasim run $f --backend device -o $w/calibrate/$s.jsonl | tail -1
  for i in 2 3 4; do .gpu/tmasim run $f --backend device -q -o $w/runs/${s}_$i.jsonl; done
  .gpu/tmasim run $f --backend device --trace none -q -o $w/calibrate_untraced/$s.jsonl
  for i in 2 3; do .gpu/tmasim run $f --backend device --trace none -q -o $w/runs/${s}_untraced_$i.jsonl; done
done
tar czf $OUT/cal_$gpu.tar.gz -C /tmp/cal .
ls -la $w/calibrate $w/runs | head -30
