// Probe: how the H100/H200 TMA places interleaved boxes in shared memory.
#include "probe_common.cuh"
#include <cstdio>
#include <cstring>
#include <vector>
#include <string>
#include <cstdint>



// Store: smem byte i = (i % 250) + 1, then a 3-d tensor store at coords; global pre-zeroed.
__global__ void store_kernel(const __grid_constant__ CUtensorMap map, int c0, int c1, int c2) {
    __shared__ alignas(1024) unsigned char smem[8192];
    for (int i = threadIdx.x; i < 8192; i += blockDim.x) smem[i] = (unsigned char)((i % 250) + 1);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned s = (unsigned)__cvta_generic_to_shared(smem);
        asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.tile.bulk_group [%0, {%1, %2, %3}], [%4];"
                     ::"l"(&map), "r"(c0), "r"(c1), "r"(c2), "r"(s) : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}



struct Case {
    const char* name;
    CUtensorMapDataType type; int rank;
    uint64_t dims[5]; uint64_t strides[4]; uint32_t box[5]; uint32_t es[5];
    CUtensorMapInterleave il; CUtensorMapSwizzle sw; int coords[5]; bool store;
};

int main() {
    const PFN_cuTensorMapEncodeTiled_v12000 encode = load_encode();
    ProbeMemory mem = probe_memory(true);
    unsigned char* g = mem.g;
    const std::vector<unsigned char>& h = mem.h;
    unsigned char* out = mem.out;
    int* status = mem.status;
    auto U8 = CU_TENSOR_MAP_DATA_TYPE_UINT8;
    auto F16 = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    auto I16 = CU_TENSOR_MAP_INTERLEAVE_16B; auto I32 = CU_TENSOR_MAP_INTERLEAVE_32B; auto I0 = CU_TENSOR_MAP_INTERLEAVE_NONE;
    auto S0 = CU_TENSOR_MAP_SWIZZLE_NONE; auto S32 = CU_TENSOR_MAP_SWIZZLE_32B;
    auto F32 = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
    std::vector<Case> cases = {
        {"R1 rank5 il16 u8 dims[16,4,4,4,2] st[256,1024,4096,16384] box[16,2,2,2,2]", U8, 5, {16,4,4,4,2}, {256,1024,4096,16384}, {16,2,2,2,2}, {1,1,1,1,1}, I16, S0, {0,0,0,0,0}, false},
        {"R2 rank3 c1=8 (dims1=8)", U8, 3, {16,8,4}, {256,4096}, {16,4,2}, {1,1,1}, I16, S0, {0,8,0}, false},
        {"R3 rank3 c1=-1", U8, 3, {16,8,4}, {256,4096}, {16,4,2}, {1,1,1}, I16, S0, {0,-1,0}, false},
        {"R4 rank4 c2=4 (dims2=4)", U8, 4, {16,8,4,2}, {256,4096,16384}, {16,4,2,2}, {1,1,1,1}, I16, S0, {0,0,4,0}, false},
        {"R5 u8 il16 box0=24", U8, 3, {32,8,4}, {512,4096}, {24,1,2}, {1,1,1}, I16, S0, {0,0,0}, false},
        {"R6 u8 il16 box0=48", U8, 3, {64,8,4}, {1024,8192}, {48,1,2}, {1,1,1}, I16, S0, {0,0,0}, false},
        {"R7 u8 il32 sw32 box0=16", U8, 3, {16,8,4}, {512,4096}, {16,1,2}, {1,1,1}, I32, S32, {0,0,0}, false},
        {"R8 u8 il16 box0=16 es2=2 box2=4", U8, 3, {16,8,8}, {256,4096}, {16,1,4}, {1,1,2}, I16, S0, {0,0,0}, false},
        {"R9 f32 il16 box0=4", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, {4,8,4}, {256,4096}, {4,1,2}, {1,1,1}, I16, S0, {0,0,0}, false},
        {"R10 rank3 dims0=4 box0=16 (oob units)", U8, 3, {4,8,4}, {256,4096}, {16,1,2}, {1,1,1}, I16, S0, {0,0,0}, false},
        {"W1 store il16 u8 dims[16,8,4] st[256,4096] box[16,4,2]", U8, 3, {16,8,4}, {256,4096}, {16,4,2}, {1,1,1}, I16, S0, {0,1,1}, true},
        {"W2 store noil u8 dims[16,8,4] st[256,4096] box[16,4,2]", U8, 3, {16,8,4}, {256,4096}, {16,4,2}, {1,1,1}, I0, S0, {0,1,1}, true},
        {"V1 scenario interleave_16b_load: f32 dims[16,4,2] st[64,256] box[4,2,2] es[2,1,1] c=(1,1,0)", F32, 3, {16,4,2}, {64,256}, {4,2,2}, {2,1,1}, I16, S0, {1,1,0}, false},
        {"V2 same, store", F32, 3, {16,4,2}, {64,256}, {4,2,2}, {2,1,1}, I16, S0, {1,1,0}, true},
    };
    for (auto& c : cases) {
        CUtensorMap m;
        memset(&m, 0, sizeof m);
        CUresult r = encode(&m, c.type, c.rank, g, c.dims, c.strides, c.box, c.es, c.il, c.sw,
                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        printf("== %s: encode %d\n", c.name, (int)r);
        if (r != CUDA_SUCCESS) continue;
        if (c.store) {
            cudaMemset(g, 0, 65536);
            store_kernel<<<1, 32>>>(m, c.coords[0], c.coords[1], c.coords[2]);
            cudaError_t e = cudaDeviceSynchronize();
            if (e != cudaSuccess) { printf("   kernel error %s\n", cudaGetErrorString(e)); return 1; }
            std::vector<unsigned char> o(65536);
            cudaMemcpy(o.data(), g, 65536, cudaMemcpyDeviceToHost);
            // runs of written global bytes: [first, last] and the smem byte each run starts from
            for (int i = 0; i < 65536;) {
                if (o[i] == 0) { ++i; continue; }
                int j = i; while (j + 1 < 65536 && o[j + 1] != 0) ++j;
                printf("   global %d..%d <- smem value %d..%d\n", i, j, o[i], o[j]);
                i = j + 1;
            }
            cudaMemcpy(g, h.data(), 65536, cudaMemcpyHostToDevice);
            continue;
        }
        probe_load_kernel<<<1, 32>>>(m, c.coords[0], c.coords[1], c.coords[2], c.coords[3], c.coords[4], c.rank, 0, 2000000,
                                     out, status);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("   kernel error %s\n", cudaGetErrorString(e)); return 1; }
        std::vector<unsigned char> o(8192);
        cudaMemcpy(o.data(), out, 8192, cudaMemcpyDeviceToHost);
        int written = 0;
        for (int i = 0; i < 8192; ++i) if (o[i] != 0xEE) written = i + 1;
        probe_load_kernel<<<1, 32>>>(m, c.coords[0], c.coords[1], c.coords[2], c.coords[3], c.coords[4], c.rank, written,
                                     2000000, out, status);
        cudaDeviceSynchronize();
        int st; cudaMemcpy(&st, status, 4, cudaMemcpyDeviceToHost);
        printf("   %d bytes; expect_tx %d: %s\n", written, written, st == 1 ? "complete" : "TIMEOUT");
        print_smem_sources(h.data(), o.data(), written);
    }
    return 0;
}
