#!/usr/bin/env bash
# The committed capture of tests/capture/capture_probe.cu (recorded on an H200 by
# device/scripts/capture_session.sh) in CI, without a GPU: (1) `tmasim capture --from` writes the
# same scenarios, PTX copies and references from its raw/ as the capture did (the conversion is
# deterministic), (2) each launch replays on the model with the GPU's final memory.
# Usage: recorded_replay_test.sh TMASIM SOURCE_DIR WORK_DIR
set -euo pipefail
tmasim=$1 recorded=$2/tests/capture/recorded work=$3
rm -rf "$work" && mkdir -p "$work/cap"
cp -r "$recorded/raw" "$work/cap/raw"
"$tmasim" capture --from "$work/cap" | tee "$work/from.txt"
grep -q "2 launches captured, 2 replayable" "$work/from.txt"
for f in capture_000_scale_tile.yaml capture_001_shift_by_struct.yaml ptx/0_capture_probe.sm_90a.ptx; do
  cmp "$recorded/$f" "$work/cap/$f"
done
"$tmasim" run "$recorded" --backend model --diff-against "$recorded/reference" | tee "$work/replay.txt"
grep -q "2 scenarios: 2 agree, 0 disagree" "$work/replay.txt"
[ "$(grep -c ' match ' "$work/replay.txt")" -eq 2 ]
# Control: the same replay with one input changed (A's first element) must differ from the GPU.
input=$(sed -n 's/.*g0: {type: i32, shape: \[64, 64\], init: {file: \(raw\/data\/[0-9a-f]*\.bin\)}}.*/\1/p' "$work/cap/capture_000_scale_tile.yaml")
printf '\x01' | dd of="$work/cap/$input" bs=1 seek=0 conv=notrunc status=none
set +e
"$tmasim" run "$work/cap/capture_000_scale_tile.yaml" --backend model --diff-against "$work/cap/reference" >"$work/control.txt" 2>&1
rc=$?
set -e
[ "$rc" -eq 1 ] && grep -q "DIFFER" "$work/control.txt"
echo "PASS: the committed capture converts the same and replays with the H200's bytes; a changed input differs"
