// OpLanesTable: every CTA of a run reads one table of each op's lanes per warp; it must give
// what the selector picks in that warp, with the events' lanes, and nothing for an op that
// is not the scenario's.
#include <catch2/catch.hpp>

#include "model/sm/op_lanes.h"
#include "scenarios/loader.h"

using namespace tmasim;
using tmasim::model::OpLanes;
using tmasim::model::OpLanesTable;

namespace {

// 80 threads: warps 0 and 1 whole, warp 2 with 16 live lanes.
const char* kScenario = R"(scenario: op_lanes
arch: sm_90
launch: {grid: [3], block: 80}
shared:
  buf: {type: f32, shape: [80]}
program:
  - {op: shared.store, buffer: buf, index: tid, value: 1}
  - {op: shared.store, buffer: buf, index: tid, value: 2, by: thread33}
  - {op: shared.store, buffer: buf, index: tid, value: 3, by: "lane % 8 == 0 && warp != 1"}
  - op: loop
    var: i
    count: 2
    body:
      - {op: shared.store, buffer: buf, index: tid, value: 4, by: warp2}
expect:
  outcome: ok
)";

std::vector<int> range(int first, int last) {
    std::vector<int> v;
    for (int i = first; i <= last; ++i) v.push_back(i);
    return v;
}

}  // namespace

TEST_CASE("op lanes: each warp's executing and event lanes, from one table for the run", "[model][op_lanes]") {
    const Scenario s = load_scenario_text(kScenario, "op_lanes.yaml");
    const OpLanesTable table(s);
    const std::vector<const Op*> ops = s.all_ops();
    REQUIRE(ops.size() == 5);  // the loop is an op too
    auto lanes = [&](int op, int warp) -> const OpLanes& {
        const OpLanes* l = table.find(*ops[static_cast<size_t>(op)], warp);
        REQUIRE(l != nullptr);
        return *l;
    };
    // by all: every live lane; a warp-wide op logs its events on lane 0.
    CHECK(lanes(0, 0).lanes == range(0, 31));
    CHECK(lanes(0, 2).lanes == range(0, 15));  // threads 64..79 only
    CHECK(lanes(0, 1).events == std::vector<int>{0});
    // by thread33: lane 1 of warp 1, which logs its own events; no lane elsewhere.
    CHECK(lanes(1, 1).lanes == std::vector<int>{1});
    CHECK(lanes(1, 1).events == std::vector<int>{1});
    CHECK(lanes(1, 0).lanes.empty());
    CHECK(lanes(1, 0).events.empty());
    // A predicate over lane and warp.
    CHECK(lanes(2, 0).lanes == std::vector<int>{0, 8, 16, 24});
    CHECK(lanes(2, 1).lanes.empty());
    CHECK(lanes(2, 2).lanes == std::vector<int>{0, 8});
    // An op inside a loop has its own row.
    CHECK(lanes(4, 2).lanes == range(0, 15));
    CHECK(lanes(4, 0).lanes.empty());
    // The table is what op_lanes_of makes for each op and warp.
    for (const Op* op : ops)
        for (int w = 0; w < 3; ++w) {
            const OpLanes made = model::op_lanes_of(*op, w, 80);
            CHECK(table.find(*op, w)->lanes == made.lanes);
            CHECK(table.find(*op, w)->events == made.events);
        }
}

TEST_CASE("op lanes: no row for a warp past the block or an op the scenario does not hold", "[model][op_lanes]") {
    const Scenario s = load_scenario_text(kScenario, "op_lanes.yaml");
    const OpLanesTable table(s);
    const Op& first = s.program.front();
    CHECK(table.find(first, 3) == nullptr);   // 80 threads: warps 0..2
    CHECK(table.find(first, -1) == nullptr);
    const Op copy = first;                    // same id, another op
    CHECK(table.find(copy, 0) == nullptr);
    Op unnumbered = first;
    unnumbered.id = -1;
    CHECK(table.find(unnumbered, 0) == nullptr);
}
