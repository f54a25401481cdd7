// `by:` naming a loop variable on the device: the warp's ballot is taken inside the loop, over
// the loop's counter (or its value, where the loop is written out), the kernel compiles, and
// the trace decoder keeps the records of the warps the selector picked at each iteration.
#include <catch2/catch.hpp>

#include <cstring>
#include <set>

#include "device/emit/codegen.h"
#include "device/launch/trace_records.h"
#include "device_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;
using namespace tmasim::device;
using namespace tmasim::device::test;

namespace test_codegen_loop_selectors {

namespace {
// The first line of `src` holding `what` ("" when none does).
std::string line_with(const std::string& src, const std::string& what) {
    const size_t at = src.find(what);
    if (at == std::string::npos) return "";
    const size_t begin = src.rfind('\n', at) + 1, end = src.find('\n', at);
    return src.substr(begin, end - begin);
}
}  // namespace

TEST_CASE("a loop selector's ballot reads the loop counter and compiles", "[device][codegen]") {
    // count 40: past what the writer unrolls, so the counter is L0.
    const Scenario s = load_scenario_text(R"(scenario: loop_by
launch: {grid: [1], block: 64}
shared:
  s: {type: f32, shape: [64]}
program:
  - op: loop
    var: i
    count: 40
    body:
      - {op: shared.store, buffer: s, index: tid, value: "1", by: "tid == i % 64"}
      - {op: compute, buffer: s, fn: "x + 1", by: "i >= 2 && warp == 1"}
      - {op: sync}
)", "loop_by.yaml");
    const std::string src = generate_kernel_source(s);
    INFO(src);
    CHECK(src.find("for (int L0 = 0; L0 < n0; ++L0)") != std::string::npos);
    const std::string ballot = line_with(src, "const unsigned sel_mask_1 = __ballot_sync(warp_mask, ");
    CHECK(ballot.find("L0") != std::string::npos);
    CHECK(line_with(src, "const unsigned sel_mask_2 = __ballot_sync(warp_mask, ").find("L0") != std::string::npos);
    // compute's rank loop evaluates the predicate over the block with the same counter.
    CHECK(src.find("(long long)(t_ >> 5)") != std::string::npos);
    require_compiles(src, "sm_90a");
}

TEST_CASE("a written-out loop's selector gets each iteration's value", "[device][codegen]") {
    const Scenario s = load_scenario_file(source_dir() + "/scenarios/catalog/teach/00_first_pipeline.yaml");
    const std::string src = generate_kernel_source(s);
    INFO(src);
    // The pipeline's loop of 10 is written out: iteration 9's load is `9LL < 8LL`, never taken.
    CHECK(src.find("((9LL) < (8LL))") != std::string::npos);
    require_compiles(src, "sm_90a");
}

namespace {
struct FakeRegions {
    TraceBufferLayout layout;
    std::vector<uint32_t> words;
    explicit FakeRegions(const TraceBufferLayout& l) : layout(l), words(static_cast<size_t>(l.warps * l.stride), ~0u) {}
    void set_header(int warp, const WarpTraceHeader& h) {
        std::memcpy(&words[static_cast<size_t>(warp * layout.stride)], &h, sizeof h);
    }
    uint32_t& word(int warp, int i) { return words[static_cast<size_t>(warp * layout.stride + kTraceHeaderWords + i)]; }
};
}  // namespace

TEST_CASE("the trace keeps a loop selector's records for the warps each iteration picked", "[device][trace]") {
    const Scenario s = load_scenario_text(R"(scenario: loop_by_trace
launch: {grid: [1], block: 64}
shared:
  s: {type: f32, shape: [32]}
program:
  - op: loop
    var: i
    count: 2
    body:
      - {op: compute, buffer: s, fn: "x + 1", by: "warp == i"}
      - {op: sync}
)", "loop_by_trace.yaml");
    const TracePlan plan = plan_trace(s, TraceLevel::all);
    FakeRegions b(trace_buffer_layout(s, plan));
    int64_t total = 0;
    traced_instances(s, plan, 0, &total);
    REQUIRE(total <= b.layout.capacity);
    for (int w = 0; w < 2; ++w) {
        b.set_header(w, WarpTraceHeader{1000, 5000, 1100, 3000, 6000, static_cast<uint32_t>(total), 0, ~0u, 0, 0});
        for (int64_t i = 0; i < total; ++i) b.word(w, static_cast<int>(i)) = static_cast<uint32_t>(1200 + 100 * i);
    }
    const std::vector<TraceRecord> r = decode_warp_regions(s, plan, b.layout, b.words, 1000);
    std::set<std::pair<int, int>> compute;  // (warp, iteration)
    int syncs = 0;
    for (const TraceRecord& x : r) {
        if (x.op == 1) compute.insert({x.warp, x.iters[0]});
        if (x.op == 2) ++syncs;
    }
    CHECK(compute == std::set<std::pair<int, int>>{{0, 0}, {1, 1}});
    CHECK(syncs == 4);  // both warps, both iterations
}

}  // namespace test_codegen_loop_selectors
