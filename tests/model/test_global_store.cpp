// global.store on the model: each executing thread writes `value` into the elements of a
// global tensor it covers (like shared.store), the bytes are in the final image and in a
// later TMA load of them, and an access outside the tensor is refused.
#include <catch2/catch.hpp>

#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;

namespace {

const MemoryImage& image(const RunResult& r, const std::string& space, const std::string& name) {
    for (const MemoryImage& m : r.memory)
        if (m.space == space && m.name == name) return m;
    FAIL("no " << space << " image " << name);
    throw std::logic_error("unreachable");
}

const char* kWidths = R"(
scenario: global_store_widths
summary: global.store of u8 elements at widths 1, 4 and 16, and of f16 values rounded to the type
source: tests/model
arch: sm_90
launch: {grid: [1], block: 64}
global:
  B: {type: u8, shape: [1024], init: {fill: 7}}
  H: {type: f16, shape: [64], init: {fill: 0}}
program:
  - {op: global.store, global: B, index: "tid", width: 1, value: "tid + 200", by: warp0}
  - {op: global.store, global: B, index: "256 + tid*4", width: 4, value: "lane", by: warp1}
  - {op: global.store, global: B, index: "512 + tid*16", width: 16, value: "tid", by: "tid < 4"}
  - {op: global.store, global: H, index: "tid", value: "tid / 3.0"}
expect:
  outcome: ok
)";

}  // namespace

TEST_CASE("global.store: the catalog's store-then-TMA-load sees every thread's value", "[model][global_store]") {
    const Scenario s = load_scenario_file(std::string(TMASIM_SOURCE_DIR) +
                                          "/scenarios/catalog/guide/global_store_tma_load.yaml");
    const RunResult r = run_model(s);
    INFO((r.diagnostics.empty() ? "" : r.diagnostics.front().message));
    REQUIRE(r.outcome == Outcome::ok);
    const MemoryImage& a = image(r, "global", "A");
    const MemoryImage& tile = image(r, "shared", "tile");
    for (int64_t t = 0; t < 128; ++t) {
        INFO("element " << t);
        CHECK(load_element_int(a.bytes.data(), DType::i32, t) == 3 * t + 1);
        CHECK(load_element_int(tile.bytes.data(), DType::i32, t) == 3 * t + 1);
    }
    // A posted store: issue to complete is global_store_cycles (the address and value formed,
    // the store issued), well under a global load's latency (global_load_l2_cycles, 264).
    int64_t issue = -1, complete = -1;
    for (const auto& e : r.events) {
        if (e.op != s.program[1].id || e.warp != 1 || e.lane != 0) continue;
        if (e.kind == EventKind::issue) issue = e.t;
        if (e.kind == EventKind::complete) complete = e.t;
    }
    REQUIRE(issue >= 0);
    CHECK(complete - issue == 101);  // h100-sxm, the scenario's default config
    CHECK(complete - issue < 264);
}

TEST_CASE("global.store: widths repeat the element's value, floats round to the type", "[model][global_store]") {
    const RunResult r = run_model(load_scenario_text(kWidths, "widths.yaml"));
    INFO((r.diagnostics.empty() ? "" : r.diagnostics.front().message));
    REQUIRE(r.outcome == Outcome::ok);
    const MemoryImage& b = image(r, "global", "B");
    CHECK(load_element_int(b.bytes.data(), DType::u8, 0) == 200);
    CHECK(load_element_int(b.bytes.data(), DType::u8, 31) == (231 & 0xff));
    CHECK(load_element_int(b.bytes.data(), DType::u8, 32) == 7);  // warp 1 stored elsewhere
    // warp 1, lane 2 (tid 34): 4 bytes at 256 + 136, each = lane.
    for (int64_t e = 256 + 136; e < 256 + 140; ++e) CHECK(load_element_int(b.bytes.data(), DType::u8, e) == 2);
    // tid 3: 16 bytes at 512 + 48, each = 3; the byte after them is untouched.
    for (int64_t e = 512 + 48; e < 512 + 64; ++e) CHECK(load_element_int(b.bytes.data(), DType::u8, e) == 3);
    CHECK(load_element_int(b.bytes.data(), DType::u8, 512 + 64) == 7);
    const MemoryImage& h = image(r, "global", "H");
    CHECK(load_element_float(h.bytes.data(), DType::f16, 3) == 1.0f);
    CHECK(load_element_float(h.bytes.data(), DType::f16, 1) == Approx(1.0 / 3.0).epsilon(1e-3));
}

TEST_CASE("global.store: keys and bounds are checked at load time", "[scenarios][global_store]") {
    std::string text = kWidths;
    SECTION("it takes no cta (global memory has no peer copy)") {
        text.replace(text.find("by: warp0}"), 10, "cta: 1, by: warp0}");
        CHECK_THROWS_WITH(load_scenario_text(text, "bad.yaml"),
                          Catch::Contains("program[0].cta: unknown key") && Catch::Contains("(for global.store)"));
    }
    SECTION("it needs value") {
        text.replace(text.find(", value: \"lane\""), 15, "");
        CHECK_THROWS_WITH(load_scenario_text(text, "bad.yaml"), Catch::Contains("program[1].value: required key is missing"));
    }
    SECTION("an element past the tensor's end") {
        text.replace(text.find("\"512 + tid*16\""), 14, "\"1016 + tid*16\"");
        CHECK_THROWS_WITH(load_scenario_text(text, "bad.yaml"),
                          Catch::Contains("global.store.index") && Catch::Contains("must stay inside B"));
    }
}
