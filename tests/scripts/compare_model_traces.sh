#!/bin/bash
# Runs the model over the whole catalog and compares every trace byte for byte with the
# traces another build wrote the same way, e.g. before a refactoring that must not change
# behaviour:
#
#   build/cli/tmasim run scenarios/catalog --backend model -q -o /tmp/before   # old build
#   tests/scripts/compare_model_traces.sh build/cli/tmasim /tmp/before          # new build
#
# Run it from the repository root (the traces' headers hold the scenario paths as given).
# Nothing is ignored: a trace holds no time stamp or commit, so equal behaviour is equal
# bytes. Traces that differ as files are compared again as trace_as_v3.py writes both (the
# current format, every image inline): a reference written before a format change (a
# sidecar, version 3's compact events) still holds the same run. The fresh traces keep every
# image's bytes (--memory-bytes all) for that. Prints one line per differing, missing or
# extra trace and a summary; exits 1 if any differ.
set -u
if [ $# -ne 2 ]; then
    echo "usage: $0 TMASIM REFERENCE_DIR" >&2
    exit 2
fi
tmasim=$1
reference=${2%/}
fresh=$(mktemp -d)
trap 'rm -rf "$fresh"' EXIT
# The batch exits non-zero when a scenario misses its `expect`; the traces still count.
"$tmasim" run scenarios/catalog --backend model -q --memory-bytes all -o "$fresh" > "$fresh.log" 2>&1
echo "batch run exit status: $?"
rm -f "$fresh.log"
same=0
differ=0
missing=0
while IFS= read -r -d '' ref; do
    rel=${ref#"$reference"/}
    if [ ! -f "$fresh/$rel" ]; then
        echo "missing: $rel"
        missing=$((missing + 1))
    elif cmp -s "$ref" "$fresh/$rel"; then
        same=$((same + 1))
    elif cmp -s <(python3 "$(dirname "$0")/trace_as_v3.py" "$ref") \
        <(python3 "$(dirname "$0")/trace_as_v3.py" "$fresh/$rel"); then
        # Written in an older format (FORMAT.md, versions 1 and 2): the same run.
        same=$((same + 1))
    else
        echo "differs: $rel"
        differ=$((differ + 1))
    fi
done < <(find "$reference" -name '*.jsonl' -print0 | sort -z)
extra=0
while IFS= read -r -d '' new; do
    rel=${new#"$fresh"/}
    if [ ! -f "$reference/$rel" ]; then
        echo "new: $rel"
        extra=$((extra + 1))
    fi
done < <(find "$fresh" -name '*.jsonl' -print0 | sort -z)
echo "$same traces identical, $differ differ, $missing missing, $extra new"
[ "$differ" -eq 0 ] && [ "$missing" -eq 0 ]
