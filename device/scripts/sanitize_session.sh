#!/usr/bin/env bash
# The catalog under compute-sanitizer, in one call on the device machine, from the repo root,
# with the binaries built elsewhere in .gpu/ (tmasim and its Debian libraries in .gpu/lib,
# .gpu/COMMIT naming the commit; as for device/scripts/gpu_session.sh).
#   usage: device/scripts/sanitize_session.sh [TOOL...]   (default: racecheck synccheck)
#   env:   JOBS (default 8) processes at a time; JOB_TIMEOUT (default 170) seconds per run
#
# 1. the model over the catalog (8 processes): the reference traces
# 2. every scenario under each TOOL, one `tmasim run FILE --backend device --sanitize TOOL
#    --diff-against MODEL` per scenario and tool, JOBS at a time (the host has 16 cores and
#    one GPU; each run is mostly the tool's start and its instrumentation)
# 3. per tool, recorded/<gpu>/sanitizer/<tool>.txt: provenance, one block per scenario (its
#    batch line, its why, and tmasim diff's hazard lines: agree / model only / SANITIZER
#    ONLY, and the two kinds of sanitizer finding that are no model gap: not a PTX rule, not
#    reached by the model), then "N scenarios: ..." and last "agree: <n>, model-only: <n>,
#    sanitizer-only: <n>, not a PTX rule: <n>, not reached by the model: <n>"
# 4. a few raw reports under recorded/<gpu>/sanitizer/reports/ (what
#    tests/device/test_sanitizer_report.cpp maps to ops; those the comparison once got wrong,
#    so that it can be checked again offline), and every raw report in work/
# What comes back: $OUT/sanitize.tar.gz (recorded/ and work/: traces, reports, logs, diffs),
# $OUT/sanitize.log (this output), and each $OUT/<tool>.txt (also in the archive).
set -uo pipefail
export LD_LIBRARY_PATH="$PWD/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
out="${OUT:-/tmp/out}"
jobs="${JOBS:-8}"
job_timeout="${JOB_TIMEOUT:-170}"
tmasim="$PWD/.gpu/tmasim"
self="$PWD/device/scripts/sanitize_session.sh"

