#!/usr/bin/env bash
# A stand-in for compute-sanitizer in the CLI tests, where there is no GPU: it takes the
# options tmasim passes (--tool, --log-file, ...), writes a kept report as the tool's log
# ($TMASIM_FAKE_REPORT_DIR/hand_written.<folder>.<scenario>.<tool>.txt), and runs the scenario
# on the model instead of the device, its trace made to look like a device run that ended ok
# (backend device, no diagnostics), so the sanitizer's findings alone decide the outcome.
set -euo pipefail
tool="" log=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tool) tool=$2; shift 2 ;;
    --log-file) log=$2; shift 2 ;;
    --print-limit | --show-backtrace | --racecheck-report) shift 2 ;;
    *) break ;;
  esac
done
tmasim=$1 scenario=$3 output=""
shift 3
while [ $# -gt 0 ]; do
  case "$1" in
    --output) output=$2; shift 2 ;;
    *) shift ;;
  esac
done
folder=$(basename "$(dirname "$scenario")")
cp "$TMASIM_FAKE_REPORT_DIR/hand_written.$folder.$(basename "$scenario" .yaml).$tool.txt" "$log"
"$tmasim" run "$scenario" --backend model --quiet --output "$output.model" >/dev/null || true
grep -v '"type":"diagnostic"' "$output.model" |
  sed -e '1s/"backend":"model"/"backend":"device"/' -e 's/^{"type":"outcome","outcome":"[a-z]*"}$/{"type":"outcome","outcome":"ok"}/' \
    >"$output"
rm -f "$output.model"
