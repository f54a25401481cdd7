#!/bin/bash
# The PTX front end's speed (issue 35): the catalog's warp-specialized TMA + wgmma GEMM
# (scenarios/catalog/kernels/gemm_ws_tma_wgmma.yaml) run on the model at one cluster of 2 CTAs
# (M 256 x N 128: the kernel's clusters are 2 along M, so its smallest launch), at full chip
# (132 CTAs: M 1536 x N 1408) and as a 1024 x 1024 x 1024 GEMM (64 CTAs), each K 512 but the
# last. For each: warp-level PTX instructions executed (the trace header's ptx_warp_instructions:
# one per warp per instruction reached; ptx_thread_instructions: the same per lane whose guard
# holds, GPGPU-Sim's count), the process's CPU time (user + sys, GNU time) and
# wall time, and millions of instructions per second per core (instructions / CPU seconds: the
# model runs on one thread). A wgmma.mma_async m64n128k16 is one instruction per warp that does
# 32768 of the GEMM's multiply-adds, so on this kernel the rates measure the units, not the
# instruction loop. The kernel is compiled once by NVRTC and cached (~/.cache/tmasim/ptx); a
# warm-up run fills the cache first so that no row pays for the compile. Each row is the best
# of RUNS (default 3) runs: the VM's speed drifts between runs. A benchmark, not a test: it
# asserts nothing, it prints. Run from the repository root:
#   bench/kernel_model_perf.sh [TMASIM] > bench/kernel_model_perf.txt
set -eu
tmasim=${1:-build/cli/tmasim}
runs=${RUNS:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
src=scenarios/catalog/kernels/gemm_ws_tma_wgmma.yaml
kernel_dir=$(cd "$(dirname "$src")" && pwd)

echo "# tmasim PTX front end performance (bench/kernel_model_perf.sh)"
echo "# commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (modified)'), $(date -u +%Y-%m-%dT%H:%MZ)"
echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# kernel: $src (cluster 2 x 1, 384 threads, 4-stage ring, 128 x 128 x 64 tiles), best of $runs runs"

# The catalog scenario with M, N, K and the grid changed; the .cu path made absolute.
make_scenario() {  # name M N K
    local m=$2 n=$3 k=$4 ctas=$(( ($2 / 128) * ($3 / 128) ))
    sed -e "s|cuda: gemm_ws_tma_wgmma.cu|cuda: $kernel_dir/gemm_ws_tma_wgmma.cu|" \
        -e "s|grid: \[4\]|grid: [$ctas]|" \
        -e "s|A: {type: f16, shape: \[256, 512\]|A: {type: f16, shape: [$m, $k]|" \
        -e "s|B: {type: f16, shape: \[256, 512\]|B: {type: f16, shape: [$n, $k]|" \
        -e "s|C: {type: f32, shape: \[256, 256\]|C: {type: f32, shape: [$m, $n]|" \
        -e "s|- {i32: 256}\$|- {i32: M_}|" "$src" |
        awk -v m="$m" -v n="$n" -v k="$k" '
            /- \{i32: M_\}/ { c++; if (c == 1) sub(/M_/, m); else sub(/M_/, n) }
            /- \{i32: 512\}/ { sub(/512/, k) }
            { print }' >"$work/$1.yaml"
    echo "$ctas"
}

printf '%-28s %5s %12s %14s %8s %8s %10s %12s\n' run ctas warp_instrs thread_instrs cpu_s wall_s Mwarp_per_s Mthread_per_s
for spec in "one_cluster 256 128 512" "full_chip 1536 1408 512" "gemm_1024 1024 1024 1024"; do
    set -- $spec
    ctas=$(make_scenario "$@")
    "$tmasim" run "$work/$1.yaml" --backend model --max-work 0 -q -o "$work/$1.warm.jsonl" || true
    best_cpu="" best_wall="" instrs=""
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%U %S %e" -o "$work/time" \
            "$tmasim" run "$work/$1.yaml" --backend model --max-work 0 -q -o "$work/$1.jsonl" || true
        read -r user sys wall <"$work/time"
        cpu=$(echo "$user + $sys" | bc -l)
        if [ -z "$best_cpu" ] || [ "$(echo "$cpu < $best_cpu" | bc -l)" = 1 ]; then best_cpu=$cpu best_wall=$wall; fi
        instrs=$(head -c 4096 "$work/$1.jsonl" | grep -o '"ptx_warp_instructions":"[0-9]*"' | grep -o '[0-9]*')
        threads=$(head -c 4096 "$work/$1.jsonl" | grep -o '"ptx_thread_instructions":"[0-9]*"' | grep -o '[0-9]*')
    done
    rate=$(echo "$instrs / $best_cpu / 1000000" | bc -l)
    thread_rate=$(echo "$threads / $best_cpu / 1000000" | bc -l)
    printf '%-28s %5d %12d %14d %8.2f %8.2f %10.2f %12.2f\n' "$1 ($2x$3x$4)" "$ctas" "$instrs" "$threads" "$best_cpu" \
        "$best_wall" "$rate" "$thread_rate"
done
echo "# targets (issue 35): >= 20 M instructions/s per core; the 1024^3 GEMM under 10 s"
