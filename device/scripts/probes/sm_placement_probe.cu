// Probe (issue 10): where a grid's CTAs land, and what a group of SMs can stream together.
// The benchmark streams (scenarios/catalog/bench/) get ~165-180 GB/s per CTA alone and ~90 at
// 16 CTAs on both an H100 and an H200 (1.45 TB/s in all, far below HBM), then what HBM gives
// at 66 and 132: a limit shared by a group of SMs (a TPC's two SMs? a GPC?) that the model
// lacks. Part 1 prints the %smid of each CTA of grids of 1 to 132 CTAs (one CTA per SM, as
// the streams run). Part 2 runs the bulk-copy stream (16 KiB cp.async.bulk into 4 stages,
// as device/reference/bulk_stream.cu) on chosen sets of SMs only: a 132-CTA grid whose CTAs
// on other SMs exit at once, so the same SMs can be compared alone, as TPC pairs, spread, or
// packed. It prints each set's time, its bandwidth in all and per SM. Part 3 staggers where
// each SM starts in its region; part 4 flushes L2 before each launch (the launches of parts 2
// and 3 read what the launch before them read: it stays in L2 while it fits).
//   build and run on the GPU host: nvcc -arch=sm_90a -O2 -o /tmp/smp sm_placement_probe.cu && /tmp/smp
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); std::exit(1); } } while (0)

constexpr int kStages = 4;
constexpr unsigned kTileBytes = 16384;
constexpr int kTiles = 512;                            // 8 MiB per SM, as the benchmark's 512 tiles
constexpr size_t kRegionBytes = size_t(kTiles) * kTileBytes;
constexpr int kSmemBytes = 120 * 1024;                 // one CTA per SM (two would need 240 KiB)

__device__ __forceinline__ unsigned smid() { unsigned r; asm volatile("mov.u32 %0, %%smid;" : "=r"(r)); return r; }
__device__ __forceinline__ unsigned long long globaltimer() {
    unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t;
}

// Part 1: each CTA writes its SM.
__global__ void where_kernel(unsigned* sm_of_cta) {
    if (threadIdx.x == 0) sm_of_cta[blockIdx.x] = smid();
}

// Part 2: the bulk stream on the CTAs whose SM is in `active` (a 0/1 byte per SM); each
// active CTA streams the region of its SM's rank among the active ones.
__global__ void __launch_bounds__(128) stream_kernel(const unsigned char* src, const unsigned char* active,
                                                     const int* rank_of_sm, unsigned long long* span, int rotate) {
    const unsigned sm = smid();
    if (!active[sm]) return;
    extern __shared__ unsigned char dyn[];
    const unsigned base = ((unsigned)__cvta_generic_to_shared(dyn) + 1023u) & ~1023u;
    const unsigned full0 = base + kStages * kTileBytes;
    const unsigned char* region = src + size_t(rank_of_sm[sm]) * kRegionBytes;
    // rotate != 0: SM rank r reads its tiles from tile (r * rotate) % kTiles on, so the streams
    // do not march through the same offsets of their regions at the same time.
    const int first_tile = (rank_of_sm[sm] * rotate) % kTiles;
    const unsigned long long t0 = globaltimer();
    if (threadIdx.x == 0)
        for (int s = 0; s < kStages; ++s)
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(full0 + 8 * s) : "memory");
    __syncthreads();
    const bool producer = threadIdx.x == 0;
    auto load = [&](int s, int t) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(full0 + 8 * s), "r"(kTileBytes) : "memory");
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     :: "r"(base + s * kTileBytes), "l"(region + size_t((t + first_tile) % kTiles) * kTileBytes), "r"(kTileBytes), "r"(full0 + 8 * s)
                     : "memory");
    };
    if (producer)
        for (int s = 0; s < kStages; ++s) load(s, s);
    for (int t = 0; t < kTiles; ++t) {
        const int s = t % kStages;
        asm volatile("{\n\t.reg .pred p;\n\tW_%=:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n\t@!p bra W_%=;\n\t}"
                     :: "r"(full0 + 8 * s), "r"((t / kStages) & 1) : "memory");
        __syncthreads();
        if (producer && t + kStages < kTiles) load(s, t + kStages);
    }
    if (threadIdx.x == 0) {
        span[2 * blockIdx.x] = t0;
        span[2 * blockIdx.x + 1] = globaltimer();
    }
}

struct SmSet { std::string name; std::vector<int> sms; };

