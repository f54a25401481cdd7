// The project's own program for `tmasim capture` (tests/capture/README.md): an ordinary CUDA
// runtime program, built with nvcc as a user builds theirs, with the three kinds of param a
// capture must recognise: a __grid_constant__ CUtensorMap encoded on the host through the
// driver's entry point (as CuTe does), plain pointers and scalars, and a params struct passed by
// value holding pointers and numbers. It checks its own results on the host and exits 0 when
// they are right, so a capture of it is a capture of a correct run.
#include <cuda.h>
#include <cuda/barrier>
#include <cuda/ptx>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

namespace ptx = cuda::ptx;
using barrier = cuda::barrier<cuda::thread_scope_block>;

constexpr int kRows = 64, kCols = 64, kTileRows = 16;

// CTA b loads rows [16b, 16b+16) of A through the map, then out[r][c] = tile[r][c] * factor + b.
__global__ void scale_tile(const __grid_constant__ CUtensorMap map, int* out, int factor) {
    __shared__ alignas(128) int tile[kTileRows][kCols];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    barrier::arrival_token token;
    if (threadIdx.x == 0) {
        const int32_t coords[2] = {0, static_cast<int32_t>(blockIdx.x) * kTileRows};
        ptx::cp_async_bulk_tensor(ptx::space_cluster, ptx::space_global, &tile, &map, coords,
                                  cuda::device::barrier_native_handle(bar));
        token = cuda::device::barrier_arrive_tx(bar, 1, sizeof(tile));
    } else {
        token = bar.arrive();
    }
    bar.wait(std::move(token));
    for (int e = threadIdx.x; e < kTileRows * kCols; e += blockDim.x) {
        const int r = e / kCols, c = e % kCols;
        out[(blockIdx.x * kTileRows + r) * kCols + c] = tile[r][c] * factor + static_cast<int>(blockIdx.x);
    }
}

struct Shift {
    const float* in;
    float* out;
    int n;
    float bias;
};

// out[i] = in[i] * 2 + bias, the params passed as one struct by value.
__global__ void shift_by_struct(Shift s) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < s.n) s.out[i] = s.in[i] * 2.0f + s.bias;
}

#define CHECK(x)                                                                        \
    do {                                                                                \
        cudaError_t e_ = (x);                                                           \
        if (e_ != cudaSuccess) {                                                        \
            std::fprintf(stderr, "capture_probe: %s: %s\n", #x, cudaGetErrorString(e_)); \
            return 2;                                                                   \
        }                                                                               \
    } while (0)

int main() {
    std::vector<int> a(kRows * kCols);
    for (int i = 0; i < kRows * kCols; ++i) a[i] = (i * 7) % 1000 - 500;
    int *d_a = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_a, a.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_out, a.size() * sizeof(int)));
    CHECK(cudaMemcpy(d_a, a.data(), a.size() * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_out, 0, a.size() * sizeof(int)));

    // cuTensorMapEncodeTiled through the runtime's driver entry point: no -lcuda.
    using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                                const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found));
    CUtensorMap map;
    const cuuint64_t dims[2] = {kCols, kRows}, strides[1] = {kCols * sizeof(int)};
    const cuuint32_t box[2] = {kCols, kTileRows}, unit[2] = {1, 1};
    if (reinterpret_cast<Encode>(fn)(&map, CU_TENSOR_MAP_DATA_TYPE_INT32, 2, d_a, dims, strides, box, unit,
                                     CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                     CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
        std::fprintf(stderr, "capture_probe: cuTensorMapEncodeTiled failed\n");
        return 2;
    }
    scale_tile<<<kRows / kTileRows, 128>>>(map, d_out, 3);
    CHECK(cudaGetLastError());

    const int n = 300;
    std::vector<float> in(n);
    for (int i = 0; i < n; ++i) in[i] = 0.25f * i - 10.0f;
    float *d_in = nullptr, *d_y = nullptr;
    CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    shift_by_struct<<<(n + 127) / 128, 128>>>(Shift{d_in, d_y, n, 1.5f});
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    std::vector<int> out(a.size());
    std::vector<float> y(n);
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(y.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < kRows * kCols; ++i) wrong += out[i] != a[i] * 3 + i / (kTileRows * kCols);
    for (int i = 0; i < n; ++i) wrong += y[i] != in[i] * 2.0f + 1.5f;
    std::printf("capture_probe: %s (%d wrong)\n", wrong ? "WRONG" : "ok", wrong);
    return wrong ? 1 : 0;
}
