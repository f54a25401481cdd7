// Barriers in a shared buffer's bytes (`barriers: {bar: {at: ..., offset: ...}}`): where the
// layout puts them, and every refusal naming its line, column, key and what is allowed.
#include <catch2/catch.hpp>

#include <string>

#include "scenario_test_support.h"
#include "scenarios/layout.h"
#include "scenarios/loader.h"

using namespace tmasim;
using tmasim::test::error_of;
using tmasim::test::with;

namespace test_barrier_views {
namespace {

// Line 8 holds the barrier declaration the tests change.
const std::string kBase = R"(scenario: views
launch: {grid: [1], block: 32}
shared:
  a: {type: i32, shape: [48], align: 16}
  stage: {type: f32, shape: [256], array: 2}
barriers:
  own: {}
  bar: {at: "stage[1]", offset: 16, array: 2}
program:
  - {op: mbarrier.init, barrier: "bar[1]", count: 1, by: thread0}
)";

}  // namespace

TEST_CASE("a barrier at a view lies in its buffer's bytes and takes none of its own", "[scenarios][barriers]") {
    const Scenario sc = load_scenario_text(kBase, "v.yaml");
    const SharedLayout l = compute_shared_layout(sc);
    // a: 0..191; stage[0] at 256 (128-aligned), stage[1] at 1280; own after stage[1]'s end (2304).
    CHECK(l.offset_of("stage", 1) == 1280);
    CHECK(l.offset_of("own", 0) == 2304);
    CHECK(l.offset_of("bar", 0) == 1280 + 16);
    CHECK(l.offset_of("bar", 1) == 1280 + 24);
    CHECK(l.find("bar")->view_of == "stage");
    CHECK(l.find("own")->view_of.empty());
    // The view adds nothing: own's 8 bytes end the layout (rounded up to 16).
    CHECK(l.total_bytes == 2320);
    const BarrierDecl* b = sc.find_barrier("bar");
    REQUIRE(b);
    CHECK(b->at_buffer == "stage");
    CHECK(b->at_index == 1);
    CHECK(b->at_offset == 16);
}

TEST_CASE("a single buffer is named without an index, and offset defaults to 0", "[scenarios][barriers]") {
    const std::string one = with(kBase, R"({at: "stage[1]", offset: 16, array: 2})", "{at: a}");
    const Scenario sc = load_scenario_text(with(one, R"(barrier: "bar[1]")", "barrier: bar"), "v.yaml");
    CHECK(compute_shared_layout(sc).offset_of("bar", 0) == 0);
}

TEST_CASE("bad views are refused at the key, with what is allowed", "[scenarios][barriers]") {
    const std::string decl = R"({at: "stage[1]", offset: 16, array: 2})";
    auto err = [&](const std::string& to) { return error_of(with(kBase, decl, to), "v.yaml"); };
    CHECK_THAT(err(R"({at: "stage[1]", offset: 12})"),
               Catch::Contains("v.yaml:8:") && Catch::Contains("barriers.bar.offset") &&
                   Catch::Contains("12 is not 8-byte aligned; allowed: a multiple of 8"));
    CHECK_THAT(err(R"({at: "stage[1]", offset: 1016, array: 2})"),
               Catch::Contains("barriers.bar.offset") && Catch::Contains("reach past the 1024 bytes of stage[1]"));
    CHECK_THAT(err(R"({at: stage})"), Catch::Contains("barriers.bar.at") &&
                                          Catch::Contains("an array of 2 buffers; allowed: one element"));
    CHECK_THAT(err(R"({at: "a[0]"})"), Catch::Contains("is a single buffer, not an array"));
    CHECK_THAT(err(R"({at: "stage[2]"})"), Catch::Contains("outside the array; allowed: index 0..1"));
    CHECK_THAT(err(R"({at: "stage[x]"})"), Catch::Contains("is not a buffer reference"));
    CHECK_THAT(err(R"({at: "stage[01]"})"), Catch::Contains("is not a buffer reference"));
    CHECK_THAT(err(R"({at: nosuch})"), Catch::Contains("no shared buffer named 'nosuch'") &&
                                           Catch::Contains("declared: a, stage"));
    CHECK_THAT(err(R"({offset: 8})"), Catch::Contains("barriers.bar.offset") && Catch::Contains("`at`, which is missing"));
    CHECK_THAT(err(R"({at: a, where: 0})"), Catch::Contains("where") && Catch::Contains("array, at, offset"));
}

TEST_CASE("two barriers sharing a word are refused at the later one", "[scenarios][barriers]") {
    const std::string text = with(kBase, "  own: {}\n", "  own: {at: \"stage[1]\", offset: 24}\n");
    // own (line 7) takes bytes 24..31; bar (line 8) takes 16..31.
    CHECK_THAT(error_of(text, "v.yaml"), Catch::Contains("v.yaml:8:") && Catch::Contains("overlap those of barrier 'own'"));
    // Different elements of the array do not overlap.
    CHECK_NOTHROW(load_scenario_text(with(kBase, "  own: {}\n", "  own: {at: \"stage[0]\", offset: 24}\n"), "v.yaml"));
}

}  // namespace test_barrier_views
