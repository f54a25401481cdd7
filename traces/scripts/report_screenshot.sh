#!/usr/bin/env bash
# The HTML report checked in a real browser: runs the TMA prefetch pipeline on the model,
# writes its report and has headless Chromium (Debian's `chromium`) render it to a PNG.
# Exits 77 (ctest: skipped) when /usr/bin/chromium is not installed: CI has none; install
# it with `apt-get install -y chromium` to run the check. Look at the PNG afterwards: it is
# what docs/img/report.png was made from.
#
# usage: report_screenshot.sh TMASIM OUT_DIR      (run from the repository root)
set -euo pipefail
tmasim=$1
out=$2
chromium=/usr/bin/chromium
if [[ ! -x $chromium ]]; then
    echo "SKIPPED report screenshot: $chromium is not installed (apt-get install -y chromium)"
    exit 77
fi
mkdir -p "$out"
"$tmasim" run scenarios/catalog/guide/tma_prefetch_pipeline.yaml --backend model --arch h200 -q -o "$out/pipeline.jsonl"
"$tmasim" report "$out/pipeline.jsonl" -o "$out/report.html"
rm -f "$out/report.png"
# --no-sandbox: CI and containers run as root, where Chromium's sandbox refuses to start.
timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --screenshot="$out/report.png" --window-size=1400,1000 "file://$(realpath "$out/report.html")" 2>/dev/null
[[ -s $out/report.png ]] || { echo "FAIL: chromium wrote no screenshot"; exit 1; }
# PNG: width and height are big-endian at bytes 16..23.
read -r w0 w1 w2 w3 h0 h1 h2 h3 < <(od -An -tu1 -j16 -N8 "$out/report.png")
width=$(( (w0 << 24) | (w1 << 16) | (w2 << 8) | w3 ))
height=$(( (h0 << 24) | (h1 << 16) | (h2 << 8) | h3 ))
size=$(stat -c %s "$out/report.png")
echo "screenshot $out/report.png: ${width}x${height}, $size bytes"
[[ $width == 1400 && $height == 1000 ]] || { echo "FAIL: expected 1400x1000"; exit 1; }
# A blank page compresses to a few kB; the report's timeline and text make it far larger.
(( size > 40000 )) || { echo "FAIL: the screenshot looks empty ($size bytes)"; exit 1; }
