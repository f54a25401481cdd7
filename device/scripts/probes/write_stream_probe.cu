// Probe (issue 10): what HBM gives a stream that writes. The benchmark's TMA round trip (load a
// tile, store it back) slows from 25.9 GB/s per CTA at 16 CTAs to 19.3 at 132 on an H200, where
// 132 CTAs move 2.55 TB/s in all, half of it writes: far below the 4.5 TB/s a read stream gets.
// Here one thread per SM streams 512 tiles of 16 KiB with cp.async.bulk, 4 in flight, on the
// first N SMs (one CTA per SM; the CTAs on other SMs exit at once), three ways:
//   read   global -> shared (as sm_placement_probe.cu), each tile waited on by an mbarrier
//   write  shared -> global (bulk stores, cp.async.bulk.wait_group.read 3 before reusing a stage)
//   copy   read a tile, then store it to another region (both directions count)
// and prints each one's time and GB/s, in all and per SM (bytes to or from global memory).
//   build and run on the GPU host: nvcc -arch=sm_90a -O2 -o /tmp/wsp write_stream_probe.cu && /tmp/wsp
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(1); } } while (0)

constexpr int kStages = 4;
constexpr unsigned kTileBytes = 16384;
constexpr int kTiles = 512;
constexpr size_t kRegionBytes = size_t(kTiles) * kTileBytes;
constexpr int kSmemBytes = 120 * 1024;  // one CTA per SM
enum Mode { kRead = 0, kWrite = 1, kCopy = 2 };

__device__ __forceinline__ unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }
__device__ __forceinline__ void bar_init(unsigned bar) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
}
__device__ __forceinline__ void load_tile(unsigned dst, const unsigned char* src, unsigned bar) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(kTileBytes) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(dst), "l"(src), "r"(kTileBytes), "r"(bar) : "memory");
}
__device__ __forceinline__ void wait_tile(unsigned bar, unsigned parity) {
    asm volatile("{\n\t.reg .pred p;\n\tW_%=:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t@!p bra W_%=;\n\t}"
                 :: "r"(bar), "r"(parity) : "memory");
}
__device__ __forceinline__ void store_tile(unsigned char* dst, unsigned src) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" :: "l"(dst), "r"(src), "r"(kTileBytes)
                 : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
template <int N> __device__ __forceinline__ void stores_read_at_most() {
    asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(N) : "memory");
}

// SM of rank r (among the first `active_sms`) streams region r of `src` and/or `dst`.
__global__ void __launch_bounds__(32) stream_kernel(const unsigned char* src, unsigned char* dst, int active_sms, int mode) {
    const unsigned sm = smid();
    if ((int)sm >= active_sms || threadIdx.x != 0) return;
    extern __shared__ unsigned char dyn[];
    const unsigned base = ((unsigned)__cvta_generic_to_shared(dyn) + 1023u) & ~1023u;
    const unsigned full0 = base + kStages * kTileBytes;
    const unsigned char* in = src + size_t(sm) * kRegionBytes;
    unsigned char* out = dst + size_t(sm) * kRegionBytes;
    for (int s = 0; s < kStages; ++s) bar_init(full0 + 8 * s);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    if (mode == kWrite) {
        for (int t = 0; t < kTiles; ++t) {
            if (t >= kStages) stores_read_at_most<kStages - 1>();  // the stage's last store has read it
            store_tile(out + size_t(t) * kTileBytes, base + (t % kStages) * kTileBytes);
        }
        stores_read_at_most<0>();
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
        return;
    }
    for (int s = 0; s < kStages; ++s) load_tile(base + s * kTileBytes, in + size_t(s) * kTileBytes, full0 + 8 * s);
    for (int t = 0; t < kTiles; ++t) {
        const int s = t % kStages;
        wait_tile(full0 + 8 * s, (t / kStages) & 1);
        if (mode == kCopy) {
            store_tile(out + size_t(t) * kTileBytes, base + s * kTileBytes);
            stores_read_at_most<0>();  // the stage is read before it is refilled
        }
        if (t + kStages < kTiles) load_tile(base + s * kTileBytes, in + size_t(t + kStages) * kTileBytes, full0 + 8 * s);
    }
    if (mode == kCopy) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

int main() {
    int sm_count = 0;
    CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("# %s, %d SMs, L2 %d MB\n", prop.name, sm_count, prop.l2CacheSize >> 20);
    CHECK(cudaFuncSetAttribute(stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    unsigned char *src = nullptr, *dst = nullptr;
    CHECK(cudaMalloc(&src, size_t(sm_count) * kRegionBytes));
    CHECK(cudaMalloc(&dst, size_t(sm_count) * kRegionBytes));
    CHECK(cudaMemset(src, 1, size_t(sm_count) * kRegionBytes));
    CHECK(cudaMemset(dst, 0, size_t(sm_count) * kRegionBytes));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    const char* names[] = {"read", "write", "copy"};
    std::printf("%-6s %4s %10s %12s %12s\n", "mode", "SMs", "kernel_us", "total_GB/s", "per_SM_GB/s");
    for (int mode : {kRead, kWrite, kCopy})
        for (int n : {1, 4, 8, 16, 33, 66, sm_count}) {
            std::vector<float> ms;
            for (int rep = 0; rep < 6; ++rep) {
                CHECK(cudaEventRecord(e0));
                stream_kernel<<<sm_count, 32, kSmemBytes>>>(src, dst, n, mode);
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                CHECK(cudaGetLastError());
                float t = 0;
                CHECK(cudaEventElapsedTime(&t, e0, e1));
                if (rep > 0) ms.push_back(t);  // the first is a warm-up
            }
            std::sort(ms.begin(), ms.end());
            const double us = ms[ms.size() / 2] * 1000.0;
            const double bytes = double(n) * double(kRegionBytes) * (mode == kCopy ? 2 : 1);
            std::printf("%-6s %4d %10.1f %12.1f %12.1f\n", names[mode], n, us, bytes / us / 1e3, bytes / us / 1e3 / n);
        }
    return 0;
}
