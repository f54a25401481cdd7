// LDGSTS (cp.async) double-buffered prefetch pipeline: while a block works on one batch in
// shared memory, the next batch is already in flight into the other stage. Each thread copies
// its 28 bytes of a batch as one 16-byte (cp.async.cg, L1 bypass), one 8-byte and one 4-byte
// (cp.async.ca) copy, commits one group per batch (an empty group once nothing is left, so two
// batches stay in the pipeline), and waits with cp.async.wait_group until at most
// kStages - 1 groups are pending before it reads the stage.
// From: CUDA C++ Programming Guide 4.11.1.2 "Prefetching Data" (the low-level primitives
// version: __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior(num_stages - 1)).
// Twin ldgsts_missing_wait (-DWAIT_PRIOR=2): the wait allows both groups to stay pending, so a
// thread reads its own copies before any wait covers them.
#include "kernel_common.cuh"

constexpr int kThreads = 128;
constexpr int kStages = 2;
// A batch: 128 x 16 bytes, then 128 x 8 bytes, then 128 x 4 bytes, each region naturally aligned.
constexpr int kBatchInts = 7 * kThreads;
#ifndef WAIT_PRIOR
#define WAIT_PRIOR (kStages - 1)
#endif

// Thread t's three copies of the batch at `src` into the stage at `dst`.
__device__ void fetch(int* dst, const int* src, int t) {
    kc::cp_async_16(dst + 4 * t, src + 4 * t);
    kc::cp_async_8(dst + 4 * kThreads + 2 * t, src + 4 * kThreads + 2 * t);
    kc::cp_async_4(dst + 6 * kThreads + t, src + 6 * kThreads + t);
}

// The guide leaves compute() open: here out = 2 * in over the 7 ints thread t copied itself.
__device__ void compute(int* out, const int* stage, int t) {
    for (int i = 0; i < 4; ++i) out[4 * t + i] = 2 * stage[4 * t + i];
    for (int i = 0; i < 2; ++i) out[4 * kThreads + 2 * t + i] = 2 * stage[4 * kThreads + 2 * t + i];
    out[6 * kThreads + t] = 2 * stage[6 * kThreads + t];
}

// in and out hold batches * gridDim.x batches; batch b of block c starts at (b * gridDim.x + c) * kBatchInts.
extern "C" __global__ void __launch_bounds__(kThreads) ldgsts_pipeline(int* out, const int* in, int batches) {
    __shared__ alignas(128) int stage[kStages][kBatchInts];
    const int t = threadIdx.x;
    auto batch_at = [&](int b) { return (b * static_cast<int>(gridDim.x) + static_cast<int>(blockIdx.x)) * kBatchInts; };

    // Fill the pipeline with the first kStages batches, one commit group each.
    for (int s = 0; s < kStages; ++s) {
        if (s < batches) fetch(stage[s], in + batch_at(s), t);
        kc::cp_async_commit();
    }
    for (int b = 0; b < batches; ++b) {
        const int s = b % kStages;
        // Groups complete in commit order: with kStages - 1 left pending, batch b's group is done.
        kc::cp_async_wait<WAIT_PRIOR>();
        __syncthreads();  // as in the guide; not required while each thread reads only its own copies
        compute(out + batch_at(b), stage[s], t);
        __syncthreads();  // every thread is done with stage s before anyone refills it
        if (b + kStages < batches) fetch(stage[s], in + batch_at(b + kStages), t);
        kc::cp_async_commit();  // empty at the end: keeps the wait's count of pending groups right
    }
}
