// Host references for the correct kernels of scenarios/catalog/kernels/: each function below
// restates what its .cu computes, element by element, from the scenario's initial bytes and its
// params (sizes come from the scenario wherever the kernel takes them as params; the constants
// the kernels fix at compile time are repeated here, with the line of the .cu they mirror).
#include "kernel_references.h"

#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>

#include "scenarios/values.h"

using tmasim::GlobalTensor;
using tmasim::Scenario;

namespace {

using Bytes = std::vector<uint8_t>;
using Images = std::map<std::string, Bytes>;

const GlobalTensor& global(const Scenario& s, const std::string& name) {
    const GlobalTensor* t = s.find_global(name);
    if (!t) throw std::invalid_argument("kernel_reference: scenario " + s.name + " has no global tensor " + name);
    return *t;
}
Bytes initial(const Scenario& s, const std::string& name) { return tmasim::initial_bytes(global(s, name)); }
// The integer value of scalar param i (the kernel's .param order).
int64_t param(const Scenario& s, size_t i) {
    if (!s.kernel || i >= s.kernel->params.size() || s.kernel->params[i].kind != tmasim::KernelParam::Kind::scalar)
        throw std::invalid_argument("kernel_reference: scenario " + s.name + " has no scalar param " + std::to_string(i));
    return s.kernel->params[i].integer;
}
void require(bool ok, const Scenario& s, const char* what) {
    if (!ok) throw std::invalid_argument("kernel_reference: scenario " + s.name + ": " + what);
}

int64_t geti(const Bytes& b, const GlobalTensor& t, int64_t e) { return tmasim::load_element_int(b.data(), t.type, e); }
void seti(Bytes& b, const GlobalTensor& t, int64_t e, int64_t v) { tmasim::store_element_int(b.data(), t.type, e, v); }
float getf(const Bytes& b, const GlobalTensor& t, int64_t e) { return tmasim::load_element_float(b.data(), t.type, e); }
void setf(Bytes& b, const GlobalTensor& t, int64_t e, float v) { tmasim::store_element_float(b.data(), t.type, e, v); }

// ldgsts_pipeline.cu: batches * gridDim.x batches of 896 ints, out = 2 * in.
Images ldgsts_pipeline(const Scenario& s) {
    const GlobalTensor &in_t = global(s, "in"), &out_t = global(s, "out");
    const Bytes in = initial(s, "in");
    Bytes out = initial(s, "out");
    const int64_t n = param(s, 2) * s.launch.num_ctas() * 896;  // kBatchInts = 7 * 128
    require(n <= in_t.num_elements() && n <= out_t.num_elements(), s, "batches past the tensors");
    for (int64_t e = 0; e < n; ++e) seti(out, out_t, e, 2 * geti(in, in_t, e));
    return {{"out", out}};
}

// bulk_copy_1d.cu: data[offset .. offset + 1023] += 1 (buf_len = 1024).
Images bulk_copy_1d(const Scenario& s) {
    const GlobalTensor& t = global(s, "data");
    Bytes data = initial(s, "data");
    const int64_t offset = param(s, 1);
    require(offset + 1024 <= t.num_elements(), s, "offset past the tensor");
    for (int64_t e = offset; e < offset + 1024; ++e) seti(data, t, e, geti(data, t, e) + 1);
    return {{"data", data}};
}

// tma_2d_load_modify_store.cu: thread t adds t to smem_buffer[0][t], the tile at column x, row y
// goes back through the same map: A[y][x + t] += t for every thread t of the block.
Images tma_2d_load_modify_store(const Scenario& s) {
    const GlobalTensor& t = global(s, "A");
    Bytes a = initial(s, "A");
    const int64_t x = param(s, 1), y = param(s, 2), cols = t.shape[1];
    require(s.launch.block <= 64 && x + s.launch.block <= cols && y < t.shape[0], s, "tile outside A");
    for (int64_t i = 0; i < s.launch.block; ++i) seti(a, t, y * cols + x + i, geti(a, t, y * cols + x + i) + i);
    return {{"A", a}};
}

// tma_prefetch_pipeline.cu: every element of the gridDim.x * tiles tiles of 16 x 64: out = 2 * in + 1.
Images tma_prefetch_pipeline(const Scenario& s) {
    const GlobalTensor &in_t = global(s, "in"), &out_t = global(s, "out");
    const Bytes in = initial(s, "in");
    Bytes out = initial(s, "out");
    const int64_t n = param(s, 2) * s.launch.num_ctas() * 16 * 64;
    require(n <= in_t.num_elements() && in_t.shape[1] == 64, s, "tiles past the tensor");
    for (int64_t e = 0; e < n; ++e) seti(out, out_t, e, 2 * geti(in, in_t, e) + 1);
    return {{"out", out}};
}

// tma_load_store_ring.cu: one block, `tiles` tiles of 16 x 64 stored back through out_map: 3 * in + 1.
Images tma_load_store_ring(const Scenario& s) {
    const GlobalTensor &in_t = global(s, "in"), &out_t = global(s, "out");
    const Bytes in = initial(s, "in");
    Bytes out = initial(s, "out");
    const int64_t n = param(s, 2) * 16 * 64;
    require(s.launch.num_ctas() == 1 && n <= in_t.num_elements(), s, "one block, tiles inside the tensor");
    for (int64_t e = 0; e < n; ++e) seti(out, out_t, e, 3 * geti(in, in_t, e) + 1);
    return {{"out", out}};
}

// warp_specialized_pc.cu: `tiles` tiles of 32 x 32 f32, out = 2 * x + 1 (2 * x is exact, so the
// device's FMA and this multiply-then-add round alike).
Images warp_specialized_pc(const Scenario& s) {
    const GlobalTensor &in_t = global(s, "in"), &out_t = global(s, "out");
    const Bytes in = initial(s, "in");
    Bytes out = initial(s, "out");
    const int64_t n = param(s, 2) * 32 * 32;
    require(n <= in_t.num_elements(), s, "tiles past the tensor");
    for (int64_t e = 0; e < n; ++e) setf(out, out_t, e, 2.0f * getf(in, in_t, e) + 1.0f);
    return {{"out", out}};
}

// tma_multicast.cu: CTA c (rank c % 4 of cluster c / 4) writes its cluster's 32 x 32 tile
// (rows 32 (c / 4) ..) plus 1000 * rank to rows 32 c .. 32 c + 31 of out.
Images tma_multicast(const Scenario& s) {
    const GlobalTensor &in_t = global(s, "in"), &out_t = global(s, "out");
    const Bytes in = initial(s, "in");
    Bytes out = initial(s, "out");
    const int cluster = s.launch.cluster_size();
    require(cluster == 4 && in_t.shape[1] == 32 && out_t.shape[1] == 32, s, "clusters of 4, 32-wide tiles");
    for (int64_t c = 0; c < s.launch.num_ctas(); ++c)
        for (int64_t e = 0; e < 32 * 32; ++e)
            seti(out, out_t, c * 1024 + e, geti(in, in_t, (c / cluster) * 1024 + e) + 1000 * (c % cluster));
    return {{"out", out}};
}

// tma_multicast_refill.cu: round r's 16 x 32 tile of in (rows 16 r ..) plus 1000 * rank, for
// rank k of the one cluster of 2, at tile index r * 2 + k of out.
Images tma_multicast_refill(const Scenario& s) {
    const GlobalTensor &in_t = global(s, "in"), &out_t = global(s, "out");
    const Bytes in = initial(s, "in");
    Bytes out = initial(s, "out");
    const int cluster = s.launch.cluster_size();
    require(cluster == 2 && s.launch.num_ctas() == 2 && in_t.shape[1] == 32 && out_t.shape[1] == 32, s,
            "one cluster of 2, 32-wide tiles");
    const int64_t tile = 16 * 32, rounds = in_t.shape[0] / 16;
    for (int64_t r = 0; r < rounds; ++r)
        for (int64_t k = 0; k < cluster; ++k)
            for (int64_t e = 0; e < tile; ++e)
                seti(out, out_t, (r * cluster + k) * tile + e, geti(in, in_t, r * tile + e) + 1000 * k);
    return {{"out", out}};
}

// st_async_ring.cu: kIters = 4 iterations; in iteration it rank r sends r * 4096 + it * 64 + tid
// to rank r + 1; each thread sums what it received from its previous neighbour.
Images st_async_ring(const Scenario& s) {
    const GlobalTensor& out_t = global(s, "out");
    Bytes out = initial(s, "out");
    const int ring = s.launch.cluster_size(), block = s.launch.block;
    for (int64_t c = 0; c < s.launch.num_ctas(); ++c) {
        const int64_t prev = (c % ring + ring - 1) % ring;
        for (int t = 0; t < block; ++t) {
            int64_t sum = 0;
            for (int it = 0; it < 4; ++it) sum += prev * 4096 + it * 64 + t;
            seti(out, out_t, c * block + t, sum);
        }
    }
    return {{"out", out}};
}

// tilus_cp_async_copy.cu: C = A @ B, A [m, k], B [k, n], f32 accumulation in k order, one f16
// rounding at the end (f16 * f16 is exact in f32, so the device's FMA rounds as acc + a * b).
Images tilus_cp_async_copy(const Scenario& s) {
    const GlobalTensor &a_t = global(s, "A"), &b_t = global(s, "B"), &c_t = global(s, "C");
    const Bytes a = initial(s, "A"), b = initial(s, "B");
    Bytes c = initial(s, "C");
    const int64_t m = param(s, 0), n = param(s, 1), k = param(s, 2);
    require(a_t.num_elements() == m * k && b_t.num_elements() == k * n && c_t.num_elements() == m * n, s,
            "A [m, k], B [k, n], C [m, n]");
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (int64_t kk = 0; kk < k; ++kk) acc = acc + getf(a, a_t, i * k + kk) * getf(b, b_t, kk * n + j);
            setf(c, c_t, i * n + j, acc);
        }
    return {{"C", c}};
}

