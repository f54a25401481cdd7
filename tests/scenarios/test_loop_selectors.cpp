// `by:` naming loop variables: a pipeline's prologue and drain in its one loop. The selector
// is evaluated per iteration; outside a loop, and for cta and rank, the variable is unknown.
#include <catch2/catch.hpp>

#include "scenario_test_support.h"
#include "scenarios/loader.h"

using namespace tmasim;

namespace test_loop_selectors {

namespace {

const char* kBase = R"(scenario: loop_by
launch: {grid: [1], block: 64}
shared:
  s: {type: f32, shape: [64]}
program:
  - op: loop
    var: i
    count: 4
    body:
      - {op: shared.store, buffer: s, index: "i", value: "1", by: "tid == i * 2"}
      - {op: sync}
)";

std::string with(const std::string& from, const std::string& to) { return test::with(kBase, from, to); }
std::string error_of(const std::string& text) { return test::error_of(text, "loop_by.yaml"); }

}  // namespace

TEST_CASE("a selector may name the loop variables around its op") {
    const Scenario sc = load_scenario_text(kBase, "loop_by.yaml");
    const Selector& by = sc.program[0].body[0].by;
    CHECK(by.kind == Selector::Kind::predicate);
    CHECK(by.per_iteration);
    CHECK_FALSE(sc.program[0].body[1].by.per_iteration);
    Expr::IntEnv env{{"i", 3}};
    CHECK(by.includes_at(6, env));
    CHECK_FALSE(by.includes_at(4, env));
    env["i"] = 2;
    CHECK(by.includes_at(4, env));
    // A selector over tid, lane and warp alone is not per_iteration.
    const Scenario plain = load_scenario_text(with("tid == i * 2", "tid == 2"), "loop_by.yaml");
    CHECK_FALSE(plain.program[0].body[0].by.per_iteration);
}

TEST_CASE("a loop selector may pick no thread in some iterations") {
    // i == 0 picks thread 0 once; no iteration of "tid == i + 100" picks one, and that is
    // allowed too: which iterations run the op is the point of naming i.
    CHECK_NOTHROW(load_scenario_text(with("tid == i * 2", "i == 0 && tid == 0"), "loop_by.yaml"));
    CHECK_NOTHROW(load_scenario_text(with("tid == i * 2", "i >= 2"), "loop_by.yaml"));
}

TEST_CASE("a loop selector fails closed") {
    // Outside the loop, i is no variable; cta and rank are not selector variables.
    const std::string outside = std::string(kBase) + "  - {op: shared.store, buffer: s, index: \"0\", value: \"1\", by: \"i == 0\"}\n";
    CHECK_THAT(error_of(outside), Catch::Contains("unknown variable 'i'; allowed here: tid, lane, warp"));
    CHECK_THAT(error_of(with("tid == i * 2", "cta == 0")),
               Catch::Contains("unknown variable 'cta'; allowed here: tid, lane, warp, i"));
    // Evaluated for every thread of every iteration: a division by zero at i = 0 is found.
    CHECK_THAT(error_of(with("tid == i * 2", "tid / i == 1")), Catch::Contains("division by zero"));
    // The op's own checks run for the threads it picks at each iteration: index i + 61 leaves s at i = 3.
    CHECK_THAT(error_of(with("index: \"i\", value: \"1\", by: \"tid == i * 2\"", "index: \"i + 61\", value: \"1\", by: \"tid == i\"")),
               Catch::Contains("evaluates to 64 (i=3, lane=3, tid=3"));
    // A snapshot's one thread is fixed (wgmma's warpgroups too).
    CHECK_THAT(error_of(with("{op: sync}", "{op: shared.snapshot, buffer: s, by: \"tid == i\"}")),
               Catch::Contains("\"tid == i\" names a loop variable; allowed: a snapshot's selector over tid, lane and "
                               "warp only"));
    // A loop variable named tid, lane or warp stays refused.
    CHECK_THAT(error_of(with("var: i", "var: lane")), Catch::Contains("is not a usable loop variable"));
}

}  // namespace test_loop_selectors
