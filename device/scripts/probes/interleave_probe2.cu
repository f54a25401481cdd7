// Probe: how the H100/H200 TMA places interleaved boxes in shared memory.
#include "probe_common.cuh"
#include <cstdio>
#include <cstring>
#include <vector>
#include <string>
#include <cstdint>




struct Case {
    const char* name;
    CUtensorMapDataType type; int rank;
    uint64_t dims[4]; uint64_t strides[3]; uint32_t box[4]; uint32_t es[4];
    CUtensorMapInterleave il; CUtensorMapSwizzle sw; int coords[3];
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
    std::vector<Case> cases = {
        {"P1 il16 u8 dims[16,8,4] st[256,4096] box[16,4,2]", U8, 3, {16,8,4}, {256,4096}, {16,4,2}, {1,1,1}, I16, S0, {0,0,0}},
        {"P2 box[16,1,2]", U8, 3, {16,8,4}, {256,4096}, {16,1,2}, {1,1,1}, I16, S0, {0,0,0}},
        {"P3 box[16,8,2]", U8, 3, {16,8,4}, {256,4096}, {16,8,2}, {1,1,1}, I16, S0, {0,0,0}},
        {"P4 box[16,16,2] dims1=8", U8, 3, {16,8,4}, {256,4096}, {16,16,2}, {1,1,1}, I16, S0, {0,0,0}},
        {"P5 dims[16,64,4] box[16,32,2]", U8, 3, {16,64,4}, {256,16384}, {16,32,2}, {1,1,1}, I16, S0, {0,0,0}},
        {"P6 box[4,4,2]", U8, 3, {16,8,4}, {256,4096}, {4,4,2}, {1,1,1}, I16, S0, {0,0,0}},
        {"P7 box[16,4,2] c=(0,3,0)", U8, 3, {16,8,4}, {256,4096}, {16,4,2}, {1,1,1}, I16, S0, {0,3,0}},
        {"P8 dims[16,64,4] box[16,32,2] c=(0,17,0)", U8, 3, {16,64,4}, {256,16384}, {16,32,2}, {1,1,1}, I16, S0, {0,17,0}},
        {"P9 f16 dims[8,64,4] st[256,16384] box[8,16,2]", F16, 3, {8,64,4}, {256,16384}, {8,16,2}, {1,1,1}, I16, S0, {0,0,0}},
        {"P10 il32 sw32 u8 dims[16,8,4] st[256,4096] box[16,4,2]", U8, 3, {16,8,4}, {256,4096}, {16,4,2}, {1,1,1}, I32, S32, {0,0,0}},
        {"P11 rank4 dims[16,8,4,2] st[256,4096,16384] box[16,4,2,2]", U8, 4, {16,8,4,2}, {256,4096,16384}, {16,4,2,2}, {1,1,1,1}, I16, S0, {0,0,0}},
        {"P12 noil u8 dims[16,8,4] st[256,4096] box[16,4,2]", U8, 3, {16,8,4}, {256,4096}, {16,4,2}, {1,1,1}, I0, S0, {0,0,0}},
        {"P13 il16 box[16,4,2] c=(2,0,1)", U8, 3, {16,8,4}, {256,4096}, {16,4,2}, {1,1,1}, I16, S0, {2,0,1}},
        {"P14 il16 es[1,2,1] box[16,8,2]", U8, 3, {16,8,4}, {256,4096}, {16,8,2}, {1,2,1}, I16, S0, {0,0,0}},
        {"P15 il16 es[2,1,1] box[16,4,2]", U8, 3, {16,8,4}, {256,4096}, {16,4,2}, {2,1,1}, I16, S0, {0,0,0}},
        {"P16 il16 f16 box[4,4,2]", F16, 3, {8,8,4}, {256,4096}, {4,4,2}, {1,1,1}, I16, S0, {0,0,0}},
        {"P17 il16 u8 box[1,4,2]", U8, 3, {16,8,4}, {256,4096}, {1,4,2}, {1,1,1}, I16, S0, {0,0,0}},
    };
    for (auto& c : cases) {
        CUtensorMap m;
        memset(&m, 0, sizeof m);
        CUresult r = encode(&m, c.type, c.rank, g, c.dims, c.strides, c.box, c.es, c.il, c.sw,
                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        printf("== %s: encode %d\n", c.name, (int)r);
        if (r != CUDA_SUCCESS) continue;
        probe_load_kernel<<<1, 32>>>(m, c.coords[0], c.coords[1], c.coords[2], 0, 0, c.rank, 0, 2000000, out, status);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("   kernel error %s\n", cudaGetErrorString(e)); return 1; }
        std::vector<unsigned char> o(8192);
        cudaMemcpy(o.data(), out, 8192, cudaMemcpyDeviceToHost);
        int written = 0;
        for (int i = 0; i < 8192; ++i) if (o[i] != 0xEE) written = i + 1;
        probe_load_kernel<<<1, 32>>>(m, c.coords[0], c.coords[1], c.coords[2], 0, 0, c.rank, written, 2000000, out, status);
        cudaDeviceSynchronize();
        int st; cudaMemcpy(&st, status, 4, cudaMemcpyDeviceToHost);
        printf("   %d bytes; expect_tx %d: %s\n", written, written, st == 1 ? "complete" : "TIMEOUT");
        print_smem_sources(h.data(), o.data(), written);
    }
    return 0;
}
