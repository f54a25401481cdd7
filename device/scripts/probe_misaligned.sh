#!/usr/bin/env bash
# Builds and runs device/scripts/probes/misaligned_probe.cu on the GPU host, one process
# per case, and prints one line per case (see the .cu for what each case does).
set -u
here="$(cd "$(dirname "$0")" && pwd)"
bin="${TMPDIR:-/tmp}/misaligned_probe"
nvcc -arch=sm_90a -std=c++17 -o "$bin" "$here/probes/misaligned_probe.cu" -lcuda || exit 1
for c in control_bulk bulk_global_plus8 bulk_global_plus4 bulk_smem_plus8 bulk_size_24 mbarrier_plus4 \
         control_tensor tensor_smem_plus16 tensor_smem_plus16_swizzle128 tensor_inner_coord_1 \
         tensor_store_inner_coord_1 tensor_store_smem_plus16 tensor_store_neg_coord; do
  timeout 20 "$bin" "$c" || echo "$c: exit $? (timeout 124 = hang)"
done
