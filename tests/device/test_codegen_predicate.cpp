// Predicate selectors ("tid < 8", "warp >= 1"): the warp's ballot is taken before the op's
// branch, the lowest selected lane records, and compute shares elements by rank.
#include <catch2/catch.hpp>

#include "device/emit/codegen.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

TEST_CASE("predicate selectors generate a ballot before the op and compile", "[device][codegen]") {
    const Scenario s = load_scenario_text(R"(scenario: pred
launch: {grid: [1], block: 64}
shared:
  s: {type: f32, shape: [64]}
program:
  - {op: shared.store, buffer: s, index: tid, value: "1", by: "tid < 8"}
  - {op: compute, buffer: s, fn: "x + 1", by: "warp >= 1 && lane % 2 == 0"}
)", "pred.yaml");
    const std::string src = generate_kernel_source(s);
    CHECK(src.find("const unsigned sel_mask_0 = __ballot_sync(warp_mask, (((long long)(((long long)tid) < (8LL)))) "
                   "!= 0LL);") != std::string::npos);
    CHECK(src.find("sel_rank_0") == std::string::npos);  // only compute needs a rank
    CHECK(src.find("if (((sel_mask_0 >> lane) & 1u) != 0u)") != std::string::npos);
    // Its clock word: read by the whole warp after the branch, stored by lane 0 with the next.
    CHECK(src.find("tbuf[0] = (unsigned)trace_clock64();  // op 0 ends") != std::string::npos);
    CHECK(src.find("if (lane == (int)leader_lane) { st_global_u32(tw + 0, tbuf[0]); st_global_u32(tw + 1, tbuf[1]); }") !=
          std::string::npos);
    // compute walks its elements by the thread's rank among the selected threads.
    CHECK(src.find("e += (int)(sel_count_1)") != std::string::npos);
    require_compiles(src, "sm_90a");
}