int main() {
    int sm_count = 0;
    CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    std::printf("# %s, %d SMs\n", prop.name, sm_count);
    CHECK(cudaFuncSetAttribute(where_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));
    CHECK(cudaFuncSetAttribute(stream_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes));

    unsigned* d_sm = nullptr;
    CHECK(cudaMalloc(&d_sm, sm_count * sizeof(unsigned)));
    std::printf("## part 1: the SM (%%smid) of each CTA, one CTA per SM (%d KiB of shared memory each)\n", kSmemBytes / 1024);
    for (int ctas : {1, 2, 4, 8, 16, 33, 66, sm_count}) {
        std::vector<unsigned> sm(ctas);
        for (int rep = 0; rep < 2; ++rep) {
            where_kernel<<<ctas, 128, kSmemBytes>>>(d_sm);
            CHECK(cudaDeviceSynchronize());
            CHECK(cudaMemcpy(sm.data(), d_sm, ctas * sizeof(unsigned), cudaMemcpyDeviceToHost));
            std::printf("grid %3d, launch %d: cta->sm", ctas, rep);
            for (int c = 0; c < ctas; ++c) std::printf(" %u", sm[c]);
            std::printf("\n");
        }
    }

    unsigned char *src = nullptr, *d_active = nullptr;
    int* d_rank = nullptr;
    unsigned long long* d_span = nullptr;
    CHECK(cudaMalloc(&src, size_t(sm_count) * kRegionBytes));
    CHECK(cudaMemset(src, 1, size_t(sm_count) * kRegionBytes));
    CHECK(cudaMalloc(&d_active, 256));
    CHECK(cudaMalloc(&d_rank, 256 * sizeof(int)));
    CHECK(cudaMalloc(&d_span, 2 * sm_count * sizeof(unsigned long long)));

    auto range = [](int first, int count, int step) {
        std::vector<int> v;
        for (int k = 0; k < count; ++k) v.push_back(first + k * step);
        return v;
    };
    std::vector<SmSet> sets = {
        {"sm 0", {0}},
        {"sm 1", {1}},
        {"sm 0,1 (one TPC if a TPC is smid/2)", {0, 1}},
        {"sm 0,2", {0, 2}},
        {"sm 0,66", {0, 66}},
        {"sm 0-3", range(0, 4, 1)},
        {"sm 0,2,4,6", range(0, 4, 2)},
        {"sm 0-7", range(0, 8, 1)},
        {"sm 0,2,..,14", range(0, 8, 2)},
        {"sm 0,16,..,112 (8 spread)", range(0, 8, 16)},
        {"sm 0-15", range(0, 16, 1)},
        {"sm 0,2,..,30", range(0, 16, 2)},
        {"sm 0,8,..,120 (16 spread)", range(0, 16, 8)},
        {"sm 0-17", range(0, 18, 1)},
        {"sm 0-31", range(0, 32, 1)},
        {"sm 0,4,..,128 (33 spread)", range(0, 33, 4)},
        {"sm 0-32", range(0, 33, 1)},
        {"sm 0,2,..,130 (66, one per TPC)", range(0, 66, 2)},
        {"sm 0-65", range(0, 66, 1)},
        {"all", range(0, sm_count, 1)},
    };
    std::printf("## part 2: the bulk stream (%d x %u B per SM, %d stages) on chosen SMs; median of 5 launches\n",
                kTiles, kTileBytes, kStages);
    std::printf("%-36s %4s %10s %10s %12s %12s\n", "set", "SMs", "kernel_us", "span_us", "total_GB/s", "per_SM_GB/s");
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    // Part 4's L2 flush: 256 MiB written before each launch (L2: 50 MB on an H100, 60 MB on an H200).
    unsigned char* scratch = nullptr;
    const size_t scratch_bytes = size_t(256) << 20;
    CHECK(cudaMalloc(&scratch, scratch_bytes));
    for (int mode = 0; mode < 3; ++mode) {
    const int rotate = mode == 1 ? 37 : 0;
    const bool flush = mode == 2;
    if (mode == 1)
        std::printf("## part 3: the same, each SM starting %d tiles further into its region than the one before\n", rotate);
    if (mode == 2)
        std::printf("## part 4: the same as part 2, with L2 flushed before each launch (256 MiB memset): every read misses L2\n");
    for (const SmSet& set : sets) {
        if (mode == 1 && set.sms.size() < 2) continue;
        std::vector<unsigned char> active(256, 0);
        std::vector<int> rank(256, 0);
        int n = 0;
        for (int sm : set.sms)
            if (sm < sm_count) { active[sm] = 1; rank[sm] = n++; }
        CHECK(cudaMemcpy(d_active, active.data(), 256, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(d_rank, rank.data(), 256 * sizeof(int), cudaMemcpyHostToDevice));
        std::vector<float> ms;
        std::vector<double> spans;
        for (int rep = 0; rep < 6; ++rep) {
            CHECK(cudaMemset(d_span, 0, 2 * sm_count * sizeof(unsigned long long)));
            if (flush) CHECK(cudaMemset(scratch, rep, scratch_bytes));
            CHECK(cudaEventRecord(e0));
            stream_kernel<<<sm_count, 128, kSmemBytes>>>(src, d_active, d_rank, d_span, rotate);
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            CHECK(cudaGetLastError());
            float t = 0;
            CHECK(cudaEventElapsedTime(&t, e0, e1));
            std::vector<unsigned long long> span(2 * sm_count);
            CHECK(cudaMemcpy(span.data(), d_span, span.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
            unsigned long long lo = ~0ull, hi = 0;
            for (int c = 0; c < sm_count; ++c)
                if (span[2 * c + 1] != 0) { lo = std::min(lo, span[2 * c]); hi = std::max(hi, span[2 * c + 1]); }
            if (rep == 0) continue;  // warm-up
            ms.push_back(t);
            spans.push_back(double(hi - lo) / 1000.0);
        }
        std::sort(ms.begin(), ms.end());
        std::sort(spans.begin(), spans.end());
        const double span_us = spans[spans.size() / 2];
        const double bytes = double(n) * double(kRegionBytes);
        std::printf("%-36s %4d %10.1f %10.1f %12.1f %12.1f\n", set.name.c_str(), n, ms[ms.size() / 2] * 1000.0,
                    span_us, bytes / span_us / 1e3, bytes / span_us / 1e3 / n);
    }
    }
    return 0;
}
