#!/usr/bin/env bash
# Records what the timing checks need from one GPU (traces/recorded/SPLIT.yaml,
# traces/analysis/model_error_table.py): the held-out folders traced (default trace level) and
# untraced (--trace none, kernel spans only), each untraced scenario three times so run-to-run
# spread can be seen next to the model's error. Run on the device machine from the repo root,
# with the binaries of .gpu/ (device/scripts/gpu_session.sh says how they travel).
#   usage: device/scripts/record_held_out.sh [FOLDER...]   (default: the held-out folders but bench,
#          whose untraced runs come from `tmasim bench executor-overhead`'s scenarios)
# Output: $OUT/held_<gpu>.tar.gz with <gpu>/<folder>/ (traced), <gpu>/<folder>_untraced/,
# untraced_repeats.txt (scenario, kernel span of runs 1-3 in ns, the run kept: the one whose
# span is the median of the three) and provenance.txt.
# Scenarios expected to hang are left out of the untraced runs (a hang waits for the watchdog).
# UNTRACED_ONLY=1 skips the traced batch: the fitting folders' untraced runs, whose traced
# recordings the arch configs were fitted on and stay as they are. TRACED_ONLY=1 skips the
# untraced runs. TRACED_RUNS=N (default 1) runs the traced batch N times and keeps, per
# scenario, the run whose kernel span is the median of the N (a launch now and then starts
# hundreds of cycles late); traced_repeats.txt lists the N spans, the kept one first.
# WARM=N (default 0) runs every scenario with `--warm-launches N` (the recorded launch after N
# launches of the same kernel: code, constants and page mappings warm) and names the archive
# held_<gpu>_warm<N>.tar.gz (WARM=20 over every split folder, traced x3: 127-281 s of an H200 per
# third of the folders; on an H100 the whole set did not fit one 600 s device call, so split the
# folders over calls). Only a folder's own scenarios run, not those of its subfolders
# (calibrate/full_chip: full-chip runs, recorded untraced by gpu_session.sh).
set -uo pipefail
export TMASIM_ARCH_DIR=$PWD/model/arch LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
[ $# -gt 0 ] || set -- oob pipelines races warpspec
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-' | tr -cd 'A-Za-z0-9_-')
warm=${WARM:-0}
work=/tmp/held; r=$work/$gpu
rm -rf "$work"; mkdir -p "$r"
echo "commit $(cat .gpu/COMMIT 2>/dev/null || echo unknown) $(date -u '+%Y-%m-%d %H:%M UTC') $(nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader) warm launches $warm" | tee "$work/provenance.txt"
span() { grep -o '"kernel_span_ns":"[0-9]*"' "$1" 2>/dev/null | cut -d'"' -f4; }
for folder in "$@"; do
  mkdir -p "$r/$folder" "$r/${folder}_untraced" "$work/rep2/$folder" "$work/rep3/$folder"
  if [ -z "${UNTRACED_ONLY:-}" ]; then
    runs=${TRACED_RUNS:-1}
    for i in $(seq 1 "$runs"); do
      .gpu/tmasim run scenarios/catalog/"$folder"/*.yaml --backend device --warm-launches "$warm" -o "$work/traced$i/$folder" 2>&1 | tail -1
    done
    for t in "$work/traced1/$folder"/*.jsonl; do
      name=$(basename "$t")
      # The run with the median span (ties: the earlier run); spans listed in run order after it.
      pick=$(for i in $(seq 1 "$runs"); do echo "$(span "$work/traced$i/$folder/$name" || echo 0) $i"; done |
             sort -n -k1,1 -k2,2 | sed -n "$(( (runs + 1) / 2 ))p" | cut -d' ' -f2)
      cp "$work/traced$pick/$folder/$name" "$r/$folder/$name"
      printf '%-48s %s  run %s of: %s\n' "$folder/${name%.jsonl}" "$(span "$r/$folder/$name")" "$pick" \
        "$(for i in $(seq 1 "$runs"); do printf '%s ' "$(span "$work/traced$i/$folder/$name")"; done)" >>"$work/traced_repeats.txt"
    done
    rm -rf "$work"/traced[0-9]*
  fi
  [ -n "${TRACED_ONLY:-}" ] && continue
  # Each run of the folder is one batch (a process per scenario, forked: a third of the time
  # of one `tmasim run` per scenario).
  scens=$(for s in scenarios/catalog/"$folder"/*.yaml; do grep -q "outcome: hang" "$s" || echo "$s"; done)
  [ -n "$scens" ] || continue
  for i in 1 2 3; do
    # A single scenario is not a batch: its -o names the trace file.
    dest="$work/rep$i/$folder"
    [ "$(echo "$scens" | wc -l)" -eq 1 ] && { mkdir -p "$dest"; dest="$dest/$(basename "$scens" .yaml).jsonl"; }
    # shellcheck disable=SC2086
    .gpu/tmasim run $scens --backend device --trace none --warm-launches "$warm" -o "$dest" -q >/dev/null 2>&1
  done
  for s in $scens; do
    name=$(basename "$s" .yaml)
    # The run with the median span is the recorded trace (ties: the earlier run), as for the
    # traced batch: a launch now and then starts hundreds of cycles late.
    pick=$(for i in 1 2 3; do echo "$(span "$work/rep$i/$folder/$name.jsonl" || echo 0) $i"; done |
           sort -n -k1,1 -k2,2 | sed -n 2p | cut -d' ' -f2)
    cp "$work/rep$pick/$folder/$name.jsonl" "$r/${folder}_untraced/$name.jsonl" 2>/dev/null
    printf '%-48s %s %s %s  run %s kept\n' "$folder/$name" "$(span "$work/rep1/$folder/$name.jsonl")" \
      "$(span "$work/rep2/$folder/$name.jsonl")" "$(span "$work/rep3/$folder/$name.jsonl")" "$pick" >>"$work/untraced_repeats.txt"
  done
done
rm -rf "$work/rep1" "$work/rep2" "$work/rep3"
suffix=""; [ "$warm" -gt 0 ] && suffix="_warm$warm"
tar czf "${OUT:-/tmp}/held_$gpu$suffix.tar.gz" -C "$work" .
cat "$work/untraced_repeats.txt" "$work/traced_repeats.txt" 2>/dev/null
