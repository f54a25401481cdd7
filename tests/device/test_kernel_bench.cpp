// `tmasim bench kernel-overhead` without a GPU (device/bench/kernel_bench.h): the cases' full-
// chip and one-CTA scenarios, that they still bind to their kernels, and the report's table.
#include <catch2/catch.hpp>

#include "device/bench/kernel_bench.h"
#include "kernel_test_support.h"
#include "ptx/kernel_binding.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {
const std::string kDir = std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/kernels";

int64_t scalar_param_of(const Scenario& s, size_t i) { return s.kernel->params.at(i).integer; }
std::vector<int64_t> shape_of(const Scenario& s, const std::string& name) { return s.find_global(name)->shape; }
}  // namespace

TEST_CASE("the kernel bench's pipelines scale grid, tiles and tensors together", "[device][kernel_bench]") {
    const Scenario tma = kernel_bench_scenario("tma_prefetch_pipeline", kDir, 132, 16);
    CHECK(tma.launch.grid == std::vector<int>{132});
    CHECK(scalar_param_of(tma, 2) == 64);  // 4 tiles per CTA, times 16
    // 16 rows per tile, 64 tiles of each of 132 CTAs.
    CHECK(shape_of(tma, "in") == std::vector<int64_t>{16 * 64 * 132, 64});
    CHECK(shape_of(tma, "out") == std::vector<int64_t>{16 * 64 * 132, 64});
    CHECK(tma.tensormaps.at(0).box == std::vector<int64_t>{16, 64});
    const Scenario one = kernel_bench_scenario("ldgsts_pipeline", kDir, 1, 2);
    CHECK(one.launch.grid == std::vector<int>{1});
    CHECK(scalar_param_of(one, 2) == 8);
    CHECK(shape_of(one, "in") == std::vector<int64_t>{896 * 8});
    CHECK(one.name == "kernel_ldgsts_pipeline@1ctas_work2");
}

TEST_CASE("the kernel bench's GEMM runs clusters of 2 over an M x N of 128-wide tiles", "[device][kernel_bench]") {
    const Scenario full = kernel_bench_scenario("gemm_ws_tma_wgmma", kDir, 132, 16);
    CHECK(full.launch.grid == std::vector<int>{132});
    CHECK(full.launch.cluster == std::vector<int>{2});
    // 66 clusters = 6 row pairs (M 1536) x 11 column tiles (N 1408); K 512 * 16.
    CHECK((scalar_param_of(full, 3) == 1536 && scalar_param_of(full, 4) == 1408 && scalar_param_of(full, 5) == 8192));
    CHECK(shape_of(full, "A") == std::vector<int64_t>{1536, 8192});
    CHECK(shape_of(full, "B") == std::vector<int64_t>{1408, 8192});
    CHECK(shape_of(full, "C") == std::vector<int64_t>{1536, 1408});
    CHECK((scalar_param_of(full, 3) / 128) * (scalar_param_of(full, 4) / 128) == full.launch.num_ctas());
    const Scenario small = kernel_bench_scenario("gemm_ws_tma_wgmma", kDir, 1, 1);  // one cluster: 2 CTAs
    CHECK(small.launch.grid == std::vector<int>{2});
    CHECK((scalar_param_of(small, 3) == 256 && scalar_param_of(small, 4) == 128 && scalar_param_of(small, 5) == 512));
    CHECK_THROWS_WITH(kernel_bench_scenario("bulk_copy_1d", kDir, 1, 1), Catch::Contains("no case named bulk_copy_1d"));
}

TEST_CASE("every kernel bench scenario binds to its kernel at 1 and 132 CTAs", "[device][kernel_bench]") {
    for (const std::string& name : kernel_bench_case_names())
        for (int ctas : {1, 132}) {
            INFO(name << " at " << ctas);
            Scenario s = kernel_bench_scenario(name, kDir, ctas, 4);
            CHECK_NOTHROW(ptx::bind_kernel(s));
            CHECK(!s.program.empty());
        }
}

TEST_CASE("the kernel bench's table judges rewritten(none)/untouched against 1.05", "[device][kernel_bench]") {
    CHECK(bench_median({3, 1, 2}) == 2);
    CHECK(bench_median({4, 1, 2, 3}) == 2.5);
    const std::vector<KernelBenchRow> rows = {{"ldgsts_pipeline", 1, 0.100, 0.104, 0.130}, {"ldgsts_pipeline", 132, 0.200, 0.212, 0.300}};
    CHECK(kernel_bench_misses(rows) == 1);
    const std::string t = kernel_bench_table(rows);
    CHECK(t.find("ldgsts_pipeline            1        0.1000        0.1040        0.1300       1.040       1.300  met\n") !=
          std::string::npos);
    CHECK(t.find("       1.060       1.500  MISSED\n") != std::string::npos);
    CHECK(t.find("1 of 2 rows miss the target") != std::string::npos);
}
