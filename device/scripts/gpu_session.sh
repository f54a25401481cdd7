#!/usr/bin/env bash
# One full GPU session in one call: run on the device machine from the repo root, with the
# binaries built on a development machine carried in .gpu/ (tmasim, test_device, and the
# Debian shared libraries they need in .gpu/lib).
#   usage: device/scripts/gpu_session.sh [SCENARIO_DIR_OR_FILE...]   (default: scenarios/catalog)
#   (.gpu/COMMIT, written where the binaries were built, names the commit for the provenance;
#   BENCH_ARGS, e.g. --experiments, goes to the benchmark; SKIP_BENCH=1, SKIP_TESTS=1 and
#   SKIP_FULL_CHIP=1 leave out steps 0, 1 and the full-chip runs, for a catalog recorded in
#   two calls of the device tool's 10 minutes)
#
# 0. the executor-overhead benchmark (`tmasim bench executor-overhead`), with its provenance,
#    into recorded/<gpu>/bench/executor_overhead.txt
# 1. the device tests, [gpu] ones included
# 2. the model in batch mode over the scenarios: model traces
# 3. the device in batch mode over the same scenarios, each diffed against its model trace:
#    device traces under recorded/<gpu>/<relative path>.jsonl
# 4. one `tmasim diff` per scenario (model vs device), the full report in diffs/
# 5. a device run right after the batch (which has hangs and faults in it) still works
# What comes back stays within the device tool's 8 files: $OUT/session.tar.gz (recorded/,
# model/, diffs/, logs/), $OUT/session.log (this output) and $OUT/executor_overhead.txt (the
# benchmark, also in the archive). The summary table is last.
set -uo pipefail
export LD_LIBRARY_PATH="$PWD/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
out="${OUT:-/tmp/out}"
mkdir -p "$out"
[ $# -gt 0 ] || set -- scenarios/catalog

session() {
  local gpu rec work bench_table="(benchmark skipped: SKIP_BENCH)"
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-' | tr -cd 'A-Za-z0-9_-')
  rec="$out/recorded/$gpu"; work="$out/work"
  mkdir -p "$rec" "$work/model" "$work/diffs" "$work/logs"
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv | tee "$work/logs/nvidia-smi.txt"

  mkdir -p "$rec/bench"
  if [ -z "${SKIP_BENCH:-}" ]; then
  echo "== executor-overhead benchmark"
  {
    echo "# tmasim bench executor-overhead"
    echo "# commit: $(cat .gpu/COMMIT 2>/dev/null || echo unknown), date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    echo "# nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader)"
    echo "# (name, driver, SM clock now, SM clock max, memory clock, power, temperature; clocks as found, never set)"
    .gpu/tmasim bench executor-overhead ${BENCH_ARGS:-} 2>&1
    echo "# exit status $?"
  } >"$rec/bench/executor_overhead.txt"
  cp "$rec/bench/executor_overhead.txt" "$out/executor_overhead.txt"  # back even if a later step runs out of time
  bench_table=$(sed -n '/^case  /,$p' "$rec/bench/executor_overhead.txt")
  echo "$bench_table"
  fi
  if [ -z "${SKIP_TESTS:-}" ]; then
  echo "== device tests ([gpu] included)"
  .gpu/test_device --use-colour no >"$work/logs/test_device.txt" 2>&1
  grep -B4 -A14 "FAILED" "$work/logs/test_device.txt" | head -80
  tail -4 "$work/logs/test_device.txt"
  fi

  echo "== model batch: $*"
  .gpu/tmasim run "$@" --backend model -o "$work/model" >"$work/logs/model_batch.txt" 2>&1
  model_rc=$?
  tail -1 "$work/logs/model_batch.txt"

  echo "== device batch: $* (each scenario in its own process; diffed against the model)"
  .gpu/tmasim run "$@" --backend device -o "$rec" --diff-against "$work/model" \
    >"$work/logs/device_batch.txt" 2>&1
  device_rc=$?
  # The progress lines (outcome, verdict, why) now; the table comes last.
  sed -n '/^scenario /q;p' "$work/logs/device_batch.txt"

  echo "== per-scenario diffs (model A vs device B) in diffs/"
  local n_diffs=0 n_functional=0
  while IFS= read -r -d '' model_trace; do
    local rel="${model_trace#"$work/model/"}"
    local dev_trace="$rec/$rel"
    [ -f "$dev_trace" ] || continue
    local report="$work/diffs/${rel%.jsonl}.diff.txt"
    mkdir -p "$(dirname "$report")"
    .gpu/tmasim diff "$model_trace" "$dev_trace" >"$report" 2>&1 && n_functional=$((n_functional + 1))
    n_diffs=$((n_diffs + 1))
  done < <(find "$work/model" -name '*.jsonl' -print0 | sort -z)
  echo "$n_diffs diffs, $n_functional functional matches (hazard scenarios may differ by design)"

  # Full-chip scenarios (scenarios/catalog/<folder>/full_chip: the layouts tutorial's memcpy
  # trends, traces/analysis/layout_trends.py; the calibration's global-access granularity),
  # untraced. Their traces hold memory images of tens of MB: what comes back is each trace's
  # header and memory sizes (the kernel times and the bytes moved), as
  # recorded/<gpu>/<folder>_untraced/<name>.summary.json.
  local full folder
  for full in scenarios/catalog/*/full_chip; do
    [ -n "${SKIP_FULL_CHIP:-}" ] && break
    [ -d "$full" ] || continue
    folder=$(basename "$(dirname "$full")")
    echo "== $folder at full chip, untraced"
    .gpu/tmasim run "$full" --backend device --trace none -o "$work/full_chip" \
      >"$work/logs/${folder}_full_chip.txt" 2>&1
    tail -1 "$work/logs/${folder}_full_chip.txt"
    mkdir -p "$rec/${folder}_untraced"
    python3 - "$work/full_chip" "$rec/${folder}_untraced" <<'PY'
import json, pathlib, sys
for trace in sorted(pathlib.Path(sys.argv[1]).glob("*.jsonl")):
    keep = []
    for line in open(trace):
        d = json.loads(line)
        if d.get("type") == "header":
            keep.append(d)
        elif d.get("type") == "memory":
            keep.append({k: d[k] for k in ("type", "space", "name", "size", "fnv1a64") if k in d})
    with open(pathlib.Path(sys.argv[2]) / (trace.stem + ".summary.json"), "w") as out:
        out.writelines(json.dumps(d) + "\n" for d in keep)
PY
    rm -rf "$work/full_chip"
  done

  echo "== a device run right after the batch still works"
  local after=scenarios/catalog/guide/bulk_add_one_1d.yaml
  .gpu/tmasim run "$after" --backend device -o "$work/logs/after_batch.jsonl" >"$work/logs/after_batch.txt" 2>&1
  after_rc=$?
  tail -3 "$work/logs/after_batch.txt"

  # Keep the table and the model's last line: the logs go into the archive now.
  local table model_line
  table=$(sed -n '/^scenario /,$p' "$work/logs/device_batch.txt")
  model_line=$(tail -1 "$work/logs/model_batch.txt")
  # Model traces stay behind: they can be made anywhere, and large tensors make them big.
  # Traces whose memory image passes 4 MB (the layouts' tensors of 8 MB, the full-chip ones)
  # stay here: their table rows and diffs come back, the repository keeps small traces.
  find "$rec" -name '*.jsonl.mem' -size +4M | sort | while IFS= read -r m; do
    echo "left behind (memory image of $(du -h "$m" | cut -f1)): ${m#"$rec/"}" | tee -a "$work/logs/left_behind.txt"
    rm -f "$m" "${m%.mem}"
  done
  tar -C "$out" -czf "$out/session.tar.gz" --exclude work/model recorded work
  rm -rf "$out/recorded" "$out/work"

  echo
  echo "== model batch: $model_line (rc=$model_rc)"
  echo "== after-batch device rerun rc=$after_rc"
  echo "== benchmark ($gpu): recorded/$gpu/bench/executor_overhead.txt"
  echo "$bench_table"
  echo "== summary ($gpu): device batch, each scenario diffed against the model (rc=$device_rc)"
  echo "$table"
  return "$device_rc"
}

session "$@" 2>&1 | tee "$out/session.log"
exit "${PIPESTATUS[0]}"
