#!/usr/bin/env bash
# Records named scenarios again, traced and untraced, as the split's folders were recorded
# (record_held_out.sh): for a scenario edited after its recording (its trace's scenario_hash no
# longer matches, so the regress test refuses it). Run on the device machine from the repo root
# with the binaries of .gpu/ (device/scripts/gpu_session.sh says how they travel).
#   usage: device/scripts/record_scenarios.sh scenarios/catalog/FOLDER/NAME.yaml...
#   env:   RUNS (default 3): each scenario is run RUNS times traced (default trace level) and RUNS
#          times untraced (--trace none), and the run whose kernel span is the median is kept
#          (ties: the earlier run), as for the held-out recordings.
# Output: $OUT/recorded/<gpu>/<folder>/<name>.jsonl (traced), <folder>_untraced/<name>.jsonl,
# $OUT/recorded/<gpu>/bench/rerecorded_repeats.txt (every run's span, the kept one named) and
# provenance.txt; the same lines on stdout. Scenarios expected to hang are recorded traced only.
set -uo pipefail
export TMASIM_ARCH_DIR=$PWD/model/arch LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
[ $# -gt 0 ] || { echo "usage: $0 scenarios/catalog/FOLDER/NAME.yaml..." >&2; exit 2; }
runs=${RUNS:-3}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-' | tr -cd 'A-Za-z0-9_-')
rec="${OUT:-/tmp/out}/recorded/$gpu"
work=/tmp/rerecord
rm -rf "$work"; mkdir -p "$rec/bench" "$work"
prov="commit $(cat .gpu/COMMIT 2>/dev/null || echo unknown) $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader) (clocks as found, never set)"
echo "$prov" | tee "$rec/bench/rerecorded_provenance.txt"
span() { grep -o '"kernel_span_ns":"[0-9]*"' "$1" 2>/dev/null | cut -d'"' -f4; }
# The index (1..runs) of the run with the median span among $work/<kind><i>/<name>.jsonl.
median_run() {
  for i in $(seq 1 "$runs"); do echo "$(span "$work/$1$i/$2.jsonl" || echo 0) $i"; done |
    sort -n -k1,1 -k2,2 | sed -n "$(( (runs + 1) / 2 ))p" | cut -d' ' -f2
}
repeats="$rec/bench/rerecorded_repeats.txt"
echo "# $prov; per scenario and level: kernel span (ns) of runs 1-$runs, the run kept" >"$repeats"
for s in "$@"; do
  folder=$(basename "$(dirname "$s")") name=$(basename "$s" .yaml)
  levels="traced untraced"
  grep -q "outcome: hang" "$s" && levels="traced"
  for level in $levels; do
    flags=""; dest="$rec/$folder"
    [ "$level" = untraced ] && { flags="--trace none"; dest="$rec/${folder}_untraced"; }
    mkdir -p "$dest"
    for i in $(seq 1 "$runs"); do
      mkdir -p "$work/$level$i"
      # shellcheck disable=SC2086
      .gpu/tmasim run "$s" --backend device $flags -o "$work/$level$i/$name.jsonl" -q >"$work/$level$i/$name.log" 2>&1
    done
    pick=$(median_run "$level" "$name")
    cp "$work/$level$pick/$name.jsonl" "$dest/$name.jsonl"
    # A trace with large images keeps them in its sidecar (traces/FORMAT.md): without it the trace
    # cannot be read (the blind set's first recording lost 17 scenarios' sidecars this way).
    [ -f "$work/$level$pick/$name.jsonl.mem" ] && cp "$work/$level$pick/$name.jsonl.mem" "$dest/$name.jsonl.mem"
    printf '%-48s %-9s %s  run %s kept\n' "$folder/$name" "$level" \
      "$(for i in $(seq 1 "$runs"); do printf '%s ' "$(span "$work/$level$i/$name.jsonl")"; done)" "$pick" | tee -a "$repeats"
  done
done
