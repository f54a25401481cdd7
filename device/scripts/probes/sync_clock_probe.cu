// Probe: which ways of reading %clock64 after a CTA barrier are ordered after the barrier's
// release, and what each costs. Issue 9's tracer needs a sync's end clock that no warp can
// read before the last warp arrived, at a cost of a few cycles.
//
// One CTA of 4 warps runs kIters barriers. Before each, every warp reads its arrival clock;
// warp 3 first spins a pseudo-random 0-255 cycles, so it arrives last. After the barrier each
// warp reads its end clock the variant's way. A variant is ordered when, in every iteration,
// every warp's end clock is at or after the last arrival. The cost is warp 0's cycles per
// iteration in a second run without the delay (all warps arrive together).
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

constexpr int kIters = 2048;
constexpr int kWarps = 4;
__device__ unsigned g_sink[kWarps];
__shared__ unsigned long long g_mbar;

__device__ __forceinline__ unsigned long long clock64_now() {
    unsigned long long c;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
    return c;
}

template <int V>
__device__ __forceinline__ unsigned long long barrier_then_clock(unsigned* flag) {
    if (V == 0) {  // bar.sync; clock
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        return clock64_now();
    } else if (V == 1) {  // bar.sync; clock; clock (the second)
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        (void)clock64_now();
        return clock64_now();
    } else if (V == 2) {  // barrier.red.popc; branch on the count; clock
        unsigned n;
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, 1, 0;\n\tbarrier.red.popc.aligned.u32 %0, 0, p;\n\t}"
                     : "=r"(n)::"memory");
        if (n == 0) __trap();
        return clock64_now();
    } else if (V == 3) {  // bar.sync; __syncwarp; clock
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        __syncwarp();
        return clock64_now();
    } else if (V == 4) {  // bar.sync; a shared load; the clock read waits on its value
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        unsigned v;
        asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"((unsigned)__cvta_generic_to_shared(flag)) : "memory");
        unsigned long long c;
        asm volatile("{\n\t.reg .u64 t;\n\tmov.u64 t, %%clock64;\n\tadd.u64 %0, t, 0;\n\t}" : "=l"(c) : "r"(v) : "memory");
        return c + (v & 0u);
    } else if (V == 5) {  // bar.sync; nanosleep 0; clock
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        asm volatile("nanosleep.u32 0;" ::: "memory");
        return clock64_now();
    } else if (V == 6) {  // bar.sync; fence.cta; clock
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        asm volatile("fence.acq_rel.cta;" ::: "memory");
        return clock64_now();
    } else if (V == 7) {  // barrier.red.and.pred; branch on it; clock
        unsigned n;
        asm volatile("{\n\t.reg .pred p, q;\n\tsetp.ne.u32 p, 1, 0;\n\tbarrier.red.and.aligned.pred q, 0, p;\n\t"
                     "selp.u32 %0, 1, 0, q;\n\t}"
                     : "=r"(n)::"memory");
        if (n == 0) __trap();
        return clock64_now();
    } else if (V == 8) {  // bar.sync; clock with a 32-bit %clock read first
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        unsigned c32;
        asm volatile("mov.u32 %0, %%clock;" : "=r"(c32)::"memory");
        return clock64_now() + (c32 & 0u);
    } else if (V == 10) {  // bar.sync; st.shared; clock
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        asm volatile("st.shared.u32 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(flag) + 4u * (threadIdx.x >> 5) + 4u), "r"(1u) : "memory");
        return clock64_now();
    } else if (V == 11) {  // bar.sync; st.global; clock
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        asm volatile("st.global.u32 [%0], %1;" :: "l"(g_sink + (threadIdx.x >> 5)), "r"(1u) : "memory");
        return clock64_now();
    } else if (V == 12) {  // bar.sync; mbarrier.arrive on a barrier nobody waits for; clock
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(&g_mbar)) : "memory");
        return clock64_now();
    } else if (V == 13) {  // bar.sync; clock; st.shared (the store after the read)
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        const unsigned long long c = clock64_now();
        asm volatile("st.shared.u32 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(flag) + 4u * (threadIdx.x >> 5) + 4u), "r"((unsigned)c) : "memory");
        return c;
    } else if (V == 14) {  // bar.sync; ld.shared (value unused); clock
        asm volatile("barrier.sync.aligned 0;" ::: "memory");
        unsigned v;
        asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"((unsigned)__cvta_generic_to_shared(flag)) : "memory");
        return clock64_now() + (0u & 0u);
    } else if (V == 15) {  // no barrier; four (clock; st.shared) pairs (a traced op's cost)
        unsigned a = (unsigned)__cvta_generic_to_shared(flag) + 4u * (threadIdx.x >> 5) + 4u;
        for (int k = 0; k < 4; ++k) {
            const unsigned long long c = clock64_now();
            asm volatile("st.shared.u32 [%0], %1;" :: "r"(a), "r"((unsigned)c) : "memory");
        }
        return clock64_now();
    } else if (V == 16) {  // no barrier; four clock reads, one st.shared.v4 of their low words
        unsigned a = (unsigned)__cvta_generic_to_shared(flag) + 16u;
        unsigned c[4];
        for (int k = 0; k < 4; ++k) c[k] = (unsigned)clock64_now();
        if ((threadIdx.x & 31) == 0)
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" :: "r"(a + 16u * (threadIdx.x >> 5)), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]) : "memory");
        return clock64_now();
    } else {  // V == 9: no barrier at all (the cost floor of the loop)
        return clock64_now();
    }
}