// dsmem_reduce.cu: out[q][j] = sum over ranks r of (r + 1) * in[4 q + r][j].
Images dsmem_reduce(const Scenario& s) {
    const GlobalTensor &in_t = global(s, "in"), &out_t = global(s, "out");
    const Bytes in = initial(s, "in");
    Bytes out = initial(s, "out");
    const int cluster = s.launch.cluster_size();
    const int64_t row = in_t.shape[1];
    for (int64_t q = 0; q < s.launch.num_ctas() / cluster; ++q)
        for (int64_t j = 0; j < row; ++j) {
            int64_t sum = 0;
            for (int r = 0; r < cluster; ++r) sum += (r + 1) * geti(in, in_t, (q * cluster + r) * row + j);
            seti(out, out_t, q * row + j, static_cast<int32_t>(sum));
        }
    return {{"out", out}};
}

// ldmatrix_transpose.cu: out [64, rows] = in [rows, 64] transposed, bit for bit.
Images ldmatrix_transpose(const Scenario& s) {
    const GlobalTensor &in_t = global(s, "in"), &out_t = global(s, "out");
    const Bytes in = initial(s, "in");
    Bytes out = initial(s, "out");
    const int64_t rows = param(s, 2), cols = in_t.shape[1];
    require(cols == 64 && out_t.shape[0] == cols && out_t.shape[1] == rows && rows == 64 * s.launch.num_ctas(), s,
            "in [64 blocks, 64], out its transpose");
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) std::memcpy(&out[(j * rows + i) * 2], &in[(i * cols + j) * 2], 2);
    return {{"out", out}};
}

