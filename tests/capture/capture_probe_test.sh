#!/usr/bin/env bash
# Captures tests/capture/capture_probe.cu on a GPU and replays each launch on the model, diffing
# the model's memory against the GPU's (the capture's references). Exit 77 (ctest: skipped) with
# the reason where there is no GPU or no capture library.
# Usage: capture_probe_test.sh TMASIM NVCC OUT_DIR
set -euo pipefail
tmasim=$1 nvcc=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
if ! nvidia-smi -L >/dev/null 2>&1; then echo "SKIP: no GPU here (nvidia-smi -L failed)"; exit 77; fi
lib=$(dirname "$tmasim")/../capture/injection/libtmasim_capture.so
if [ ! -f "$lib" ] && [ -z "${TMASIM_CAPTURE_LIB:-}" ]; then echo "SKIP: no libtmasim_capture.so (no CUPTI at build)"; exit 77; fi
rm -rf "$out" && mkdir -p "$out"
"$nvcc" -std=c++17 -arch=sm_90a -lineinfo -o "$out/capture_probe" "$here/capture_probe.cu"
"$out/capture_probe"   # the program alone: "capture_probe: ok"
start=$(date +%s.%N)
"$tmasim" capture -o "$out/cap" -- "$out/capture_probe" | tee "$out/capture.txt"
echo "capture took $(awk -v a="$start" -v b="$(date +%s.%N)" "BEGIN{printf \"%.2f\", b-a}") s; $(du -sk "$out/cap" | cut -f1) KB"
grep -q "2 launches captured, 2 replayable" "$out/capture.txt"
start=$(date +%s.%N)
"$tmasim" run "$out/cap" --backend model --diff-against "$out/cap/reference" | tee "$out/replay.txt"
echo "replay took $(awk -v a="$start" -v b="$(date +%s.%N)" "BEGIN{printf \"%.2f\", b-a}") s"
grep -q "2 scenarios: 2 agree" "$out/replay.txt"
[ "$(grep -c ' match' "$out/replay.txt")" -ge 2 ]
echo "PASS: both launches replay on the model with the GPU's bytes"
