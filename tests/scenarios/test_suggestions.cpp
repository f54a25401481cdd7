// "Did you mean": an unknown op, key or rule id names the nearest allowed ones (edit
// distance), and an op item written as `- loop: {...}` says how a loop is written.
#include <catch2/catch.hpp>

#include "scenario_test_support.h"
#include "scenarios/enums.h"
#include "scenarios/loader.h"
#include "scenarios/rule_ids.h"
#include "scenarios/suggest.h"

using namespace tmasim;

namespace test_suggestions {

namespace {

const char* kBase = R"(scenario: suggest
launch: {grid: [1], block: 32}
global:
  A: {type: f32, shape: [16, 32], init: iota}
tensormaps:
  mapA: {tensor: A, box: [16, 32]}
shared:
  tile: {type: f32, shape: [16, 32]}
barriers:
  bar: {}
program:
  - {op: mbarrier.init, barrier: bar, count: 1, by: thread0}
  - {op: fence.mbarrier_init, by: thread0}
  - {op: sync}
  - {op: mbarrier.arrive_expect_tx, barrier: bar, bytes: 2048, by: thread0}
  - {op: tma.load, map: mapA, coords: [0, 0], dst: tile, barrier: bar, by: thread0}
  - {op: mbarrier.wait, barrier: bar, parity: 0}
expect:
  outcome: ok
)";

std::string with(const std::string& from, const std::string& to) { return test::with(kBase, from, to); }
std::string error_of(const std::string& text) { return test::error_of(text, "s.yaml"); }

}  // namespace

TEST_CASE("edit distance counts insertions, deletions, substitutions and swaps") {
    CHECK(edit_distance("tma.stor", "tma.store") == 1);
    CHECK(edit_distance("tma.laod", "tma.load") == 1);  // two neighbours swapped
    CHECK(edit_distance("Parity", "parity") == 0);
    CHECK(edit_distance("", "sync") == 4);
    CHECK(edit_distance("bulk.load", "tma.load") == 4);
}

TEST_CASE("nearest names: the close ones best first, none when nothing is close") {
    const std::vector<std::string> ops = program_op_names();
    CHECK(ops.size() == 57);  // every op a program may use, `loop` included
    CHECK(nearest_names("tma.stor", ops) == std::vector<std::string>{"tma.store"});
    CHECK(did_you_mean("tma.stor", ops) == "did you mean tma.store?");
    CHECK(did_you_mean("mbarrier.wiat", ops) == "did you mean mbarrier.wait?");
    // The right word in another family.
    CHECK(did_you_mean("tma.wait", ops) == "did you mean mbarrier.wait or cluster.wait?");
    CHECK(did_you_mean("syncthreads", ops).empty());
    CHECK(did_you_mean("xyz", ops).empty());
}

TEST_CASE("an unknown op names the nearest op and where the whole list is") {
    const std::string msg = error_of(with("{op: tma.load,", "{op: tma.lod,"));
    CHECK(msg == "s.yaml:16:10: error: program[4].op: unknown op \"tma.lod\"; did you mean tma.load? allowed: one of 57 "
                 "ops (`tmasim schema` lists them; scenarios/FORMAT.md, Ops)");
    // No near op: the whole list, as before.
    CHECK_THAT(error_of(with("{op: sync}", "{op: syncthreads}")),
               Catch::Contains("unknown op \"syncthreads\"; allowed: mbarrier.init,"));
}

TEST_CASE("an unknown key names the nearest key the op takes") {
    CHECK_THAT(error_of(with("parity: 0}", "parit: 0}")),
               Catch::Contains("program[5].parit: unknown key; did you mean parity? allowed: op, by, label, trace, barrier, parity"));
    CHECK_THAT(error_of(with("coords: [0, 0]", "cords: [0, 0]")), Catch::Contains("did you mean coords?"));
    CHECK_THAT(error_of(with("{grid: [1], block: 32}", "{grid: [1], blocks: 32}")),
               Catch::Contains("launch.blocks: unknown key; did you mean block? allowed: grid, cluster, block"));
    // A key near none: no guess.
    CHECK_THAT(error_of(with("parity: 0}", "parity: 0, timeout: 5}")),
               Catch::Contains("program[5].timeout: unknown key; allowed: op, by"));
}

TEST_CASE("an unknown rule id names the nearest rule id") {
    const std::string msg = error_of(with("  outcome: ok\n", "  outcome: hazard\n  rule: race.read_before_complet\n"));
    CHECK_THAT(msg, Catch::Contains("expect.rule: unknown rule \"race.read_before_complet\"; did you mean "
                                    "race.read_before_complete? allowed: proxy.generic_to_async,"));
    // The helper tmasim explain may call.
    CHECK(did_you_mean_rule("mbarrier.tx_rang") == "did you mean mbarrier.tx_range?");
    CHECK(did_you_mean_rule("race.nope").empty());
}

TEST_CASE("a loop written as a one-key item says how a loop is written") {
    const std::string loop_item = with("  - {op: sync}\n", "  - loop: {var: i, count: 2, body: [{op: sync}]}\n");
    CHECK_THAT(error_of(loop_item),
               Catch::Contains("program[2].loop: a loop is an op of its own; allowed: `- op: loop` with var, count and body") &&
                   Catch::Contains("`- {op: loop, var: i, count: 4, body: [...]}`"));
    const std::string keyed_op = with("  - {op: sync}\n", "  - sync: {}\n");
    CHECK_THAT(error_of(keyed_op), Catch::Contains("program[2].sync: an op's name is the value of its `op` key; "
                                                   "allowed: `- {op: sync, ...}`"));
    // Other items without `op` still say the key is missing.
    CHECK_THAT(error_of(with("  - {op: sync}\n", "  - {barrier: bar}\n")),
               Catch::Contains("program[2].op: required key is missing"));
}

}  // namespace test_suggestions
