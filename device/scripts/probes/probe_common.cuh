// What the TMA placement probes share: the driver's encode entry point, one tile load into a
// marked shared buffer, and the print of where each loaded 16-byte chunk came from.
#pragma once
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <cstdint>
#include <string>
#include <vector>

inline PFN_cuTensorMapEncodeTiled_v12000 load_encode() {
    PFN_cuTensorMapEncodeTiled_v12000 encode = nullptr;
    cudaDriverEntryPointQueryResult q;
    cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", (void**)&encode, cudaEnableDefault, &q);
    return encode;
}

// The probes' memory: a 1 MiB global source `g` with its host copy `h`, 8 KiB for the shared
// buffer's copy, and the status word. `random_bytes`: a fixed pseudo-random fill with no 0 and
// no 0xEE bytes, so every 16-byte chunk can be traced back (print_smem_sources); otherwise
// byte i holds i mod 251.
struct ProbeMemory {
    unsigned char* g = nullptr;
    std::vector<unsigned char> h;
    unsigned char* out = nullptr;
    int* status = nullptr;
};

inline ProbeMemory probe_memory(bool random_bytes) {
    ProbeMemory m;
    const size_t n = 1 << 20;
    cudaMalloc(&m.g, n);
    m.h.resize(n);
    uint64_t x = 12345;
    for (size_t i = 0; i < n; ++i) {
        if (!random_bytes) { m.h[i] = (unsigned char)(i % 251); continue; }
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        m.h[i] = (unsigned char)(x >> 56);
        if (m.h[i] == 0xEE || m.h[i] == 0) m.h[i] = 1 + (i % 200);
    }
    cudaMemcpy(m.g, m.h.data(), n, cudaMemcpyHostToDevice);
    cudaMalloc(&m.out, 8192);
    cudaMalloc(&m.status, 4);
    return m;
}

// One rank-`rank` (2..5) tile load at (c0..c4) into 8 KiB of shared memory pre-filled with 0xEE
// (untouched bytes stay 0xEE), waiting for `expect` bytes for up to 2e8 clocks, then `settle`
// clocks more so late bytes land too; status 1 = complete, 2 = timed out; smem copied to out.
__global__ void probe_load_kernel(const __grid_constant__ CUtensorMap map, int c0, int c1, int c2, int c3, int c4,
                                  int rank, unsigned expect, long long settle, unsigned char* out, int* status) {
    __shared__ alignas(1024) unsigned char smem[8192];
    __shared__ alignas(8) unsigned long long bar;
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) smem[i] = 0xEE;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
        unsigned s = (unsigned)__cvta_generic_to_shared(smem);
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b) : "memory");
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(expect) : "memory");
        if (rank == 2)
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                         ::"r"(s), "l"(&map), "r"(c0), "r"(c1), "r"(b) : "memory");
        else if (rank == 3)
            asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                         ::"r"(s), "l"(&map), "r"(c0), "r"(c1), "r"(c2), "r"(b) : "memory");
        else if (rank == 4)
            asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
                         ::"r"(s), "l"(&map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(b) : "memory");
        else
            asm volatile("cp.async.bulk.tensor.5d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5, %6}], [%7];"
                         ::"r"(s), "l"(&map), "r"(c0), "r"(c1), "r"(c2), "r"(c3), "r"(c4), "r"(b) : "memory");
        long long start = clock64();
        unsigned ok = 0;
        while (!ok && clock64() - start < 200000000LL) {
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                         : "=r"(ok) : "r"(b) : "memory");
        }
        *status = ok ? 1 : 2;
        long long t = clock64();
        while (clock64() - t < settle) {}
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) out[i] = smem[i];
}

// For each 16-byte chunk of smem[0, written): the offset of the identical chunk in the first
// 64 KiB of the global source `src` (its random fill makes chunks unique), "Z" for zeros (OOB
// fill), "." for untouched, "?" for not found; 16 chunks a line.
inline void print_smem_sources(const unsigned char* src, const unsigned char* smem, int written) {
    std::string line;
    for (int i = 0; i < written; i += 16) {
        long found = -2;
        bool zero = true, untouched = true;
        for (int j = 0; j < 16; ++j) { zero = zero && smem[i + j] == 0; untouched = untouched && smem[i + j] == 0xEE; }
        if (zero) found = -1;
        else if (untouched) found = -3;
        else for (size_t a = 0; a + 16 <= 65536; ++a) if (memcmp(&src[a], &smem[i], 16) == 0) { found = (long)a; break; }
        char buf[32];
        if (found == -1) snprintf(buf, sizeof buf, " Z");
        else if (found == -3) snprintf(buf, sizeof buf, " .");
        else if (found == -2) snprintf(buf, sizeof buf, " ?");
        else snprintf(buf, sizeof buf, " %ld", found);
        line += buf;
        if ((i / 16) % 16 == 15) { printf("   smem %4d:%s\n", i - 240, line.c_str()); line.clear(); }
    }
    if (!line.empty()) printf("   smem ....:%s\n", line.c_str());
}
