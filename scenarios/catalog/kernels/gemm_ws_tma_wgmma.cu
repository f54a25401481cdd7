// Warp-specialized Hopper GEMM, C = A * B^T (A [M, K], B [N, K], both f16 row-major, i.e. K-major;
// C [M, N] f32 row-major), in the shape of CUTLASS's sm90 "warpspecialized cooperative" kernel:
// - CTA tile 128 x 128 x 64; 384 threads: warpgroup 0 is the producer (its warp 0, one elected
//   lane, issues every TMA), warpgroups 1 and 2 consume, each owning 64 rows of the tile.
// - A 4-stage ring of A tiles [128, 64] and B tiles [128, 64] in dynamic shared memory, loaded by
//   TMA with 128-byte swizzle (each row of 64 halves is one 128-byte swizzle row), with a full and
//   an empty mbarrier per stage.
// - Clusters of 2 CTAs along M share the B tile: each CTA loads its own A tile and half of B
//   (64 rows) with .multicast::cluster to both CTAs, so every CTA's full[s] expects 16 KiB of A
//   and 2 x 8 KiB of B. A stage may be refilled only when the consumers of both CTAs are done with
//   it, so every consumer warp arrives on empty[s] of both CTAs (count 2 CTAs x 8 warps = 16).
// - setmaxnreg moves registers from the producer warpgroup (40) to the consumers (232).
// - Consumers: wgmma.fence, four wgmma.mma_async.m64n128k16.f32.f16.f16 per k-block (one per
//   16-wide K slice), wgmma.commit_group, then wgmma.wait_group 1 retires the previous k-block's
//   group so its stage can be released while this one runs; the accumulators go straight from
//   registers to global memory.
// Shared-memory matrix descriptor, 64 bits (PTX ISA, wgmma "Matrix Descriptor Format"; the same
// fields as CUTLASS's GmmaDescriptor):
//   bits  0-13  start address >> 4
//   bits 16-29  leading dimension byte offset >> 4: unused by the swizzled K-major layouts, 1
//   bits 32-45  stride dimension byte offset >> 4: 1024 bytes from one 8-row group to the next
//               (8 rows x 128 bytes) = 64
//   bits 49-51  base offset: 0, every tile starts on a 1024-byte boundary (the swizzle repeat)
//   bits 62-63  layout: 1 = 128-byte swizzle (2 = 64B, 3 = 32B, 0 = none)
// The K slice k16 = 0..3 of a 64-wide tile starts 32 * k16 bytes into each 128-byte row: the
// descriptor's start address advances by 32 bytes (2 in its >> 4 units); the hardware applies
// the swizzle to the full address, as the TMA did when it wrote the rows.
// Accumulator fragment (PTX ISA, wgmma register fragment of the m64nNk16 D): register i of lane
// l of the group's warp w holds row 16 w + l / 4 + 8 ((i / 2) % 2), column 8 (i / 4) + 2 (l % 4) + i % 2.
// From: seed 003 (CUTLASS CuTe Hopper TMA + wgmma: make_tma_copy with multicast, GMMA
// descriptors, warpgroup_arrive / commit_batch / wait, producer/consumer warp specialization);
// CUDA C++ Programming Guide 4.11.2.2 (tensor maps); PTX ISA 9.7.15 (wgmma) and setmaxnreg.
// Twin wgmma_missing_fence (-DSKIP_WGMMA_FENCE): no wgmma.fence before a k-block's mmas, the
// first one of the tile included (PTX requires one before the first mma_async of a warpgroup).
#include "kernel_common.cuh"

constexpr int kBM = 128, kBN = 128, kBK = 64, kStages = 4;
constexpr int kTileBytesA = kBM * kBK * 2;  // 16 KiB
constexpr int kTileBytesB = kBN * kBK * 2;  // 16 KiB, 8 KiB from each CTA of the pair
constexpr int kClusterM = 2;
constexpr int kConsumerWarps = 8;

// The descriptor of a K-major, 128B-swizzled operand tile starting at shared address addr.
__device__ inline uint64_t smem_desc(uint32_t addr) {
    return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | (static_cast<uint64_t>(1) << 16) |
           (static_cast<uint64_t>(1024 >> 4) << 32) | (static_cast<uint64_t>(1) << 62);
}

// Eight accumulator registers as read-write asm operands.
#define WG_ACC8(i) \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])
// D (64 x 128 f32, 64 registers a thread) = A (64 x 16 at desc_a) * B (128 x 16 at desc_b)^T, plus D
// when scale_d is not 0 (the first mma of a tile overwrites D: no zeroing of the registers, which
// ptxas would have to order against the asynchronous mmas, C7515).
__device__ inline void wgmma_m64n128k16(float (&d)[64], uint64_t desc_a, uint64_t desc_b, int scale_d) {
    asm volatile(
        "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
        "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "
        "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
        "%64, %65, p, 1, 1, 0, 0;\n}"
        : WG_ACC8(0), WG_ACC8(8), WG_ACC8(16), WG_ACC8(24), WG_ACC8(32), WG_ACC8(40), WG_ACC8(48), WG_ACC8(56)
        : "l"(desc_a), "l"(desc_b), "r"(scale_d)
        : "memory");
}
__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ inline void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ inline void wgmma_wait(float (&d)[64]) {
    // The accumulators are operands so the compiler keeps their uses after the wait.
    asm volatile("wgmma.wait_group.sync.aligned %64;"
                 : WG_ACC8(0), WG_ACC8(8), WG_ACC8(16), WG_ACC8(24), WG_ACC8(32), WG_ACC8(40), WG_ACC8(48), WG_ACC8(56)
                 : "n"(N)
                 : "memory");
}