# One model run, or one scenario under one tool: xargs calls the script again for each.
if [ "${1:-}" = "--one-model" ]; then
  work=$2 file=$3
  rel=${file#scenarios/catalog/}
  mkdir -p "$work/model/$(dirname "$rel")"
  "$tmasim" run "$file" --backend model -q -o "$work/model/${rel%.yaml}.jsonl" >/dev/null 2>&1
  exit 0
fi
if [ "${1:-}" = "--one" ]; then
  work=$2 tool=$3 file=$4
  rel=${file#scenarios/catalog/}
  dir=$(dirname "$rel")
  log="$work/$tool/logs/${rel%.yaml}.txt"
  mkdir -p "$(dirname "$log")" "$work/$tool/traces/$dir"
  timeout -k 5 "$job_timeout" "$tmasim" run "$file" --backend device --sanitize "$tool" \
    -o "$work/$tool/traces/$dir" --diff-against "$work/model/$dir" --cache-dir "$work/cache" >"$log" 2>&1
  echo "exit $?" >>"$log"
  exit 0
fi

mkdir -p "$out"
[ $# -gt 0 ] || set -- racecheck synccheck

session() {
  local gpu rec work started
  started=$(date +%s)
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-' | tr -cd 'A-Za-z0-9_-')
  rec="$out/recorded/$gpu/sanitizer"; work="$out/work"
  mkdir -p "$rec" "$work/model" "$work/cache"
  find scenarios/catalog -name '*.yaml' -not -path '*/invalid/*' | sort >"$work/scenarios.txt"
  echo "== $(wc -l <"$work/scenarios.txt") scenarios; tools: $*; $jobs processes at a time"
  compute-sanitizer --version 2>&1 | tail -1 | tee "$work/compute-sanitizer-version.txt"

  echo "== model traces"
  xargs -P "$jobs" -L 1 bash "$self" --one-model "$work" <"$work/scenarios.txt"
  echo "   $(find "$work/model" -name '*.jsonl' | wc -l) model traces ($(($(date +%s) - started)) s)"

  echo "== sanitized device runs"
  for tool in "$@"; do sed "s|^|$tool |" "$work/scenarios.txt"; done | xargs -P "$jobs" -L 1 bash "$self" --one "$work"
  echo "   done ($(($(date +%s) - started)) s)"

  for tool in "$@"; do
    local table="$rec/$tool.txt" agree=0 model_only=0 sanitizer_only=0 not_ptx=0 not_reached=0 n=0 pass=0 fail=0 unchecked=0 skipped=0 errors=0
    {
      echo "# tmasim run <scenario> --backend device --sanitize $tool --diff-against <model trace>, per scenario"
      echo "# (device/scripts/sanitize_session.sh: $jobs processes at a time, $job_timeout s each at most)"
      echo "# commit: $(cat .gpu/COMMIT 2>/dev/null || echo unknown), date: $(date -u '+%Y-%m-%d %H:%M UTC')"
      echo "# nvidia-smi: $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader)"
      echo "# compute-sanitizer: $(cat "$work/compute-sanitizer-version.txt")"
      echo "# per scenario: the batch line (outcome, result, wall), its why, and tmasim diff's hazard lines"
    } >"$table"
    while read -r file; do
      local rel=${file#scenarios/catalog/}
      local log="$work/$tool/logs/${rel%.yaml}.txt"
      local trace="$work/$tool/traces/${rel%.yaml}.jsonl" model="$work/model/${rel%.yaml}.jsonl"
      n=$((n + 1))
      local line why counts
      line=$(grep -m1 '^\[1/1\]' "$log" 2>/dev/null | sed 's/^\[1\/1\] [^:]*: //')
      why=$(grep -m1 -A1 '^\[1/1\]' "$log" 2>/dev/null | sed -n '2s/^        //p')
      [ -n "$line" ] || line="no result: $(tail -2 "$log" 2>/dev/null | tr '\n' ' ')"
      case "$line" in
        *" PASS "*) pass=$((pass + 1)) ;;
        *" FAIL "*) fail=$((fail + 1)) ;;
        *"not checked"*) unchecked=$((unchecked + 1)) ;;
        *skipped*) skipped=$((skipped + 1)) ;;
        *) errors=$((errors + 1)) ;;
      esac
      counts=$(grep -m1 '^agree: ' "$log" 2>/dev/null)
      if [ -n "$counts" ]; then
        agree=$((agree + $(echo "$counts" | sed 's/^agree: \([0-9]*\),.*/\1/')))
        model_only=$((model_only + $(echo "$counts" | sed 's/.*model-only: \([0-9]*\),.*/\1/')))
        sanitizer_only=$((sanitizer_only + $(echo "$counts" | sed 's/.*sanitizer-only: \([0-9]*\).*/\1/')))
        case "$counts" in *"not a PTX rule: "*)
          not_ptx=$((not_ptx + $(echo "$counts" | sed 's/.*not a PTX rule: \([0-9]*\).*/\1/')))
          not_reached=$((not_reached + $(echo "$counts" | sed 's/.*not reached by the model: \([0-9]*\).*/\1/'))) ;;
        esac
      fi
      echo "$rel: $line"
      [ -z "$why" ] || echo "    $why"
      if [ -f "$trace" ] && [ -f "$model" ]; then
        mkdir -p "$(dirname "$work/$tool/diffs/$rel")"
        "$tmasim" diff "$model" "$trace" >"$work/$tool/diffs/${rel%.yaml}.diff.txt" 2>&1
        grep -E '^  (agree, both found it|model only|SANITIZER ONLY|sanitizer only, not)' "$work/$tool/diffs/${rel%.yaml}.diff.txt" |
          sed 's/^/  /'
      fi
    done <"$work/scenarios.txt" >>"$table"
    {
      echo "$n scenarios: $pass PASS, $unchecked not checked, $fail FAIL, $skipped skipped, $errors error or no result"
      echo "agree: $agree, model-only: $model_only, sanitizer-only: $sanitizer_only, not a PTX rule: $not_ptx, not reached by the model: $not_reached"
    } >>"$table"
    cp "$table" "$out/$tool.txt"  # back even if the archive step runs out of time
    echo "== $tool: recorded/$gpu/sanitizer/$tool.txt"
    tail -2 "$table"
  done

  # A few raw reports for the repository (each up to ~300 records): two hazards, a cp.async
  # write after write, a warp-specialized kernel's missing wait, a correct twin, the cluster
  # races and the one-thread race the H200's run of 2026-11-24 left unmatched, kernels (their
  # own PTX's lines: Triton's one-lane tensormap.replace before the warp's copy, a cluster
  # kernel's one-thread race, a DSMEM race); and synccheck's
  # "Missing wait" reports (issue 38), with their traces, so the comparison can be re-run
  # offline: tmasim diff <model trace> reports/<rel>.synccheck.jsonl.
  for rel in races/shared_raw_no_barrier races/shared_war_no_barrier races/cp_async_waw_other_thread \
    races/shared_raw_synced warpspec/no_full_wait cluster/dsmem_no_sync hazards/compute_dsmem_unsynced \
    teach/13b_inval_reinit kernels/triton/tma_desc_scale kernels/tma_multicast kernels/dsmem_no_cluster_sync; do
    [ -f "$work/racecheck/traces/$rel.racecheck.txt" ] || continue
    mkdir -p "$rec/reports/$(dirname "$rel")"
    cp "$work/racecheck/traces/$rel.racecheck.txt" "$rec/reports/$rel.racecheck.txt"
  done
  for rel in guide/producer_consumer_warp_specialized teach/15_noinc teach/15b_noinc_counted \
    teach/12_unobserved_phase warpspec/no_empty_wait warpspec/ring_named_barriers; do
    [ -f "$work/synccheck/traces/$rel.synccheck.txt" ] || continue
    mkdir -p "$rec/reports/$(dirname "$rel")"
    cp "$work/synccheck/traces/$rel.synccheck.txt" "$rec/reports/$rel.synccheck.txt"
    cp "$work/synccheck/traces/$rel.jsonl" "$rec/reports/$rel.synccheck.jsonl" 2>/dev/null
  done
  tar -C "$out" -czf "$out/sanitize.tar.gz" --exclude work/cache --exclude work/model recorded work
  rm -rf "$out/recorded" "$out/work"
  echo "== $(($(date +%s) - started)) s in all; archive: sanitize.tar.gz"
}

session "$@" 2>&1 | tee "$out/sanitize.log"
exit "${PIPESTATUS[0]}"
