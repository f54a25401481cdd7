#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/state/barrier_set.h"
#include "model/state/mbarrier.h"

using tmasim::model::Mbarrier;
using tmasim::model::MbarrierError;

namespace {
std::string rule_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const MbarrierError& e) {
        return e.rule();
    }
    return "";
}
}  // namespace

TEST_CASE("mbarrier: init sets phase 0 and pending = expected = count", "[model][mbarrier]") {
    Mbarrier m;
    m.init(3);
    CHECK(m.live());
    CHECK(m.phase() == 0);
    CHECK(m.pending() == 3);
    CHECK(m.expected() == 3);
    CHECK(m.tx_count() == 0);
    CHECK_FALSE(m.test_wait(0));  // phase 0 not complete yet
    CHECK(m.test_wait(1));        // parity 1 names the phase before: treated as complete
}

TEST_CASE("mbarrier: arrivals complete a phase, flip parity and reset pending", "[model][mbarrier]") {
    Mbarrier m;
    m.init(2);
    CHECK_FALSE(m.arrive());
    CHECK(m.pending() == 1);
    CHECK(m.arrive());
    CHECK(m.phase() == 1);
    CHECK(m.pending() == 2);
    CHECK(m.test_wait(0));
    CHECK_FALSE(m.test_wait(1));
    CHECK(m.arrive(2));  // arrive(count) subtracts count
    CHECK(m.phase() == 2);
    CHECK_FALSE(m.test_wait(0));
    CHECK(m.test_wait(1));
}

TEST_CASE("mbarrier: the phase waits for both arrivals and tx-count", "[model][mbarrier]") {
    Mbarrier m;
    m.init(1);
    CHECK_FALSE(m.expect_tx(4096));
    CHECK_FALSE(m.arrive());  // pending 0 but tx 4096: not complete
    CHECK(m.pending() == 0);
    CHECK(m.tx_count() == 4096);
    CHECK_FALSE(m.complete_tx(1024));
    CHECK(m.tx_count() == 3072);
    CHECK(m.expected_bytes() == 4096);
    CHECK(m.delivered_bytes() == 1024);
    CHECK(m.complete_tx(3072));
    CHECK(m.phase() == 1);
    CHECK(m.tx_count() == 0);
    CHECK(m.expected_bytes() == 0);  // per-phase counters reset
}

TEST_CASE("mbarrier: tx-count is signed, complete_tx may precede expect_tx", "[model][mbarrier]") {
    Mbarrier m;
    m.init(1);
    CHECK_FALSE(m.complete_tx(4096));
    CHECK(m.tx_count() == -4096);
    CHECK_FALSE(m.arrive());  // pending 0, tx -4096: over-delivered, not complete
    CHECK(m.expect_tx(4096)); // brings tx back to 0: completes
    CHECK(m.phase() == 1);
}

TEST_CASE("mbarrier: ranges of count and tx-count", "[model][mbarrier]") {
    Mbarrier m;
    CHECK(rule_of([&] { m.init(0); }) == "mbarrier.count_range");
    CHECK(rule_of([&] { m.init(Mbarrier::kMaxCount + 1); }) == "mbarrier.count_range");
    m.init(Mbarrier::kMaxCount);
    CHECK(m.pending() == (1 << 20) - 1);
    CHECK(rule_of([&] { m.expect_tx(Mbarrier::kMaxTx + 1); }) == "mbarrier.tx_range");
    m.expect_tx(Mbarrier::kMaxTx);
    // Summed expect_tx overflowing the range is an error, and leaves the state unchanged.
    CHECK(rule_of([&] { m.expect_tx(1); }) == "mbarrier.tx_range");
    CHECK(m.tx_count() == Mbarrier::kMaxTx);
    Mbarrier n;
    n.init(1);
    n.complete_tx(Mbarrier::kMaxTx);
    CHECK(rule_of([&] { n.complete_tx(1); }) == "mbarrier.tx_range");
    CHECK(n.tx_count() == -Mbarrier::kMaxTx);
}

TEST_CASE("mbarrier: lifecycle errors (uninit, reinit, inval)", "[model][mbarrier]") {
    Mbarrier m;
    CHECK(rule_of([&] { m.arrive(); }) == "mbarrier.uninit");
    CHECK(rule_of([&] { m.expect_tx(16); }) == "mbarrier.uninit");
    CHECK(rule_of([&] { m.test_wait(0); }) == "mbarrier.uninit");
    m.init(1);
    CHECK(rule_of([&] { m.init(1); }) == "mbarrier.reinit");
    m.arrive();
    CHECK(m.phase() == 1);
    m.inval();
    CHECK_FALSE(m.live());
    CHECK(rule_of([&] { m.arrive(); }) == "mbarrier.uninit");
    m.init(4);  // re-init after inval is fine and starts over
    CHECK(m.phase() == 0);
    CHECK(m.pending() == 4);
}

