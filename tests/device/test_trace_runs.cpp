// Runs of cp.async on the device: the plan stores no word for the ops folded into a run, the
// kernel reads no clock after them, and the decoder gives them the run's begin.
#include <catch2/catch.hpp>

#include <cstring>

#include "device/emit/codegen.h"
#include "device/launch/trace_records.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;

namespace {
// Op ids: 0 loop s { 1 loop k { 2 cp.async }, 3 commit, 4 wait_group, 5 sync }.
const char* kStream = R"(
scenario: stream
launch: {grid: [1], block: 32}
global:
  src: {type: f32, shape: [1024], init: iota}
shared:
  stage: {type: f32, shape: [512]}
program:
  - op: loop
    var: s
    count: 2
    body:
      - op: loop
        var: k
        count: 3
        body:
          - {op: cp.async, global: src, src_index: "s*384 + k*128 + tid*4", dst: stage, dst_index: "k*128 + tid*4", size: 16}
      - {op: cp.async.commit_group}
      - {op: cp.async.wait_group, n: 0}
      - {op: sync}
)";
}  // namespace

TEST_CASE("a run of cp.async stores one word, on its last op", "[device][trace]") {
    const Scenario s = load_scenario_text(kStream, "stream.yaml");
    const TracePlan plan = plan_trace(s, TraceLevel::all);
    CHECK(plan.words_of_op == std::vector<int>{0, 0, 0, 1, 1, 1});
    // Two iterations of commit, wait and sync: 6 words, where timing each copy took 12.
    CHECK(trace_words_per_warp(s, plan) == 6);
    const std::vector<TracedInstance> in = traced_instances(s, plan, 0);
    REQUIRE(in.size() == 2 * (3 + 3));
    CHECK(in[0].folded);
    CHECK(in[2].iters == std::vector<int64_t>{0, 2});
    CHECK(in[2].first_word == 0);
    CHECK_FALSE(in[3].folded);
    CHECK(in[3].op->id == 3);
    CHECK(in[6].folded);
    CHECK(in[6].first_word == 3);  // after the first iteration's three words
}

TEST_CASE("the kernel reads no clock after a folded copy", "[device][codegen]") {
    const Scenario s = load_scenario_text(kStream, "stream.yaml");
    const std::string src = generate_kernel_source(s, TraceLevel::all);
    CHECK(src.find("// op 2: cp.async by all (not timed)") != std::string::npos);
    CHECK(src.find("// op 2 ends") == std::string::npos);
    CHECK(src.find("// op 3 ends") != std::string::npos);
}

TEST_CASE("folded copies decode with issue and complete where their run began", "[device][trace]") {
    const Scenario s = load_scenario_text(kStream, "stream.yaml");
    const TracePlan plan = plan_trace(s, TraceLevel::all);
    const TraceBufferLayout layout = trace_buffer_layout(s, plan);
    std::vector<uint32_t> buf(static_cast<size_t>(layout.warps * layout.stride), ~0u);
    // Entry at clock 1000 / 5000 ns, the prologue's read at 1100, exit at 3000 / 6000 ns.
    const WarpTraceHeader h{1000, 5000, 1100, 3000, 6000, 6, 0, ~0u, 0, 0};
    std::memcpy(buf.data(), &h, sizeof h);
    const uint32_t words[] = {1130, 1900, 1950, 1990, 2700, 2750};
    for (int i = 0; i < 6; ++i) buf[static_cast<size_t>(kTraceHeaderWords + i)] = words[i];
    const std::vector<TraceRecord> r = decode_warp_regions(s, plan, layout, buf, 1000);
    REQUIRE(r.size() == 2 + 12);  // entry, 12 op records, exit
    // Iteration 0: the copies at the prologue's read, the commit from there to its own read.
    for (int i = 1; i <= 3; ++i) {
        CHECK(r[i].op == 2);
        CHECK(r[i].clk_begin == 1100);
        CHECK(r[i].clk_end == 1100);
    }
    CHECK(r[3].iters[1] == 2);
    CHECK(r[4].op == 3);
    CHECK(r[4].clk_begin == 1100);
    CHECK(r[4].clk_end == 1130);
    // Iteration 1: the copies begin where the sync of iteration 0 ended.
    CHECK(r[7].op == 2);
    CHECK(r[7].clk_begin == 1950);
    CHECK(r[7].clk_end == 1950);
    CHECK(r[10].op == 3);
    CHECK(r[10].clk_begin == 1950);
    CHECK(r[10].clk_end == 1990);
}
