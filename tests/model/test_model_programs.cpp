// Model runs of small inline programs: loops with indexed buffers and barriers, several
// CTAs, and the fence placements of semantics.md scenario 8 on the guide's 2-D kernel.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;

namespace {
const char* kRing = R"(
scenario: ring_two_ctas
summary: Two CTAs each double their 4 chunks through a 2-stage ring of buffers and barriers.
source: tests/model
arch: sm_90
launch: {grid: [2], block: 64}
global:
  data: {type: i32, shape: [512], init: iota}
shared:
  buf: {type: i32, shape: [64], align: 128, array: 2}
barriers:
  full: {array: 2}
program:
  - {op: mbarrier.init, barrier: "full[0]", count: 1, by: thread0}
  - {op: mbarrier.init, barrier: "full[1]", count: 1, by: thread0}
  - {op: sync}
  - op: loop
    var: i
    count: 4
    body:
      - {op: mbarrier.arrive_expect_tx, barrier: "full[i%2]", bytes: 256, by: elected}
      - {op: bulk.load, global: data, offset: "(cta*4+i)*64", bytes: 256, dst: "buf[i%2]", barrier: "full[i%2]", by: elected}
      - {op: mbarrier.wait, barrier: "full[i%2]", parity: "(i/2)%2", label: wait}
      - {op: compute, buffer: "buf[i%2]", fn: "x * 2"}
      - {op: fence.proxy.async}
      - {op: sync}
      - {op: bulk.store, src: "buf[i%2]", global: data, offset: "(cta*4+i)*64", bytes: 256, by: elected, label: store}
      - {op: bulk.commit_group, by: elected}
      - {op: bulk.wait_group_read, n: 0, by: elected}
      - {op: sync}
expect:
  outcome: ok
)";

std::string read(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// The guide's 2-D kernel with its "fence.proxy.async; sync" pair replaced by `fences`.
RunResult guide_2d_with(const std::string& fences) {
    std::string text = read(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/guide/tma_2d_load_modify_store.yaml");
    const std::string pair = "  - {op: fence.proxy.async}\n  - {op: sync}\n";
    const auto pos = text.find(pair);
    REQUIRE(pos != std::string::npos);
    text.replace(pos, pair.size(), fences);
    return run_model(load_scenario_text(text, "variant.yaml"));
}
}  // namespace

TEST_CASE("programs: loops, indexed buffers and barriers, two CTAs", "[model][programs]") {
    const Scenario s = load_scenario_text(kRing, "ring.yaml");
    const RunResult r = run_model(s);
    INFO((r.diagnostics.empty() ? "" : r.diagnostics.front().message));
    REQUIRE(r.outcome == Outcome::ok);
    const MemoryImage* data = nullptr;
    for (const auto& m : r.memory)
        if (m.name == "data") data = &m;
    REQUIRE(data);
    for (int64_t j = 0; j < 512; ++j) {
        INFO("j = " << j);
        REQUIRE(load_element_int(data->bytes.data(), DType::i32, j) == 2 * j);
    }
    // Shared images: per CTA, "buf[0]" and "buf[1]", after the globals.
    std::vector<std::string> names;
    for (const auto& m : r.memory) names.push_back(m.space + ":" + m.name + "@" + std::to_string(m.cta));
    CHECK(names == std::vector<std::string>{"global:data@0", "shared:buf[0]@0", "shared:buf[1]@0",
                                            "shared:buf[0]@1", "shared:buf[1]@1"});
    // CTA 1's buf[1] holds its last chunk (3): elements 448..511, doubled.
    CHECK(load_element_int(r.memory[4].bytes.data(), DType::i32, 0) == 2 * 448);
    CHECK(load_element_int(r.memory[2].bytes.data(), DType::i32, 63) == 2 * 255);
    // Each loop iteration's wait has its own key: 4 iterations x 2 warps x 2 CTAs.
    int wait_ends = 0;
    for (const auto& e : r.events)
        if (e.kind == EventKind::wait_end && e.op == 6) {
            REQUIRE(e.iters.size() == 1);
            ++wait_ends;
        }
    CHECK(wait_ends == 16);
}

TEST_CASE("programs: fence placement (semantics.md scenario 8)", "[model][programs]") {
    SECTION("(a) every writer fences, then sync: ok") {
        CHECK(guide_2d_with("  - {op: fence.proxy.async}\n  - {op: sync}\n").outcome == Outcome::ok);
    }
    SECTION("(b) sync, then the issuing thread fences: ok") {
        CHECK(guide_2d_with("  - {op: sync}\n  - {op: fence.proxy.async, by: elected}\n").outcome == Outcome::ok);
    }
    SECTION("(c) the issuing thread fences before the sync: hazard") {
        const RunResult r = guide_2d_with("  - {op: fence.proxy.async, by: elected}\n  - {op: sync}\n");
        REQUIRE(r.outcome == Outcome::hazard);
        REQUIRE(r.diagnostics.size() == 1);
        CHECK(r.diagnostics[0].rule == "proxy.generic_to_async");
        // Thread 0 fenced after its own write: only the other writers are unfenced.
        CHECK(r.diagnostics[0].message.find("smem_buffer bytes 4..255 (elements 1..63)") != std::string::npos);
        CHECK(r.diagnostics[0].message.find("threads 1-63") != std::string::npos);
    }
    SECTION("only warp 1 fences: warp 0's writes are reported") {
        const RunResult r = guide_2d_with("  - {op: fence.proxy.async, by: warp1}\n  - {op: sync}\n");
        REQUIRE(r.outcome == Outcome::hazard);
        CHECK(r.diagnostics[0].message.find("smem_buffer bytes 0..127 (elements 0..31)") != std::string::npos);
        CHECK(r.diagnostics[0].message.find("threads 0-31 ") != std::string::npos);
    }
}