TEST_CASE("mbarrier: more arrivals than pending is an error", "[model][mbarrier]") {
    Mbarrier m;
    m.init(2);
    CHECK(rule_of([&] { m.arrive(3); }) == "mbarrier.pending_range");
    CHECK(m.pending() == 2);
    m.expect_tx(16);
    m.arrive(2);  // pending 0, tx 16: waits for bytes
    CHECK(rule_of([&] { m.arrive(); }) == "mbarrier.pending_range");
}

TEST_CASE("mbarrier: credit_stays_open says exactly when complete_tx neither throws nor completes",
          "[model][mbarrier]") {
    // TMA landings credit runs of chunks at once on this promise (CtaModule::complete_tx_run).
    std::vector<Mbarrier> states(1);  // not initialised
    for (int64_t pending : {0, 1, 2}) {
        for (int64_t tx : {int64_t{0}, int64_t{256}, int64_t{16384}, -Mbarrier::kMaxTx + 8, Mbarrier::kMaxTx}) {
            Mbarrier b;
            b.init(2);
            if (tx > 0) b.expect_tx(tx);
            if (tx < 0) b.complete_tx(-tx);
            for (int64_t i = 0; i < 2 - pending; ++i) b.arrive(1);
            if (b.phase() == 0) states.push_back(b);  // those the arrivals did not complete
        }
    }
    int open = 0, closed = 0;
    for (const Mbarrier& s : states) {
        for (int64_t bytes : {int64_t{-1}, int64_t{0}, int64_t{16}, int64_t{256}, int64_t{16384}, Mbarrier::kMaxTx,
                              Mbarrier::kMaxTx + 1}) {
            Mbarrier b = s;
            bool threw = false, completed = false;
            try {
                completed = b.complete_tx(bytes);
            } catch (const MbarrierError&) {
                threw = true;
            }
            INFO("live " << s.live() << " pending " << s.pending() << " tx " << s.tx_count() << " bytes " << bytes);
            CHECK(s.credit_stays_open(bytes) == (!threw && !completed));
            (!threw && !completed ? open : closed)++;
        }
    }
    CHECK(open > 10);
    CHECK(closed > 10);
}

// BarrierSlot::phase_bytes appends phases as they complete; it must answer as the std::map
// it replaced whatever the order of the phases set.
TEST_CASE("phase bytes answer as a map of completed phases", "[model][mbarrier]") {
    tmasim::model::PhaseBytes bytes;
    std::map<int64_t, int64_t> expected;
    const std::vector<std::pair<int64_t, int64_t>> sets{{0, 16}, {1, 32}, {2, 0}, {5, 8}, {3, 4}, {1, 64}, {-1, 7}, {9, 1}};
    for (const auto& [phase, value] : sets) {
        bytes.set(phase, value);
        expected[phase] = value;
        for (int64_t p = -2; p <= 10; ++p) {
            const auto it = expected.find(p);
            CHECK(bytes.get(p) == (it == expected.end() ? 0 : it->second));
        }
    }
    CHECK(bytes.size() == expected.size());
    bytes.clear();
    CHECK(bytes.get(1) == 0);
}

TEST_CASE("ObservedPhases: whole-warp and some-lane raises read as a per-thread vector", "[model][mbarrier]") {
    // 80 threads: warps 0 and 1 whole, warp 2 of 16. Whole warps are kept as one value until
    // some lanes only are raised; every read must equal a plain vector's raised the same way.
    tmasim::model::ObservedPhases seen;
    seen.reset(80);
    std::vector<int64_t> expected(80, -1);
    auto raise = [&](std::vector<int> threads, int64_t phase) {
        seen.raise(threads.data(), threads.size(), phase);
        for (int t : threads) expected[static_cast<size_t>(t)] = std::max(expected[static_cast<size_t>(t)], phase);
        for (int t = 0; t < 80; ++t) REQUIRE(seen.at(t) == expected[static_cast<size_t>(t)]);
    };
    auto warp = [](int w, int count) {
        std::vector<int> t;
        for (int i = 0; i < count; ++i) t.push_back(w * 32 + i);
        return t;
    };
    raise(warp(0, 32), 3);
    raise(warp(2, 16), 1);       // the short last warp, whole
    raise(warp(0, 32), 2);       // lower: no change
    raise({33, 40}, 5);          // some lanes of warp 1
    raise(warp(1, 32), 4);       // then all of warp 1: 33 and 40 keep 5
    raise({0}, 7);               // one lane of warp 0
    raise(warp(0, 32), 8);       // all raised past it: one value again
    raise({1, 0}, 9);            // not ascending: lane by lane
    raise(warp(1, 31), 10);      // 31 of 32 lanes is not the whole warp
    seen.reset();
    for (int t = 0; t < 80; ++t) CHECK(seen.at(t) == -1);
    CHECK_THROWS_AS(seen.at(80), std::out_of_range);
    const int outside[] = {64, 80};
    CHECK_THROWS_AS(seen.raise(outside, 2, 1), std::out_of_range);
    CHECK(seen.at(64) == 1);     // lanes before the bad one were raised, as before
}
