#!/usr/bin/env bash
# `tmasim capture` on the GPU host in one call (issue 36): run from the repo root with the
# binaries built on a development machine in .gpu/ (tmasim, libtmasim_capture.so, the Debian
# libraries in .gpu/lib; .gpu/capture_probe built from tests/capture/capture_probe.cu; optionally
# .gpu/cute_wgmma_tma, a CUTLASS CuTe tutorial built locally, never committed).
# 1. the probe alone, then captured, then its capture replayed on the model and on the device,
#    each diffed against the capture's references (the GPU's own output)
# 2. tests/capture/capture_probe_test.sh as ctest runs it (it builds the probe with nvcc here)
# 3. the CuTe tutorial, captured (its gemm_device launch) and replayed on the model
# What comes back: $OUT/probe_cap (committed as tests/capture/recorded), $OUT/cute_cap (not
# committed: CUTLASS's PTX), logs with times and sizes.
set -uo pipefail
export LD_LIBRARY_PATH="$PWD/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export TMASIM_CAPTURE_LIB="$PWD/.gpu/libtmasim_capture.so"
final="${OUT:-/tmp/out}"
out=/tmp/capture_session
rm -rf "$out" && mkdir -p "$out/logs"
T=.gpu/tmasim
echo "# commit: $(cat .gpu/COMMIT 2>/dev/null || echo unknown), date: $(date -u '+%Y-%m-%d %H:%M UTC')" | tee "$out/logs/provenance.txt"
echo "# nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader) (clocks as found, never set)" | tee -a "$out/logs/provenance.txt"
timed() {  # timed LOG CMD...: runs CMD, its output to LOG, and says how long it took
  local log=$1; shift
  local start=$(date +%s.%N)
  "$@" >"$log" 2>&1
  local rc=$?
  echo "rc=$rc $(awk -v a="$start" -v b="$(date +%s.%N)" "BEGIN{printf \"%.2f\", b-a}") s: $*"
  tail -4 "$log"
  return 0
}
echo "== 1. the probe"
timed "$out/logs/probe_alone.txt" .gpu/capture_probe
timed "$out/logs/probe_capture.txt" $T capture -o "$out/probe_cap" -- .gpu/capture_probe
echo "capture size: $(du -sk "$out/probe_cap" | cut -f1) KB"
cat "$out/probe_cap/raw/launches.jsonl" 2>/dev/null | cut -c1-300
timed "$out/logs/probe_replay_model.txt" $T run "$out/probe_cap" --backend model --diff-against "$out/probe_cap/reference"
timed "$out/logs/probe_replay_device.txt" $T run "$out/probe_cap" --backend device --diff-against "$out/probe_cap/reference"
echo "== 2. the ctest script"
timed "$out/logs/probe_test.txt" tests/capture/capture_probe_test.sh "$T" /usr/local/cuda/bin/nvcc /tmp/capture_probe_test
if [ -x .gpu/cute_wgmma_tma ]; then
  for size in "256 128 256" "512 256 1024"; do
    tag=cute_${size// /x}
    echo "== 3. CuTe tutorial wgmma_tma_sm90 ($size)"
    timed "$out/logs/${tag}_alone.txt" .gpu/cute_wgmma_tma $size
    timed "$out/logs/${tag}_capture.txt" $T capture -o "$out/$tag" --kernel gemm_device --limit 1 -- .gpu/cute_wgmma_tma $size
    echo "capture size: $(du -sk "$out/$tag" | cut -f1) KB"
    rm -rf "$out/$tag/raw/extracted"  # the whole tutorial's PTX: the kernel's module is copied to ptx/
    timed "$out/logs/${tag}_replay_model.txt" $T run "$out/$tag" --backend model --diff-against "$out/$tag/reference"
    timed "$out/logs/${tag}_replay_device.txt" $T run "$out/$tag" --backend device --diff-against "$out/$tag/reference"
  done
fi
for f in "$out"/*/raw/callbacks.txt "$out"/*/raw/missed.txt; do echo "-- $f"; cat "$f"; done
tar czf "$final/capture_session.tar.gz" -C "$out" .
ls -la "$final"
