// st.async ring in a cluster of 8 CTAs of 64 threads: every CTA inits `filled` (count 1) and
// `ready` (count 64), and a cluster barrier publishes both to the peers. Each iteration, as a
// producer, every thread st.async's a value into element tid of the next CTA's buffer, with
// complete_tx on that CTA's `filled`; as a consumer, thread 0 arrives on its own `filled` with the
// buffer's 256 bytes, every thread waits on it, reads its element, adds it to a running sum, and
// arrives (release, cluster scope) on the previous CTA's `ready`; then every thread waits on its
// own `ready` before producing again, the parity flipping each iteration. The value sent in
// iteration it is rank * 4096 + it * 64 + tid, so after the loop thread tid of a CTA whose
// previous neighbour is p holds 4 * (p * 4096 + tid) + 64 * (0 + 1 + 2 + 3), written to out.
// From: CUDA C++ Programming Guide 4.11.3 "Using STAS" (producer_consumer_kernel,
// __cluster_dims__(8, 1, 1)); 4 iterations instead of 1000.
// Twin st_async_ring_short_expect (-DEXPECT_BYTES=512): the expect counts 8 bytes a thread while
// each sends 4, so the bytes fall short and `filled` never completes.
#include "kernel_common.cuh"

constexpr int kBlock = 64;
constexpr int kRing = 8;
constexpr int kIters = 4;
#ifndef EXPECT_BYTES
#define EXPECT_BYTES (kBlock * 4)
#endif

extern "C" __global__ void __launch_bounds__(kBlock) st_async_ring(int* out) {
    __shared__ int buffer[kBlock];
    __shared__ uint64_t filled, ready;
    const int tid = threadIdx.x;
    if (tid == 0) {
        ptx::mbarrier_init(&filled, 1);
        ptx::mbarrier_init(&ready, kBlock);
    }
    kc::cluster_sync();  // the barriers are initialized before any peer uses them

    const uint32_t rk = kc::cluster_rank();
    const uint32_t next = (rk + 1) % kRing, prev = (rk + kRing - 1) % kRing;
    // shared::cluster addresses in the neighbours: where we write, whose barriers we signal.
    const uint32_t buffer_next = kc::map_rank(kc::smem_addr(&buffer[tid]), next);
    const uint32_t filled_next = kc::map_rank(kc::smem_addr(&filled), next);
    const uint32_t ready_prev = kc::map_rank(kc::smem_addr(&ready), prev);

    int sum = 0;
    uint32_t phase = 0;
    for (int it = 0; it < kIters; ++it) {
        kc::st_async_b32(buffer_next, static_cast<int>(rk) * 4096 + it * 64 + tid, filled_next);
        if (tid == 0)
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cluster, ptx::space_shared, &filled,
                                           EXPECT_BYTES);
        kc::wait_parity(&filled, phase);  // the previous CTA's 64 stores have landed
        sum += buffer[tid];
        kc::arrive_remote(ready_prev);    // the previous CTA may overwrite our buffer
        kc::wait_parity(&ready, phase);   // the next CTA has read what we sent
        phase ^= 1;
    }
    out[blockIdx.x * kBlock + tid] = sum;
    kc::cluster_sync();  // no CTA exits while a peer may still arrive on its barriers
}
