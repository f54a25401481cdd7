// WgmmaState without SystemC: the fence rule per warp (F32), groups retiring in order
// under wait_group (B13), results landing in the registers only when retired, and the
// accumulator value an mma chain adds to.
#include <catch2/catch.hpp>

#include "model/state/wgmma_state.h"

using namespace tmasim;
using namespace tmasim::model;

namespace {

std::vector<AccumulatorDecl> accumulators() {
    AccumulatorDecl d;
    d.name = "d";
    d.n = 8;
    AccumulatorDecl e;
    e.name = "e";
    e.n = 16;
    return {d, e};
}

WgmmaMma mma(int op, const std::string& acc, int n, float value, int64_t complete_at) {
    WgmmaMma m;
    m.op = op;
    m.acc = acc;
    m.result.assign(static_cast<size_t>(16) * n, value);
    m.complete_at = complete_at;
    return m;
}

}  // namespace

TEST_CASE("wgmma fence rule: every warp fences before its first mma and after register accesses", "[model][wgmma]") {
    WgmmaState s(accumulators());
    // No fence at all yet: the first mma of each warp is uncovered.
    for (int w = 0; w < 4; ++w) {
        const auto gap = s.fence_gap(w, "d");
        REQUIRE(gap);
        CHECK(gap->never_fenced);
    }
    s.fence(0);
    CHECK_FALSE(s.fence_gap(0, "d"));
    CHECK(s.fence_gap(1, "d"));  // warp 1 has not fenced: the rule is per warp
    // A register access after the fence needs another fence before an mma on that
    // accumulator, not before one on another accumulator.
    s.register_access(0, "d", 7);
    auto gap = s.fence_gap(0, "d");
    REQUIRE(gap);
    CHECK_FALSE(gap->never_fenced);
    CHECK(gap->access_op == 7);
    CHECK_FALSE(s.fence_gap(0, "e"));
    s.register_access(0, "d", 9);
    CHECK(s.fence_gap(0, "d")->access_op == 9);  // the latest access is the one reported
    s.fence(0);
    CHECK_FALSE(s.fence_gap(0, "d"));
    // mma-to-mma chains need no fence: issuing an mma leaves the warp covered.
    s.issue(0, mma(10, "d", 8, 1.0f, 100));
    CHECK_FALSE(s.fence_gap(0, "d"));
}

TEST_CASE("wgmma results reach the registers only when wait_group retires their group", "[model][wgmma]") {
    WgmmaState s(accumulators());
    CHECK(s.registers(2, "d") == std::vector<float>(16 * 8, 0.0f));
    s.issue(2, mma(5, "d", 8, 3.0f, 200));
    // Issued, not committed: pending, and the next mma of the chain adds to its result.
    REQUIRE(s.pending_writer(2, "d"));
    CHECK(s.pending_writer(2, "d")->op == 5);
    CHECK_FALSE(s.pending_writer(2, "e"));
    CHECK_FALSE(s.pending_writer(1, "d"));  // other warps have their own registers
    CHECK(s.chain_value(2, "d") == std::vector<float>(16 * 8, 3.0f));
    CHECK(s.registers(2, "d") == std::vector<float>(16 * 8, 0.0f));
    // wait_group covers committed groups only.
    CHECK(s.wait(2, 0, 50) == 50);
    CHECK(s.pending_writer(2, "d"));
    CHECK(s.uncommitted(2) == 1);
    s.commit(2);
    CHECK(s.uncommitted(2) == 0);
    CHECK(s.pending_groups(2) == 1);
    s.issue(2, mma(6, "d", 8, 4.0f, 300));
    s.commit(2);
    // wait_group 1: the older group retires (its completion time comes back), the newer stays.
    CHECK(s.wait(2, 1, 60) == 200);
    CHECK(s.registers(2, "d") == std::vector<float>(16 * 8, 3.0f));
    REQUIRE(s.pending_writer(2, "d"));
    CHECK(s.pending_writer(2, "d")->op == 6);
    CHECK(s.chain_value(2, "d") == std::vector<float>(16 * 8, 4.0f));
    // A group that completed before the wait costs nothing more.
    CHECK(s.wait(2, 0, 400) == 400);
    CHECK(s.registers(2, "d") == std::vector<float>(16 * 8, 4.0f));
    CHECK_FALSE(s.pending_writer(2, "d"));
    CHECK(s.pending_groups(2) == 0);
}

TEST_CASE("wgmma groups retire in commit order, empty groups are allowed", "[model][wgmma]") {
    WgmmaState s(accumulators());
    s.commit(0);  // an empty group
    s.issue(0, mma(1, "d", 8, 1.0f, 100));
    s.issue(0, mma(2, "e", 16, 2.0f, 150));
    s.commit(0);
    s.issue(0, mma(3, "d", 8, 5.0f, 250));
    s.commit(0);
    CHECK(s.pending_groups(0) == 3);
    CHECK(s.wait(0, 2, 10) == 10);  // retires the empty group only
    CHECK(s.pending_groups(0) == 2);
    CHECK(s.registers(0, "e") == std::vector<float>(16 * 16, 0.0f));
    CHECK(s.wait(0, 1, 10) == 150);  // both mmas of the second group
    CHECK(s.registers(0, "d") == std::vector<float>(16 * 8, 1.0f));
    CHECK(s.registers(0, "e") == std::vector<float>(16 * 16, 2.0f));
    CHECK(s.pending_writer(0, "d")->op == 3);
    CHECK_FALSE(s.pending_writer(0, "e"));
}

TEST_CASE("wgmma state rejects unknown accumulators and results of the wrong size", "[model][wgmma]") {
    WgmmaState s(accumulators());
    CHECK_THROWS_AS(s.registers(0, "nope"), std::out_of_range);
    CHECK_THROWS_AS(s.issue(0, mma(1, "e", 8, 0.0f, 0)), std::logic_error);  // e has N = 16
    CHECK(s.accumulator_n("e") == 16);
}