// warp_shfl_reduce.cu: per warp, each lane's ((x0 + x1) + x2) + x3, then five butterfly rounds
// v[l] = v[l] + v[l ^ mask] for mask 16, 8, 4, 2, 1; lane 0's value.
Images warp_shfl_reduce(const Scenario& s) {
    const GlobalTensor &in_t = global(s, "in"), &out_t = global(s, "out");
    const Bytes in = initial(s, "in");
    Bytes out = initial(s, "out");
    const int64_t warps = static_cast<int64_t>(s.launch.num_ctas()) * s.launch.block / 32;
    require(in_t.num_elements() == warps * 128 && out_t.num_elements() == warps, s, "4 floats a thread, 1 a warp");
    for (int64_t w = 0; w < warps; ++w) {
        float v[32];
        for (int l = 0; l < 32; ++l) {
            const int64_t e = (w * 32 + l) * 4;
            v[l] = ((getf(in, in_t, e) + getf(in, in_t, e + 1)) + getf(in, in_t, e + 2)) + getf(in, in_t, e + 3);
        }
        for (int mask = 16; mask > 0; mask >>= 1) {
            float next[32];
            for (int l = 0; l < 32; ++l) next[l] = v[l] + v[l ^ mask];
            std::memcpy(v, next, sizeof v);
        }
        setf(out, out_t, w, v[0]);
    }
    return {{"out", out}};
}