// Consumer warp's release of stage s: one lane arrives (release, cluster scope) on empty[s] of
// both CTAs of the pair, its own included.
__device__ inline void release_stage(uint64_t* empty, int s) {
    if (threadIdx.x % 32 == 0)
        for (uint32_t r = 0; r < kClusterM; ++r) kc::arrive_remote(kc::map_rank(kc::smem_addr(&empty[s]), r));
}

// 1-D grid of (M / 128) * (N / 128) CTAs in clusters of 2: cluster p computes rows
// [256 (p % (M / 256)), +256) (rank r the 128 rows at +128 r) and columns [128 (p / (M / 256)), +128).
// Dynamic shared memory: kStages * 32 KiB + 1 KiB for the alignment.
extern "C" __global__ void __launch_bounds__(384, 1)
    gemm_ws_tma_wgmma(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b, float* c,
                      int m, int n, int k) {
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    __shared__ uint64_t full[kStages], empty[kStages];
    // Swizzled TMA boxes and wgmma operands need 1024-byte aligned tiles: stage s is A then B.
    uint8_t* const tiles = smem_raw + ((1024 - (kc::smem_addr(smem_raw) & 1023)) & 1023);
    auto tile_a = [&](int s) { return tiles + s * (kTileBytesA + kTileBytesB); };
    auto tile_b = [&](int s) { return tile_a(s) + kTileBytesA; };

    const int warp = threadIdx.x / 32, wg = warp / 4;
    const uint32_t rank = kc::cluster_rank();
    const int pair = blockIdx.x / kClusterM, m_pairs = m / (kBM * kClusterM);
    const int m0 = (pair % m_pairs) * (kBM * kClusterM) + static_cast<int>(rank) * kBM;
    const int n0 = (pair / m_pairs) * kBN;
    const int k_blocks = k / kBK;

    if (threadIdx.x == 0) {
        for (int s = 0; s < kStages; ++s) {
            ptx::mbarrier_init(&full[s], 1);                            // this CTA's producer
            ptx::mbarrier_init(&empty[s], kClusterM * kConsumerWarps);  // both CTAs' consumer warps
        }
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    kc::cluster_sync();  // both CTAs' barriers are initialized before any multicast or remote arrive

    if (wg == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
        if (warp == 0 && kc::elect_one()) {
            for (int kb = 0; kb < k_blocks; ++kb) {
                const int s = kb % kStages;
                // Round r of stage s needs round r - 1 released by both CTAs; round 0 waits with
                // parity 1, the phase before a fresh barrier's first, which passes at once.
                while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, &empty[s],
                                                      ((kb / kStages) & 1) ^ 1)) {
                }
                ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &full[s],
                                               kTileBytesA + kTileBytesB);
                const int32_t ca[2] = {kb * kBK, m0};  // {k, row}: fastest dimension first
                ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile_a(s), &map_a, ca, &full[s]);
                // This CTA's half of B, rows n0 + 64 rank .. +63, into the same offset of both CTAs.
                const int32_t cb[2] = {kb * kBK, n0 + static_cast<int>(rank) * (kBN / kClusterM)};
                ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, tile_b(s) + rank * (kTileBytesB / 2),
                                          &map_b, cb, &full[s], static_cast<uint16_t>((1u << kClusterM) - 1));
            }
        }
        __syncwarp();
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
        const int cw = wg - 1;  // consumer warpgroup: rows 64 cw .. 64 cw + 63 of the tile
        float acc[64];
        for (int kb = 0; kb < k_blocks; ++kb) {
            const int s = kb % kStages;
            kc::wait_parity(&full[s], (kb / kStages) & 1);
#ifndef SKIP_WGMMA_FENCE
            wgmma_fence();  // before the first mma_async, and ordering any register access before the next
#endif
            const uint64_t da = smem_desc(kc::smem_addr(tile_a(s) + cw * 64 * 128));
            const uint64_t db = smem_desc(kc::smem_addr(tile_b(s)));
            // K slice k16 starts 32 bytes further into the rows: + 2 in the start-address field
            // (shared addresses stay below 2^18, so the field never carries into bit 14).
            for (int k16 = 0; k16 < kBK / 16; ++k16)
                wgmma_m64n128k16(acc, da + 2 * k16, db + 2 * k16, kb > 0 || k16 > 0);
            wgmma_commit();
            wgmma_wait<1>(acc);  // k-block kb - 1's group is retired: its stage may be refilled
            if (kb > 0) release_stage(empty, (kb - 1) % kStages);
        }
        wgmma_wait<0>(acc);
        release_stage(empty, (k_blocks - 1) % kStages);

        // Epilogue: each thread's 32 pairs of adjacent columns, straight from the registers.
        const int w = warp % 4, lane = threadIdx.x % 32;
        for (int i = 0; i < 64; i += 2) {
            const int row = m0 + 64 * cw + 16 * w + lane / 4 + 8 * ((i / 2) % 2);
            const int col = n0 + 8 * (i / 4) + 2 * (lane % 4);
            *reinterpret_cast<float2*>(&c[static_cast<size_t>(row) * n + col]) = make_float2(acc[i], acc[i + 1]);
        }
    }
    // The peer may still arrive on our empty barriers, and our multicasts land in its shared
    // memory: neither CTA exits before both are done.
    kc::cluster_sync();
}
