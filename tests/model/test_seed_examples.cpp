// The tilus and CuTe seed examples in the catalog (tilus/, cute/): exact bytes on the model,
// and the rule the tilus example breaks without its sync.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include <string>

#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;
using test::catalog;

namespace {
const MemoryImage& global_of(const RunResult& r, const std::string& name) {
    for (const MemoryImage& m : r.memory)
        if (m.space == "global" && m.name == name) return m;
    FAIL("no global image " << name);
    return r.memory.front();
}
}  // namespace

TEST_CASE("seeds: tilus MatmulV3 moves its tiles with cp.async, wait_all and sync", "[model][seeds]") {
    const RunResult ok = run_model(catalog("tilus/matmul_v3_copy_async.yaml"));
    CHECK(ok.outcome == Outcome::ok);
    CHECK(ok.diagnostics.empty());
    const Scenario broken = catalog("tilus/matmul_v3_missing_sync.yaml");
    const RunResult r = run_model(broken);
    REQUIRE(r.outcome == Outcome::hazard);
    REQUIRE_FALSE(r.diagnostics.empty());
    CHECK(r.diagnostics[0].rule == "race.cp_async_unwaited");
    CHECK(r.diagnostics[0].op == broken.find_op(4)->id);
    CHECK(broken.find_op(4)->label == "load_a");
    // Which thread's read comes first is timing; each reads 16 bytes of sa a cp.async writes.
    CHECK(r.diagnostics[0].message.find("reads sa[") != std::string::npos);
    CHECK(r.diagnostics[0].message.find("while cp.async op #1 'copy_a'") != std::string::npos);
}

TEST_CASE("seeds: CuTe multicast slices give both CTAs the whole tile", "[model][seeds][cluster]") {
    const RunResult r = run_model(catalog("cute/tma_multicast_slices.yaml"));
    REQUIRE(r.outcome == Outcome::ok);
    const MemoryImage& out = global_of(r, "out");
    REQUIRE(out.bytes.size() == 128 * 64 * 2);
    // Each CTA stored the whole 64 x 64 tile into its half of out: out[r][c] = A[r % 64][c].
    for (int64_t row = 0; row < 128; ++row)
        for (int64_t col = 0; col < 64; ++col)
            CHECK(load_element_float(out.bytes.data(), DType::f16, row * 64 + col) ==
                  f16_bits_to_float(float_to_f16_bits(static_cast<float>((row % 64) * 64 + col))));
}

TEST_CASE("seeds: CuTe warp-specialized wgmma computes the row sums of A", "[model][seeds][wgmma]") {
    const RunResult r = run_model(catalog("cute/warp_specialized_wgmma.yaml"));
    REQUIRE(r.outcome == Outcome::ok);
    const MemoryImage& c = global_of(r, "C");
    REQUIRE(c.bytes.size() == 64 * 64 * 4);
    for (int64_t m = 0; m < 64; ++m) {
        float sum = 0;  // B is all ones: C[m][n] = sum over k of A[m][k] as stored in f16
        for (int64_t k = 0; k < 64; ++k) sum += f16_bits_to_float(float_to_f16_bits(static_cast<float>(m * 64 + k)));
        for (int64_t n = 0; n < 64; ++n) CHECK(load_element_float(c.bytes.data(), DType::f32, m * 64 + n) == sum);
    }
}
