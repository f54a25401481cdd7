#!/usr/bin/env bash
# The kernel scenarios' GPU session in one call (issues 35, 36): run on the device machine from
# the repo root with the binaries built on a development machine carried in .gpu/ (tmasim,
# test_device and the Debian shared libraries they need in .gpu/lib; .gpu/COMMIT names the
# commit they were built from).
#   usage: device/scripts/kernel_session.sh   (SKIP_BENCH=1, SKIP_TESTS=1 leave steps 3, 4 out)
# 1. the model in batch mode over scenarios/catalog/kernels (NVRTC fills the PTX cache here)
# 2. the device in batch mode over the same scenarios, each diffed against its model trace:
#    device traces under recorded/<gpu>/kernels/<relative path>.jsonl, and one `tmasim diff`
#    per scenario (model A vs device B) in diffs/
# 3. the device tests of the kernel path ([kernel_run], [kernel_params], [kernel_timing],
#    [kernel_bench], [ptx_timing], [kernel_catalog]: each correct kernel's GPU output against
#    its host reference)
# 4. `tmasim bench kernel-overhead` (the PTX timing rewrite against the untouched kernel, same
#    run) into recorded/<gpu>/bench/kernel_overhead.txt
# What comes back: $OUT/kernel_session.tar.gz (recorded/, diffs/, logs/) and this output.
set -uo pipefail
export LD_LIBRARY_PATH="$PWD/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
out="${OUT:-/tmp/out}"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-' | tr -cd 'A-Za-z0-9_-')
rec="$out/recorded/$gpu"
work="$out/work"
mkdir -p "$rec/kernels" "$rec/bench" "$work/model" "$work/diffs" "$work/logs"
provenance() {
  echo "# commit: $(cat .gpu/COMMIT 2>/dev/null || echo unknown), date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader)"
  echo "# (name, driver, SM clock now, SM clock max, memory clock, power, temperature; clocks as found, never set)"
}
provenance | tee "$work/logs/provenance.txt"

echo "== model batch: scenarios/catalog/kernels"
.gpu/tmasim run scenarios/catalog/kernels --backend model -o "$work/model" >"$work/logs/model_batch.txt" 2>&1
echo "model batch rc=$?: $(tail -1 "$work/logs/model_batch.txt")"

echo "== device batch: scenarios/catalog/kernels, each diffed against the model"
.gpu/tmasim run scenarios/catalog/kernels --backend device -o "$rec/kernels" --diff-against "$work/model" \
  >"$work/logs/device_batch.txt" 2>&1
device_rc=$?
n_diffs=0 n_match=0
while IFS= read -r -d '' model_trace; do
  rel="${model_trace#"$work/model/"}"
  [ -f "$rec/kernels/$rel" ] || continue
  report="$work/diffs/${rel%.jsonl}.diff.txt"
  mkdir -p "$(dirname "$report")"
  .gpu/tmasim diff "$model_trace" "$rec/kernels/$rel" >"$report" 2>&1 && n_match=$((n_match + 1))
  n_diffs=$((n_diffs + 1))
done < <(find "$work/model" -name '*.jsonl' -print0 | sort -z)
echo "$n_diffs diffs, $n_match without a functional difference (twins may differ by design: the GPU does not see hazards)"

if [ -z "${SKIP_TESTS:-}" ]; then
  echo "== device tests of the kernel path"
  TMASIM_BINARY="$PWD/.gpu/tmasim" .gpu/test_device --use-colour no "[kernel_run],[kernel_params],[kernel_timing],[kernel_bench],[ptx_timing],[kernel_catalog]" \
    >"$work/logs/test_device_kernels.txt" 2>&1
  grep -B4 -A14 "FAILED" "$work/logs/test_device_kernels.txt" | head -60
  tail -3 "$work/logs/test_device_kernels.txt"
fi

if [ -z "${SKIP_BENCH:-}" ]; then
  echo "== kernel-overhead benchmark"
  { echo "# tmasim bench kernel-overhead"; provenance
    timeout 240 .gpu/tmasim bench kernel-overhead 2>&1; echo "# exit status $?"; } >"$rec/bench/kernel_overhead.txt"
  cat "$rec/bench/kernel_overhead.txt"
fi

echo "== device batch (rc=$device_rc)"
sed -n '/^scenario /,$p' "$work/logs/device_batch.txt"
tar -C "$out" -czf "$out/kernel_session.tar.gz" recorded work/diffs work/logs
rm -rf "$out/recorded" "$out/work"