// bulk_reduce_add.cu: out[j] += the sum of column j over every CTA's 8 x 256 slice (integer adds:
// the order the CTAs' reductions meet in does not matter).
Images bulk_reduce_add(const Scenario& s) {
    const GlobalTensor &p_t = global(s, "partials"), &out_t = global(s, "out");
    const Bytes p = initial(s, "partials");
    Bytes out = initial(s, "out");
    require(p_t.num_elements() == s.launch.num_ctas() * 8 * 256 && out_t.num_elements() == 256, s,
            "an 8 x 256 slice a CTA");
    for (int64_t j = 0; j < 256; ++j) {
        int64_t sum = geti(out, out_t, j);
        for (int64_t r = 0; r < p_t.num_elements() / 256; ++r) sum += geti(p, p_t, r * 256 + j);
        seti(out, out_t, j, static_cast<int32_t>(sum));
    }
    return {{"out", out}};
}

// device_encoded_tensormap.cu: the first load (box 4 x 128 at (0, 0) of G) into rows 0-3 of out,
// the second (same box at column 128, row 4 of G2) into rows 4-7. gmap, the CUtensorMap object
// the kernel writes, holds the driver's opaque encoding and has no reference.
Images device_encoded_tensormap(const Scenario& s) {
    const GlobalTensor &g_t = global(s, "G"), &out_t = global(s, "out");
    const Bytes g = initial(s, "G"), g2 = initial(s, "G2");
    Bytes out = initial(s, "out");
    require(g_t.shape[1] == 256 && out_t.shape[0] == 8 && out_t.shape[1] == 128, s, "G [8, 256], out [8, 128]");
    for (int64_t r = 0; r < 4; ++r) {
        std::memcpy(&out[r * 128], &g[r * 256], 128);
        std::memcpy(&out[(4 + r) * 128], &g2[(4 + r) * 256 + 128], 128);
    }
    return {{"out", out}};
}

// gemm_ws_tma_wgmma.cu: C [m, n] = A [m, k] * B [n, k]^T in f32, k ascending, one product then
// one add per k (no FMA). The products of f16 values are exact in f32; only the adds round.
Images gemm_ws_tma_wgmma(const Scenario& s) {
    const GlobalTensor &a_t = global(s, "A"), &b_t = global(s, "B"), &c_t = global(s, "C");
    const Bytes a = initial(s, "A"), b = initial(s, "B");
    Bytes c = initial(s, "C");
    const int64_t m = param(s, 3), n = param(s, 4), k = param(s, 5);
    require(a_t.num_elements() == m * k && b_t.num_elements() == n * k && c_t.num_elements() == m * n, s,
            "A [m, k], B [n, k], C [m, n]");
    std::vector<float> af(m * k), bf(n * k);
    for (int64_t e = 0; e < m * k; ++e) af[e] = getf(a, a_t, e);
    for (int64_t e = 0; e < n * k; ++e) bf[e] = getf(b, b_t, e);
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            float acc = 0.0f;
            for (int64_t kk = 0; kk < k; ++kk) {
                const float p = af[i * k + kk] * bf[j * k + kk];
                acc = acc + p;
            }
            setf(c, c_t, i * n + j, acc);
        }
    return {{"C", c}};
}

