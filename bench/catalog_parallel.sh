#!/bin/bash
# `tmasim run DIR -j N` against `-j 1` on the whole catalog (issue 14): runs them in turn
# (1, N, 1, N, ...) so a drift of the machine's speed hits both, prints each run's wall and
# CPU seconds, the median wall ratio, and whether every run printed the same table (the wall
# column masked). A benchmark, not a test: it asserts nothing. From the repository root:
#   bench/catalog_parallel.sh [TMASIM] [N] [ROUNDS] > bench/catalog_parallel.txt
set -eu
tmasim=${1:-build/cli/tmasim}
jobs=${2:-$(nproc)}
rounds=${3:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "# tmasim run scenarios/catalog --backend model: -j 1 against -j $jobs (bench/catalog_parallel.sh)"
echo "# commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)'), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-4s %10s %10s\n' round jobs wall_s cpu_s
declare -a wall1 wallN
for round in $(seq 1 "$rounds"); do
    for j in 1 "$jobs"; do
        /usr/bin/time -f '%e %U %S' -o "$work/time" "$tmasim" run scenarios/catalog --backend model -j "$j" -q \
            > "$work/table_${j}_$round.txt" || true
        read -r wall user sys < "$work/time"
        printf '%-6s %-4s %10.2f %10.2f\n' "$round" "$j" "$wall" "$(echo "$user + $sys" | bc -l)"
        if [ "$j" = 1 ]; then wall1+=("$wall"); else wallN+=("$wall"); fi
        # The table's last column is each scenario's own wall time: mask it before comparing.
        sed -E 's/[0-9.]+s( |$)/Xs\1/' "$work/table_${j}_$round.txt" > "$work/masked_${j}_$round.txt"
    done
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
m1=$(median "${wall1[@]}")
mN=$(median "${wallN[@]}")
printf 'median wall: -j 1 %.2f s, -j %s %.2f s; speed-up -j %s / -j 1: %.2fx\n' "$m1" "$jobs" "$mN" "$jobs" "$(echo "$m1 / $mN" | bc -l)"
same=yes
for f in "$work"/masked_*; do cmp -s "$f" "$work/masked_1_1.txt" || same=no; done
echo "same table in every run (wall column masked): $same ($(grep -c '\.yaml' "$work/table_1_1.txt") scenarios)"
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
