// Split-K style accumulation with a bulk reduction: each CTA loads its 8 x 256 int slice of the
// partial products with one 1-D bulk copy (mbarrier, tx count), sums each column over its 8 rows
// in shared memory, fences the generic writes into the async proxy, and one elected thread adds
// the 256 column sums into the shared result in global memory with cp.reduce.async.bulk .add.s32
// (a bulk group, waited before exit). The adds of different CTAs meet in L2, where the reduction
// is atomic per element, so the result does not depend on their order: out[j] = initial value +
// the sum of column j over every CTA's slice.
// From: PTX ISA 9.7.9.25.4.2 (cp.reduce.async.bulk), CUTLASS split-K reduction; compare
// scenarios/catalog/pipelines/bulk_reduce_partials.yaml.
#include "kernel_common.cuh"

constexpr int kCols = 256, kRows = 8;

// partials: [ctas, 8, 256]; out: [256], accumulated into.
extern "C" __global__ void __launch_bounds__(kCols) bulk_reduce_add(const int* partials, int* out) {
    __shared__ alignas(128) int slice[kRows * kCols];
    __shared__ alignas(128) int colsum[kCols];
    __shared__ uint64_t full;
    const int j = threadIdx.x;
    if (j == 0) ptx::mbarrier_init(&full, 1);
    __syncthreads();
    if (kc::is_elected()) {
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full, sizeof(slice));
        ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, slice, partials + blockIdx.x * kRows * kCols,
                           sizeof(slice), &full);
    }
    kc::wait_parity(&full, 0);
    int s = 0;
    for (int r = 0; r < kRows; ++r) s += slice[r * kCols + j];
    colsum[j] = s;
    ptx::fence_proxy_async(ptx::space_shared);  // colsum's generic writes, then the bulk reduction reads them
    __syncthreads();
    if (kc::is_elected()) {
        ptx::cp_reduce_async_bulk(ptx::space_global, ptx::space_shared, ptx::op_add, out, colsum, sizeof(colsum));
        ptx::cp_async_bulk_commit_group();
        ptx::cp_async_bulk_wait_group(ptx::n32_t<0>());  // the adds are done (and colsum was read)
    }
}
