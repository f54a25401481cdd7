// Which misaligned or out-of-rule TMA/bulk operands does Hopper trap on? Each case is one
// kernel; run each in its own process (a trap kills the context):
//   nvcc -arch=sm_90a -o probe misaligned_probe.cu -lcuda && ./probe CASE
// It prints "CASE: ok <checksum>" or "CASE: <CUDA error name>". The answers decide which
// misalignments the model reports as `fault` (traps) and which the validator refuses (UB
// that runs). Used by device/scripts/probe_misaligned.sh.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>

struct Args {
    const float* src;
    float* out;
    int shift_global;  // bytes added to the global source address
    int shift_smem;    // bytes added to the shared destination address
    int size;          // bulk copy bytes
    int barrier_shift; // bytes added to the mbarrier's address
    int coord_inner;   // tensor load inner coordinate
    int mode;          // 0 bulk, 1 tensor load, 2 tensor store
};

__device__ __forceinline__ unsigned smem_addr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__global__ void probe_kernel(const __grid_constant__ CUtensorMap map, Args a) {
    __shared__ alignas(1024) unsigned char smem[8192];
    __shared__ alignas(16) unsigned long long bars[4];
    unsigned bar = smem_addr(bars) + a.barrier_shift;
    unsigned dst = smem_addr(smem) + a.shift_smem;
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        if (a.mode == 0) {
            const char* g = reinterpret_cast<const char*>(a.src) + a.shift_global;
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(a.size) : "memory");
            asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                         ::"r"(dst), "l"(g), "r"(a.size), "r"(bar) : "memory");
        } else if (a.mode == 1) {
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(a.size) : "memory");
            asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                         " [%0], [%1, {%2, %3}], [%4];"
                         ::"r"(dst), "l"(&map), "r"(a.coord_inner), "r"(0), "r"(bar) : "memory");
        } else {
            for (int i = 0; i < 1024; ++i) smem[i] = 1;
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
                         ::"l"(&map), "r"(a.coord_inner), "r"(0), "r"(dst) : "memory");
            asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
            asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
        }
    }
    unsigned done = 0;
    long long spins = 0;
    while (!done && ++spins < 200000000LL)
        asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                     : "=r"(done) : "r"(bar) : "memory");
    if (!done) { if (threadIdx.x == 0) a.out[0] = -1.0f; return; }
    __syncthreads();
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) a.out[i] = static_cast<float>(smem[i + a.shift_smem]);
}

int main(int argc, char** argv) {
    if (argc != 2) { std::fprintf(stderr, "usage: probe CASE\n"); return 2; }
    const std::string c = argv[1];
    Args a{};
    a.size = 256;
    if (c == "control_bulk") {}
    else if (c == "bulk_global_plus8") a.shift_global = 8;
    else if (c == "bulk_global_plus4") a.shift_global = 4;
    else if (c == "bulk_smem_plus8") a.shift_smem = 8;
    else if (c == "bulk_size_24") a.size = 24;
    else if (c == "mbarrier_plus4") a.barrier_shift = 4;
    else if (c == "control_tensor") { a.mode = 1; }
    else if (c == "tensor_smem_plus16") { a.mode = 1; a.shift_smem = 16; }
    else if (c == "tensor_smem_plus16_swizzle128") { a.mode = 1; a.shift_smem = 16; }
    else if (c == "tensor_inner_coord_1") { a.mode = 1; a.coord_inner = 1; }
    else if (c == "tensor_store_inner_coord_1") { a.mode = 2; a.coord_inner = 1; }
    else if (c == "tensor_store_smem_plus16") { a.mode = 2; a.shift_smem = 16; }
    else if (c == "tensor_store_neg_coord") { a.mode = 2; a.coord_inner = -8; }
    else { std::fprintf(stderr, "unknown case %s\n", c.c_str()); return 2; }

    float* src = nullptr;
    float* out = nullptr;
    cudaMalloc(&src, 1 << 20);
    cudaMalloc(&out, 4096 * 4);
    cudaMemset(src, 0, 1 << 20);
    a.src = src;
    a.out = out;
    CUtensorMap map;
    std::memset(&map, 0, sizeof map);
    cuuint64_t dims[2] = {256, 256};
    cuuint64_t strides[1] = {256 * 4};
    cuuint32_t box[2] = {32, 8};
    cuuint32_t estr[2] = {1, 1};
    const bool swz = c.find("swizzle128") != std::string::npos;
    CUresult r = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, src, dims, strides, box, estr,
                                        CU_TENSOR_MAP_INTERLEAVE_NONE,
                                        swz ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
                                        CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) { std::printf("%s: encode failed %d\n", c.c_str(), int(r)); return 1; }
    if (a.mode == 1) a.size = 32 * 8 * 4;
    probe_kernel<<<1, 32>>>(map, a);
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { std::printf("%s: %s (%s)\n", c.c_str(), cudaGetErrorName(e), cudaGetErrorString(e)); return 0; }
    float host[4];
    cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost);
    std::printf("%s: %s\n", c.c_str(), host[0] < 0 ? "hang (barrier never completed; watchdog)" : "ok, completed");
    return 0;
}
