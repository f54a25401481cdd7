// Probe: what a trace word's store costs next to the ops a pipeline loop issues (issue 9).
// One CTA of 4 warps runs kIters iterations of a loop body; each variant adds clock reads and
// shared-memory stores of their low words in a different arrangement. Printed: cycles per
// iteration (warp 0, best of 3 launches). The mbarrier variants probe a barrier whose phase
// already completed (a try_wait that succeeds at once, as a consumer ahead of its producer
// sees it); the cp.async variants issue 8 16-byte cp.async.cg per thread per iteration.
#include <cuda_runtime.h>

#include <cstdio>

constexpr int kIters = 4096;

__device__ __forceinline__ unsigned clock32() {
    unsigned c;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory");
    return c;
}
__device__ __forceinline__ void sts(unsigned addr, unsigned v) {
    asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ void sts4(unsigned addr, unsigned a, unsigned b, unsigned c, unsigned d) {
    asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
}
__device__ __forceinline__ bool try_wait(unsigned bar) {
    unsigned ok;
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(ok) : "r"(bar) : "memory");
    return ok != 0;
}
__device__ __forceinline__ void ldgsts(unsigned dst, const void* src) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(dst), "l"(src) : "memory");
}

template <int V>
__global__ void __launch_bounds__(128) probe(const unsigned char* src, unsigned long long* cycles) {
    extern __shared__ __align__(16) unsigned char smem[];
    const unsigned base = (unsigned)__cvta_generic_to_shared(smem);
    const unsigned bar = base;                       // an mbarrier whose phase 0 completed
    const unsigned data = base + 1024;               // 16 KiB of cp.async destinations
    const unsigned words = base + 1024 + 16384 + 1024 * (threadIdx.x >> 5);  // this warp's words
    const unsigned lane = threadIdx.x & 31;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
        asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
    }
    __syncthreads();
    const unsigned long long t0 = clock64();
    unsigned sink = 0;
    for (int i = 0; i < kIters; ++i) {
        const unsigned w = words + 64u * (i & 7);
        if (V <= 3) {
            if (!try_wait(bar)) __trap();
            if (V == 1) {  // one word, one store
                const unsigned c = clock32();
                if (lane == 0) sts(w, c);
            } else if (V == 2) {  // four words, four stores
                unsigned c[4];
                for (int k = 0; k < 4; ++k) c[k] = clock32();
                if (lane == 0) for (int k = 0; k < 4; ++k) sts(w + 4 * k, c[k]);
            } else if (V == 3) {  // four words, one 16-byte store
                unsigned c[4];
                for (int k = 0; k < 4; ++k) c[k] = clock32();
                if (lane == 0) sts4(w, c[0], c[1], c[2], c[3]);
            }
        } else {
            const unsigned char* s = src + ((size_t)(i & 63) * 8 * 128 + threadIdx.x) * 16;
            unsigned c[8];
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                ldgsts(data + (k * 128 + threadIdx.x) * 16, s + k * 128 * 16);
                if (V >= 5) c[k] = clock32();
                if (V == 5 && lane == 0) sts(w + 4 * k, c[k]);  // a store after each
            }
            if (V == 6 && lane == 0) {  // two 16-byte stores after the eight
                sts4(w, c[0], c[1], c[2], c[3]);
                sts4(w + 16, c[4], c[5], c[6], c[7]);
            }
            if (V == 7 && lane == 0) for (int k = 0; k < 8; ++k) sts(w + 4 * k, c[k]);  // eight after the eight
            if (V == 8) for (int k = 0; k < 8; ++k) sink += c[k];  // the reads alone
            asm volatile("cp.async.commit_group;" ::: "memory");
            if (V == 9 && lane == 0) for (int k = 0; k < 8; ++k) sts(w + 4 * k, c[k]);  // between commit and wait
            asm volatile("cp.async.wait_group 2;" ::: "memory");
            if (V == 10 && lane == 0) for (int k = 0; k < 8; ++k) sts(w + 4 * k, c[k]);  // after the wait
        }
    }
    asm volatile("cp.async.wait_all;" ::: "memory");
    const unsigned long long t1 = clock64();
    if (threadIdx.x == 0) *cycles = t1 - t0 + (sink == 0x12345u ? 1 : 0);
}

template <int V>
void run(const char* name, const unsigned char* src, unsigned long long* d_c) {
    const int smem = 1024 + 16384 + 4 * 1024;
    cudaFuncSetAttribute(probe<V>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    unsigned long long best = ~0ull, c = 0;
    for (int r = 0; r < 3; ++r) {
        probe<V><<<1, 128, smem>>>(src, d_c);
        cudaDeviceSynchronize();
        cudaMemcpy(&c, d_c, 8, cudaMemcpyDeviceToHost);
        best = c < best ? c : best;
    }
    const cudaError_t err = cudaGetLastError();
    std::printf("%-52s %7.1f cycles/iteration%s%s\n", name, (double)best / kIters, err ? "  CUDA error: " : "",
                err ? cudaGetErrorString(err) : "");
}

int main() {
    unsigned char* src;
    unsigned long long* d_c;
    cudaMalloc(&src, 64 * 8 * 128 * 16 + 4096);
    cudaMemset(src, 1, 64 * 8 * 128 * 16 + 4096);
    cudaMalloc(&d_c, 8);
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    std::printf("trace_store_probe on %s: 1 CTA, 4 warps, %d iterations\n", p.name, kIters);
    run<0>("try_wait (phase complete)", src, d_c);
    run<1>("try_wait; clock; 1 st.shared", src, d_c);
    run<2>("try_wait; 4 clocks; 4 st.shared", src, d_c);
    run<3>("try_wait; 4 clocks; 1 st.shared.v4", src, d_c);
    run<4>("8 cp.async; commit; wait_group 2", src, d_c);
    run<8>("8 x (cp.async; clock); commit; wait", src, d_c);
    run<5>("8 x (cp.async; clock; st.shared); commit; wait", src, d_c);
    run<7>("8 x (cp.async; clock); 8 st.shared; commit; wait", src, d_c);
    run<6>("8 x (cp.async; clock); 2 st.shared.v4; commit; wait", src, d_c);
    run<9>("8 x (cp.async; clock); commit; 8 st.shared; wait", src, d_c);
    run<10>("8 x (cp.async; clock); commit; wait; 8 st.shared", src, d_c);
    return 0;
}