template <int V>
__global__ void __launch_bounds__(128) probe(unsigned long long* arrive, unsigned long long* end, int delay,
                                              unsigned long long* cycles) {
    __shared__ unsigned flag[128];
    if (threadIdx.x == 0) {
        flag[0] = 1;
        asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(&g_mbar)), "r"(1u << 19) : "memory");
    }
    __syncthreads();
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    unsigned x = 12345u;
    const unsigned long long t0 = clock64_now();
    for (int i = 0; i < kIters; ++i) {
        if (delay && warp == kWarps - 1) {
            x = x * 1664525u + 1013904223u;
            const unsigned long long until = clock64_now() + (x >> 24);
            while (clock64_now() < until) {
            }
        }
        const unsigned long long a = clock64_now();
        const unsigned long long e = barrier_then_clock<V>(flag);
        if (lane == 0) {
            arrive[i * kWarps + warp] = a;
            end[i * kWarps + warp] = e;
        }
    }
    const unsigned long long t1 = clock64_now();
    if (threadIdx.x == 0) *cycles = t1 - t0;
}

template <int V>
void run(const char* name, unsigned long long* d_a, unsigned long long* d_e, unsigned long long* d_c) {
    std::vector<unsigned long long> a(kIters * kWarps), e(kIters * kWarps);
    unsigned long long cyc = 0;
    probe<V><<<1, 128>>>(d_a, d_e, 1, d_c);
    cudaDeviceSynchronize();
    cudaMemcpy(a.data(), d_a, a.size() * 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(e.data(), d_e, e.size() * 8, cudaMemcpyDeviceToHost);
    int early = 0;
    long long worst = 0;
    for (int i = 0; i < kIters; ++i) {
        unsigned long long last = 0;
        for (int w = 0; w < kWarps; ++w) last = a[i * kWarps + w] > last ? a[i * kWarps + w] : last;
        for (int w = 0; w < kWarps; ++w) {
            const long long d = (long long)e[i * kWarps + w] - (long long)last;
            if (d < 0) ++early;
            if (d < worst) worst = d;
        }
    }
    // Cost: the loop without the delay, three runs, the least.
    unsigned long long best = ~0ull;
    for (int r = 0; r < 3; ++r) {
        probe<V><<<1, 128>>>(d_a, d_e, 0, d_c);
        cudaDeviceSynchronize();
        cudaMemcpy(&cyc, d_c, 8, cudaMemcpyDeviceToHost);
        best = cyc < best ? cyc : best;
    }
    const cudaError_t err = cudaGetLastError();
    std::printf("%-44s early ends %5d of %d (worst %6lld cycles)  cost %7.1f cycles/iteration%s%s\n", name, early,
                kIters * kWarps, worst, (double)best / kIters, err ? "  CUDA error: " : "",
                err ? cudaGetErrorString(err) : "");
}

int main() {
    unsigned long long *d_a, *d_e, *d_c;
    cudaMalloc(&d_a, kIters * kWarps * 8);
    cudaMalloc(&d_e, kIters * kWarps * 8);
    cudaMalloc(&d_c, 8);
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    std::printf("sync_clock_probe on %s: %d barriers, warp 3 late by 0-255 cycles\n", p.name, kIters);
    run<9>("no barrier (loop floor)", d_a, d_e, d_c);
    run<0>("bar.sync; clock", d_a, d_e, d_c);
    run<1>("bar.sync; clock; clock", d_a, d_e, d_c);
    run<2>("barrier.red.popc + branch; clock", d_a, d_e, d_c);
    run<7>("barrier.red.and.pred + branch; clock", d_a, d_e, d_c);
    run<3>("bar.sync; __syncwarp; clock", d_a, d_e, d_c);
    run<4>("bar.sync; ld.volatile.shared -> clock", d_a, d_e, d_c);
    run<5>("bar.sync; nanosleep 0; clock", d_a, d_e, d_c);
    run<6>("bar.sync; fence.acq_rel.cta; clock", d_a, d_e, d_c);
    run<8>("bar.sync; %clock (32-bit); clock", d_a, d_e, d_c);
    run<10>("bar.sync; st.shared; clock", d_a, d_e, d_c);
    run<11>("bar.sync; st.global; clock", d_a, d_e, d_c);
    run<12>("bar.sync; mbarrier.arrive; clock", d_a, d_e, d_c);
    run<13>("bar.sync; clock; st.shared", d_a, d_e, d_c);
    run<14>("bar.sync; ld.shared (unused); clock", d_a, d_e, d_c);
    run<15>("no barrier; 4 x (clock; st.shared)", d_a, d_e, d_c);
    run<16>("no barrier; 4 x clock; st.shared.v4", d_a, d_e, d_c);
    return 0;
}
