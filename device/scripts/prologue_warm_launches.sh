#!/usr/bin/env bash
# Does the traced kernel's prologue (CTA 0's first op after its first warp's entry) settle with
# more warm launches? Runs ten fitting scenarios traced, one recorded launch after 1, 1, 5, 5 and
# 20 warm launches each, and prints the first-op cycle of each run. Run on the device machine
# from the repo root with the binaries of .gpu/ (device/scripts/gpu_session.sh says how they
# travel). Output of 2026-11-27 (H100): traces/recorded/NVIDIA-H100-80GB-HBM3/bench/prologue_warm_launches.txt
export LD_LIBRARY_PATH=$PWD/.gpu/lib:/usr/local/cuda/lib64 TMASIM_ARCH_DIR=$PWD/model/arch
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "commit $(cat .gpu/COMMIT) $(date -u '+%H:%M UTC') $gpu"
first() { python3 -c "
import json,sys
f=None
for l in open(sys.argv[1]):
    d=json.loads(l)
    if d.get('type')=='event' and d['cta']==0 and not d.get('model_only'): f=d['t'] if f is None else min(f,d['t'])
print(f)" $1; }
for s in teach/24a_proxy_mp teach/24b_proxy_mp reduce/bulk_add_source_reuse teach/16_ldgsts_to_wgmma teach/14_ldgsts_groups calibrate/shared_v4_conflict_warps wgmma/n256_four_k guide/tma_2d_load_modify_store teach/01_tma_load_ok bank/stride_1; do
  line="$s"
  for w in 1 1 5 5 20; do
    .gpu/tmasim run scenarios/catalog/$s.yaml --backend device --warm-launches $w -o /tmp/p.jsonl -q >/dev/null 2>&1
    line="$line w$w:$(first /tmp/p.jsonl)"
  done
  echo "$line"
done
