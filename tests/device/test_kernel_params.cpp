// A kernel scenario's param buffer (device/kernels/kernel_params.h) against its PTX's `.param` layout,
// for every catalog kernel and by hand for three of them, and the launch dimensions.
#include <catch2/catch.hpp>

#include <cstring>

#include "device/kernels/kernel_params.h"
#include "kernel_test_support.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {

// Fake device values: tensor i at 0x7f00_0000_0000 + (i + 1) MiB, map j's bytes all 0xa0 + j.
ParamSources fake_sources(const Scenario& s) {
    ParamSources src;
    for (size_t i = 0; i < s.globals.size(); ++i) src.global_address[s.globals[i].name] = 0x7f0000000000ull + (i + 1) * 0x100000ull;
    for (size_t j = 0; j < s.tensormaps.size(); ++j) {
        TensorMapBytes b;
        b.fill(static_cast<uint8_t>(0xa0 + j));
        src.tensor_map[s.tensormaps[j].name] = b;
    }
    return src;
}

uint64_t u64_at(const std::vector<uint8_t>& b, size_t at) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | b.at(at + static_cast<size_t>(i));
    return v;
}

// The bytes `p` must put at `at` (a blob's fields one by one), marking them in `covered`.
void check_value(const KernelParam& p, const ParamSources& src, const std::vector<uint8_t>& b, size_t at,
                 std::vector<bool>& covered) {
    const size_t n = static_cast<size_t>(p.size_bytes());
    for (size_t i = 0; i < n && p.kind != KernelParam::Kind::blob; ++i) covered.at(at + i) = true;
    switch (p.kind) {
        case KernelParam::Kind::global: CHECK(u64_at(b, at) == src.global_address.at(p.name) + uint64_t(p.offset)); break;
        case KernelParam::Kind::tensormap:
            CHECK(std::memcmp(b.data() + at, src.tensor_map.at(p.name).data(), 128) == 0);
            CHECK(at % 64 == 0);
            break;
        case KernelParam::Kind::scalar:
        case KernelParam::Kind::bytes: CHECK(std::vector<uint8_t>(b.begin() + long(at), b.begin() + long(at + n)) == p.value_bytes()); break;
        case KernelParam::Kind::blob:
            for (const auto& [f_at, f] : p.fields) check_value(f, src, b, at + static_cast<size_t>(f_at), covered);
            break;
    }
}

