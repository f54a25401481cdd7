#include <catch2/catch.hpp>

#include "scenario_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_predicate_selector {

namespace {

const char* kBase = R"(scenario: pred
launch: {grid: [1], block: 64}
shared:
  s: {type: f32, shape: [64]}
program:
  - {op: shared.store, buffer: s, index: tid, value: "1", by: "tid < 8"}
  - {op: shared.store, buffer: s, index: tid, value: "2", by: "warp >= 1 && lane % 2 == 0"}
  - {op: sync}
)";

std::string with(const std::string& from, const std::string& to) { return test::with(kBase, from, to); }
std::string error_of(const std::string& text) { return test::error_of(text, "pred.yaml"); }

}  // namespace

TEST_CASE("a selector can be an expression over tid, lane and warp") {
    const Scenario sc = load_scenario_text(kBase, "pred.yaml");
    const Selector& first = sc.program[0].by;
    CHECK(first.kind == Selector::Kind::predicate);
    CHECK(first.includes(7));
    CHECK_FALSE(first.includes(8));
    const Selector& second = sc.program[1].by;
    CHECK_FALSE(second.includes(2));   // warp 0
    CHECK(second.includes(34));        // warp 1, lane 2
    CHECK_FALSE(second.includes(35));  // lane 3
    CHECK(second.text() == "\"(warp >= 1) && ((lane % 2) == 0)\"");
}

TEST_CASE("predicate selectors fail closed") {
    CHECK_THAT(error_of(with("by: \"tid < 8\"", "by: thred")), Catch::Contains("unknown selector \"thred\""));
    CHECK_THAT(error_of(with("by: \"tid < 8\"", "by: \"i < 8\"")), Catch::Contains("unknown variable 'i'; allowed here: tid, lane, warp"));
    CHECK_THAT(error_of(with("by: \"tid < 8\"", "by: \"tid > 100\"")),
               Catch::Contains("\"tid > 100\" selects no thread of the 64-thread block"));
    CHECK_THAT(error_of(with("  - {op: sync}", "  - {op: sync, by: \"warp == 0\"}")),
               Catch::Contains("sync (__syncthreads) is executed by every thread; allowed: all"));
}

}  // namespace test_predicate_selector
