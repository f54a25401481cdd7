#!/usr/bin/env bash
# One full GPU session: run on the device machine from the repo root, with the binaries
# built on a development machine carried in .gpu/ (tmasim, test_device, and the Debian
# shared libraries they need in .gpu/lib). Writes traces and logs under $OUT and prints a
# summary table last.
#   usage: device/scripts/gpu_session.sh SCENARIO.yaml...
set -uo pipefail
export LD_LIBRARY_PATH="$PWD/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
out="${OUT:-/tmp/out}"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-' | tr -cd 'A-Za-z0-9_-')
rec="$out/recorded/$gpu"; work="$out/work"
mkdir -p "$rec" "$work"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$work/nvidia-smi.txt"

echo "== device tests ([gpu] included)"
.gpu/test_device --use-colour no >"$work/test_device.txt" 2>&1
grep -B4 -A14 "FAILED" "$work/test_device.txt" | head -80
tail -4 "$work/test_device.txt"

rows=()
for scenario in "$@"; do
  name=$(basename "$scenario" .yaml)
  start=$(date +%s.%N)
  .gpu/tmasim run "$scenario" --backend device -o "$rec/$name.jsonl" >"$work/$name.device.txt" 2>&1
  dev_rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" "BEGIN{print b-a}")
  .gpu/tmasim run "$scenario" --backend model -o "$work/$name.model.jsonl" >"$work/$name.model.txt" 2>&1
  .gpu/tmasim diff "$work/$name.model.jsonl" "$rec/$name.jsonl" >"$work/$name.diff.txt" 2>&1
  diff_rc=$?
  outcome=$(tail -1 "$rec/$name.jsonl" 2>/dev/null | sed -n 's/.*"outcome":"\([a-z]*\)".*/\1/p')
  timing=$(grep -m1 "^timing:" "$work/$name.diff.txt" | sed 's/^timing: //')
  cat "$work/$name.device.txt" "$work/$name.diff.txt"
  rows+=("$(printf '%-34s %-7s run=%-2s diff=%-2s %6.2fs  %s' "$name" "${outcome:-none}" "$dev_rc" "$diff_rc" "$secs" "$timing")")
done

echo "== a run right after the hang still works"
.gpu/tmasim run "$1" --backend device -o "$work/after_hang.jsonl" >"$work/after_hang.txt" 2>&1
after_rc=$?
tail -3 "$work/after_hang.txt"

tar -C "$out" -czf "$out/traces.tar.gz" recorded work
rm -rf "$out/recorded" "$out/work"
echo
echo "== summary ($gpu)"
printf '%-34s %-7s %-7s %-7s %-7s  %s\n' scenario outcome "run rc" "diff rc" wall "timing (model vs device)"
for r in "${rows[@]}"; do echo "$r"; done
echo "after-hang rerun rc=$after_rc"