const Scenario& catalog_kernel(const std::string& name) {
    static std::map<std::string, Scenario> bound;
    auto it = bound.find(name);
    if (it == bound.end())
        it = bound.emplace(name, test::load_bound(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/kernels/" + name + ".yaml")).first;
    return it->second;
}

ParamBuffer buffer_of(const Scenario& s) {
    const ptx::BoundKernel k = ptx::parse_bound_kernel(s);
    return build_param_buffer(s, *k.entry, fake_sources(s));
}

}  // namespace

TEST_CASE("every catalog kernel's param buffer holds each param at its PTX offset, padding zero", "[device][kernel_params]") {
    const std::vector<Scenario> kernels = test::loadable_kernels();
    CHECK(kernels.size() >= 16);
    for (const Scenario& s : kernels) {
        INFO(s.name);
        const ptx::BoundKernel k = ptx::parse_bound_kernel(s);
        const ParamSources src = fake_sources(s);
        const ParamBuffer b = build_param_buffer(s, *k.entry, src);
        REQUIRE(static_cast<int64_t>(b.bytes.size()) == k.entry->param_bytes());
        REQUIRE(b.offsets.size() == k.entry->params.size());
        std::vector<bool> covered(b.bytes.size(), false);
        for (size_t i = 0; i < b.offsets.size(); ++i) {
            INFO("param " << i);
            CHECK(static_cast<int64_t>(b.offsets[i]) == k.entry->params[i].offset);
            check_value(s.kernel->params[i], src, b.bytes, b.offsets[i], covered);
        }
        for (size_t i = 0; i < covered.size(); ++i)
            if (!covered[i] && b.bytes[i] != 0) FAIL("byte " << i << " lies in no param but is " << int(b.bytes[i]));
    }
}

TEST_CASE("param buffers by hand: the GEMM, tilus' padding, the tensormap_params blob", "[device][kernel_params]") {
    {
        const ParamBuffer b = buffer_of(catalog_kernel("gemm_ws_tma_wgmma"));
        CHECK(b.offsets == std::vector<size_t>{0, 128, 256, 264, 268, 272});
        CHECK(b.bytes.size() == 276);
        CHECK(b.bytes[0] == 0xa0);    // map_a
        CHECK(b.bytes[128] == 0xa1);  // map_b
        CHECK(u64_at(b.bytes, 256) == 0x7f0000300000ull);  // C, the third tensor
        CHECK(std::vector<uint8_t>(b.bytes.begin() + 264, b.bytes.end()) ==
              std::vector<uint8_t>{0, 1, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0});  // m 256, n 256, k 512
    }
    {
        // Three i32 then three pointers: the first pointer is aligned up to byte 16.
        const ParamBuffer b = buffer_of(catalog_kernel("tilus_cp_async_copy"));
        CHECK(b.offsets == std::vector<size_t>{0, 4, 8, 16, 24, 32});
        CHECK(b.bytes.size() == 40);
        CHECK(std::vector<uint8_t>(b.bytes.begin() + 8, b.bytes.begin() + 16) == std::vector<uint8_t>{64, 0, 0, 0, 0, 0, 0, 0});
        CHECK(u64_at(b.bytes, 16) == 0x7f0000100000ull);
    }
    {
        // The blob at 128: G's address at +0, rank 2 at +8, box_dim[0] 128 at +12, global_dim[0] 256 at +32.
        const ParamBuffer b = buffer_of(catalog_kernel("device_encoded_tensormap"));
        CHECK(b.offsets == std::vector<size_t>{0, 128, 256, 264, 272});
        CHECK(u64_at(b.bytes, 128) == 0x7f0000200000ull);  // G, the second tensor
        CHECK(std::vector<uint8_t>(b.bytes.begin() + 136, b.bytes.begin() + 144) == std::vector<uint8_t>{2, 0, 0, 0, 128, 0, 0, 0});
        CHECK(u64_at(b.bytes, 160) == 256);
        CHECK(b.bytes[150] == 0);  // between the fields
    }
}

TEST_CASE("a param the device cannot write names its key and why", "[device][kernel_params]") {
    Scenario s = catalog_kernel("gemm_ws_tma_wgmma");
    const ptx::BoundKernel k = ptx::parse_bound_kernel(s);
    const ParamSources src = fake_sources(s);
    {
        Scenario t = s;
        t.kernel->params[2].offset = 256 * 256 * 4 + 4;
        CHECK_THROWS_WITH(build_param_buffer(t, *k.entry, src),
                          Catch::Contains("kernel.params[2]: offset 262148 lies outside tensor C (262144 bytes)"));
        t.kernel->params[2].offset = 256 * 256 * 4;  // one past the end: an end pointer
        CHECK(u64_at(build_param_buffer(t, *k.entry, src).bytes, 256) == 0x7f0000300000ull + 262144);
    }
    {
        Scenario t = s;
        t.kernel->params[3].type = "u64";
        CHECK_THROWS_WITH(build_param_buffer(t, *k.entry, src),
                          Catch::Contains("kernel.params[3]: u64 256 is 8 bytes; the PTX's param 3 `gemm_ws_tma_wgmma_param_3` (.u32) is 4"));
    }
    {
        Scenario t = s;
        t.kernel->params.pop_back();
        CHECK_THROWS_WITH(build_param_buffer(t, *k.entry, src), Catch::Contains("kernel.params: the scenario gives 5 params; the kernel "
                                                                                "gemm_ws_tma_wgmma takes 6"));
    }
    {
        ParamSources missing = src;
        missing.tensor_map.erase("map_b");
        CHECK_THROWS_WITH(build_param_buffer(s, *k.entry, missing), Catch::Contains("kernel.params[1]: no tensor map named 'map_b'"));
    }
    {
        // A CUtensorMap as a blob's field: written at the blob's offset; one that leaves the blob is refused.
        Scenario t = catalog_kernel("device_encoded_tensormap");
        const ptx::BoundKernel kt = ptx::parse_bound_kernel(t);
        KernelParam map;
        map.kind = KernelParam::Kind::tensormap;
        map.name = "tmpl";
        t.kernel->params[1].fields = {{0, map}};
        const ParamBuffer b = build_param_buffer(t, *kt.entry, fake_sources(t));
        CHECK((b.bytes[128] == 0xa0 && b.bytes[255] == 0xa0));
        t.kernel->params[1].fields = {{8, map}};
        CHECK_THROWS_WITH(build_param_buffer(t, *kt.entry, fake_sources(t)),
                          Catch::Contains("kernel.params[1].fields[0]: tensormap tmpl at byte 8 leaves the blob's 128 bytes"));
    }
}

TEST_CASE("launch dimensions: lists outermost first, x last, and clusters tile the grid", "[device][kernel_params]") {
    Launch l;
    l.grid = {2, 4};
    l.cluster = {1, 2};
    l.block = 384;
    const LaunchDims d = launch_dims(l);
    CHECK((d.grid[0] == 4 && d.grid[1] == 2 && d.grid[2] == 1));
    CHECK((d.cluster[0] == 2 && d.cluster[1] == 1 && d.cluster[2] == 1));
    CHECK((d.block[0] == 384 && d.block[1] == 1));
    CHECK(d.cluster_size() == 2);
    l.cluster = {3};
    CHECK_THROWS_WITH(launch_dims(l), Catch::Contains("launch.cluster: the cluster's x extent 3 does not divide the grid's 4"));
    l.cluster = {1};
    l.grid = {1, 1, 1, 2};
    CHECK_THROWS_WITH(launch_dims(l), Catch::Contains("launch.grid: 4 entries; allowed: 1 to 3"));
    l.grid = {8};
    l.cluster = {16};
    CHECK_THROWS_WITH(launch_dims(l), Catch::Contains("does not divide the grid's 8"));
    l.cluster = {8};
    l.dynamic_shared = 4096;
    CHECK(launch_text(l) == "grid [8] cluster [8] block 384, 4096 bytes of dynamic shared memory");
}