// tma_gather4_rows.cu: out[i][j] = table[idx[i]][j] for the 16 indices (rows wholly inside the table).
Images tma_gather4_rows(const Scenario& s) {
    const GlobalTensor &t_t = global(s, "table"), &i_t = global(s, "idx"), &out_t = global(s, "out");
    const Bytes table = initial(s, "table"), idx = initial(s, "idx");
    Bytes out = initial(s, "out");
    const int64_t cols = t_t.shape[1];
    require(i_t.num_elements() == 16 && out_t.num_elements() == 16 * cols && cols == 64, s, "16 rows of 64");
    for (int64_t i = 0; i < 16; ++i) {
        const int64_t row = geti(idx, i_t, i);
        require(row >= 0 && row < t_t.shape[0], s, "an index outside the table");
        std::memcpy(&out[i * cols * 4], &table[row * cols * 4], cols * 4);
    }
    return {{"out", out}};
}

const std::map<std::string, std::function<Images(const Scenario&)>>& references() {
    static const std::map<std::string, std::function<Images(const Scenario&)>> table = {
        {"kernel_ldgsts_pipeline", ldgsts_pipeline},
        {"kernel_bulk_copy_1d", bulk_copy_1d},
        {"kernel_tma_2d_load_modify_store", tma_2d_load_modify_store},
        {"kernel_tma_prefetch_pipeline", tma_prefetch_pipeline},
        {"kernel_tma_load_store_ring", tma_load_store_ring},
        {"kernel_warp_specialized_pc", warp_specialized_pc},
        {"kernel_tma_multicast", tma_multicast},
        {"kernel_tma_multicast_refill", tma_multicast_refill},
        {"kernel_st_async_ring", st_async_ring},
        {"kernel_tilus_cp_async_copy", tilus_cp_async_copy},
        {"kernel_dsmem_reduce", dsmem_reduce},
        {"kernel_ldmatrix_transpose", ldmatrix_transpose},
        {"kernel_warp_shfl_reduce", warp_shfl_reduce},
        {"kernel_bulk_reduce_add", bulk_reduce_add},
        {"kernel_device_encoded_tensormap", device_encoded_tensormap},
        {"kernel_gemm_ws_tma_wgmma", gemm_ws_tma_wgmma},
        {"kernel_tma_gather4_rows", tma_gather4_rows},
    };
    return table;
}

}  // namespace

std::map<std::string, std::vector<uint8_t>> kernel_reference(const Scenario& s) {
    return references().at(s.name)(s);
}

std::map<std::string, int> kernel_reference_ulp_bounds(const Scenario& s) {
    // kernel_gemm_ws_tma_wgmma: C elements are sums of 512 positive products (inputs in [0, 1)),
    // about 128. This reference adds one product at a time; the model sums each wgmma's 16
    // products, then adds D (model/copy/wgmma_compute.cpp); the tensor cores use an order (and
    // internal rounding) of their own. Measured on this scenario: the model's order and the
    // exactly rounded sum are at most 21 ulps from this reference (test_kernel_references.cpp
    // checks both); an H200 running the kernel (cubin from the NVRTC PTX) was at most 63 ulps
    // from it. 128 leaves room for another GPU's rounding.
    if (s.name == "kernel_gemm_ws_tma_wgmma") return {{"C", 128}};
    return {};
}

int64_t f32_ulp_distance(float a, float b) {
    int32_t ia, ib;
    std::memcpy(&ia, &a, 4);
    std::memcpy(&ib, &b, 4);
    if (ia < 0) ia = INT32_MIN - ia;
    if (ib < 0) ib = INT32_MIN - ib;
    return std::llabs(static_cast<int64_t>(ia) - ib);
}
