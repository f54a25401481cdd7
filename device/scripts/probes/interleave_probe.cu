// Probe: how the H100/H200 TMA places interleaved boxes in shared memory.
#include "probe_common.cuh"
#include <cstdio>
#include <cstring>
#include <vector>
#include <cstdint>



struct Case {
    const char* name;
    CUtensorMapDataType type; int esize; int rank;
    uint64_t dims[3]; uint64_t strides[2]; uint32_t box[3]; uint32_t es[3];
    CUtensorMapInterleave il; CUtensorMapSwizzle sw; int coords[3]; unsigned expect;
    uint64_t addr_offset;
};

int main() {
    const PFN_cuTensorMapEncodeTiled_v12000 encode = load_encode();
    ProbeMemory mem = probe_memory(false);
    unsigned char* g = mem.g;
    const std::vector<unsigned char>& h = mem.h;
    unsigned char* out = mem.out;
    int* status = mem.status;
    using I = CUtensorMapInterleave; using S = CUtensorMapSwizzle;
    auto U8 = CU_TENSOR_MAP_DATA_TYPE_UINT8;
    auto F16 = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
    std::vector<Case> cases = {
        {"A il16 u8 full slice", U8, 1, 3, {16, 8, 4}, {16, 128}, {16, 4, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 128, 0},
        {"B il16 u8 box0=8", U8, 1, 3, {16, 8, 4}, {16, 128}, {8, 4, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 64, 0},
        {"B2 il16 u8 box0=8 expect128", U8, 1, 3, {16, 8, 4}, {16, 128}, {8, 4, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 128, 0},
        {"C il16 u8 box0=32", U8, 1, 3, {32, 8, 4}, {32, 256}, {32, 4, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 256, 0},
        {"D il16 u8 es0=2", U8, 1, 3, {16, 8, 4}, {16, 128}, {16, 4, 2}, {2,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 64, 0},
        {"D2 il16 u8 es0=2 expect128", U8, 1, 3, {16, 8, 4}, {16, 128}, {16, 4, 2}, {2,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 128, 0},
        {"E il32 sw32 u8", U8, 1, 3, {32, 8, 4}, {32, 256}, {32, 8, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_32B, CU_TENSOR_MAP_SWIZZLE_32B, {0,0,1}, 512, 0},
        {"F il32 swnone", U8, 1, 3, {32, 8, 4}, {32, 256}, {32, 8, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_32B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,0,1}, 512, 0},
        {"G il16 sw128 u8", U8, 1, 3, {16, 16, 4}, {16, 256}, {16, 16, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_128B, {0,0,1}, 512, 0},
        {"H rank2 il16", U8, 1, 2, {16, 8, 1}, {16, 0}, {16, 4, 1}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,0}, 64, 0},
        {"I noil es0=2", U8, 1, 3, {16, 8, 4}, {16, 128}, {16, 4, 2}, {2,1,1}, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 128, 0},
        {"J il16 dims0=12 oob", U8, 1, 3, {12, 8, 4}, {16, 128}, {16, 4, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 128, 0},
        {"K il16 f16 box0=8", F16, 2, 3, {8, 8, 4}, {16, 128}, {8, 4, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 128, 0},
        {"L il16 f16 box0=4", F16, 2, 3, {8, 8, 4}, {16, 128}, {4, 4, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 64, 0},
        {"M il32 stride16", U8, 1, 3, {16, 8, 4}, {16, 128}, {16, 4, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_32B, CU_TENSOR_MAP_SWIZZLE_32B, {0,1,1}, 128, 0},
        {"N il32 addr16", U8, 1, 3, {32, 8, 4}, {32, 256}, {32, 8, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_32B, CU_TENSOR_MAP_SWIZZLE_32B, {0,0,1}, 512, 16},
        {"O il16 box0=16 c0=4", U8, 1, 3, {16, 8, 4}, {16, 128}, {16, 4, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {4,1,1}, 128, 0},
        {"P il16 box0=8 c0=4", U8, 1, 3, {16, 8, 4}, {16, 128}, {8, 4, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {4,1,1}, 64, 0},
        {"Q il16 box0=4 u8", U8, 1, 3, {16, 8, 4}, {16, 128}, {4, 4, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 32, 0},
        {"R il16 es1=2", U8, 1, 3, {16, 8, 4}, {16, 128}, {16, 4, 2}, {1,2,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, {0,1,1}, 64, 0},
        {"S il32 sw32 box0=16", U8, 1, 3, {32, 8, 4}, {32, 256}, {16, 8, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_32B, CU_TENSOR_MAP_SWIZZLE_32B, {0,0,1}, 256, 0},
        {"T il16 sw32 box0=16 u8", U8, 1, 3, {16, 16, 4}, {16, 256}, {16, 16, 2}, {1,1,1}, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_32B, {0,0,1}, 512, 0},
    };
    for (auto& c : cases) {
        CUtensorMap m;
        memset(&m, 0, sizeof m);
        CUresult r = encode(&m, c.type, c.rank, g + c.addr_offset, c.dims, c.strides, c.box, c.es, c.il, c.sw,
                            CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
        printf("== %s: encode %d\n", c.name, (int)r);
        if (r != CUDA_SUCCESS) continue;
        probe_load_kernel<<<1, 32>>>(m, c.coords[0], c.coords[1], c.coords[2], 0, 0, c.rank, c.expect, 0, out, status);
        cudaError_t e = cudaDeviceSynchronize();
        if (e != cudaSuccess) { printf("   kernel error %s\n", cudaGetErrorString(e)); return 1; }
        int st; cudaMemcpy(&st, status, 4, cudaMemcpyDeviceToHost);
        std::vector<unsigned char> o(8192);
        cudaMemcpy(o.data(), out, 8192, cudaMemcpyDeviceToHost);
        int last = 0;
        for (int i = 0; i < 8192; ++i) if (o[i] != 0xEE) last = i;
        printf("   status %s, last written byte %d\n", st == 1 ? "complete" : "TIMEOUT", last);
        for (int i = 0; i <= last && i < 1024; i += 16) {
            printf("   %4d:", i);
            for (int j = 0; j < 16; ++j) printf(" %3d", o[i + j] == 0xEE ? -1 : o[i + j]);
            printf("\n");
        }
    }
    return 0;
}
