#include <catch2/catch.hpp>

#include <stdexcept>
#include <utility>
#include <vector>

#include "model/state/proxy_tracker.h"

using tmasim::model::ProxyTracker;
using tmasim::model::VectorClock;

// Threads 0 (the TMA issuer) and 1..2 (writers); 256 bytes of shared memory.
namespace {
ProxyTracker two_writers() {
    ProxyTracker p(4, 256);
    p.generic_write(1, 0, 4, 7);
    p.generic_write(2, 4, 4, 7);
    return p;
}
}  // namespace

TEST_CASE("proxy: writers fence, then sync: safe (B12 a)", "[model][proxy]") {
    ProxyTracker p = two_writers();
    p.fence_proxy_async(1);
    p.fence_proxy_async(2);
    p.cta_sync({0, 1, 2, 3});
    CHECK_FALSE(p.check_async_read(0, 0, 8));
}

TEST_CASE("proxy: an async write clears exactly the generic granules it overlaps", "[model][proxy]") {
    // Async writes touch only the span generic writes reached; one that covers part of it,
    // or lies wholly outside, must leave the rest as it was.
    ProxyTracker p(2, 256);
    p.generic_write(1, 16, 8, 3);   // granules 4-5
    p.generic_write(1, 64, 16, 5);  // granules 16-19
    p.async_write(128, 64, 7);      // outside every generic write
    p.async_write(20, 48, 7);       // granules 5-16
    const auto v = p.check_async_read(0, 0, 256);
    REQUIRE(v);
    CHECK(v->first_byte == 16);
    CHECK(v->last_byte == 79);
    CHECK(v->ops == std::vector<int>{3, 5});
    CHECK_FALSE(p.check_async_read(0, 20, 48));
    CHECK(p.check_async_read(0, 16, 4));
    CHECK(p.check_async_read(0, 68, 12));
    CHECK_THROWS_AS(p.async_write(250, 8, 7), std::out_of_range);
}

TEST_CASE("proxy: before any generic write, reads find nothing and ranges outside throw", "[model][proxy]") {
    // The granules are made on the first generic write; until then the checks answer as
    // the all-none granules did, out_of_range (with the vector's own text) included.
    ProxyTracker p(2, 64);
    p.async_write(0, 64, 1);
    CHECK_FALSE(p.check_async_read(0, 0, 64));
    CHECK_THROWS_AS(p.check_async_read(0, 60, 8), std::out_of_range);
    CHECK_THROWS_AS(p.check_async_read(0, -8, 4), std::out_of_range);
    std::string lazy, made;
    try {
        p.check_async_read(0, 60, 8);
    } catch (const std::out_of_range& e) {
        lazy = e.what();
    }
    p.generic_write(1, 0, 4, 2);
    try {
        p.check_async_read(0, 60, 8);
    } catch (const std::out_of_range& e) {
        made = e.what();
    }
    CHECK(!lazy.empty());
    CHECK(lazy == made);
}

TEST_CASE("proxy: sync, then the issuer fences: safe (B12 b)", "[model][proxy]") {
    ProxyTracker p = two_writers();
    p.cta_sync({0, 1, 2, 3});
    p.fence_proxy_async(0);
    CHECK_FALSE(p.check_async_read(0, 0, 8));
}

TEST_CASE("proxy: issuer fences before the sync: error", "[model][proxy]") {
    ProxyTracker p = two_writers();
    p.fence_proxy_async(0);
    p.cta_sync({0, 1, 2, 3});
    auto v = p.check_async_read(0, 0, 8);
    REQUIRE(v);
    CHECK(v->threads == std::vector<int>{1, 2});
    CHECK(v->ops == std::vector<int>{7});
    CHECK(v->first_byte == 0);
    CHECK(v->last_byte == 7);
}

TEST_CASE("proxy: no fence at all: error, unwritten and other bytes are fine", "[model][proxy]") {
    ProxyTracker p = two_writers();
    p.cta_sync({0, 1, 2, 3});
    auto v = p.check_async_read(0, 0, 64);
    REQUIRE(v);
    CHECK(v->last_byte == 7);  // only the written granules
    CHECK_FALSE(p.check_async_read(0, 8, 64));
}

TEST_CASE("proxy: a writer fence before its write does not count", "[model][proxy]") {
    ProxyTracker p(2, 64);
    p.fence_proxy_async(1);
    p.generic_write(1, 0, 4, 3);
    p.cta_sync({0, 1});
    CHECK(p.check_async_read(0, 0, 4));
}

TEST_CASE("proxy: a writer fence with no sync to the issuer does not count", "[model][proxy]") {
    ProxyTracker p(2, 64);
    p.generic_write(1, 0, 4, 3);
    p.fence_proxy_async(1);
    CHECK(p.check_async_read(0, 0, 4));
    p.cta_sync({0, 1});
    CHECK_FALSE(p.check_async_read(0, 0, 4));
}

TEST_CASE("proxy: the writer is the issuer and fences in between (B12 c)", "[model][proxy]") {
    ProxyTracker p(2, 64);
    p.generic_write(0, 0, 4, 3);
    CHECK(p.check_async_read(0, 0, 4));
    p.fence_proxy_async(0);
    CHECK_FALSE(p.check_async_read(0, 0, 4));
    p.generic_write(0, 0, 4, 5);  // a newer write needs a newer fence
    CHECK(p.check_async_read(0, 0, 4));
}

TEST_CASE("proxy: mbarrier release-arrive -> acquire-wait carries the fence", "[model][proxy]") {
    ProxyTracker p(2, 64);
    p.generic_write(1, 0, 4, 3);
    p.fence_proxy_async(1);
    VectorClock phase;
    p.release_into(1, phase);
    CHECK(p.check_async_read(0, 0, 4));  // not acquired yet
    p.acquire(0, phase);
    CHECK_FALSE(p.check_async_read(0, 0, 4));
}

TEST_CASE("proxy: async writes (TMA landing) clear the generic writer", "[model][proxy]") {
    ProxyTracker p(2, 64);
    p.generic_write(1, 0, 8, 3);
    p.async_write(0, 8, 4);
    CHECK_FALSE(p.check_async_read(0, 0, 8));
}

TEST_CASE("proxy: thread id ranges for messages", "[model][proxy]") {
    CHECK(tmasim::model::format_id_ranges({0, 1, 2, 3}) == "0-3");
    CHECK(tmasim::model::format_id_ranges({0, 2, 3, 7}) == "0,2-3,7");
    CHECK(tmasim::model::format_id_ranges({}) == "");
}

TEST_CASE("proxy: a clock acquired from elsewhere carries agents that never ticked here", "[model][proxy]") {
    // Joins skip blocks of agents that never ticked; a released clock that knows such an
    // agent (made by another tracker of the same shape) must still be learned in full.
    ProxyTracker here(16, 256), there(16, 256);
    const int cp_agent = there.cp_agent(9);
    const uint32_t time = there.advance(cp_agent);
    VectorClock released = there.empty_clock();
    there.release_into(cp_agent, released);
    CHECK_FALSE(here.knows(3, cp_agent, time));
    here.acquire(3, released);
    CHECK(here.knows(3, cp_agent, time));
    // ...and passes it on through a CTA sync and a release of its own.
    here.cta_sync({3, 4});
    CHECK(here.knows(4, cp_agent, time));
    VectorClock passed = here.empty_clock();
    here.release_into(4, passed);
    here.acquire(5, passed);
    CHECK(here.knows(5, cp_agent, time));
}

TEST_CASE("proxy: a tracker without cp.async agents answers as one with them", "[model][proxy]") {
    // A program with no cp.async op gets clocks without the cp agents' slots: the same
    // sequence of writes, fences, syncs, a TMA barrier's release and acquire, and landings
    // must find the same violations and the same knowledge of every thread and TMA agent.
    ProxyTracker full(64, 1024, 3), compact(64, 1024, 3, false);
    CHECK(compact.empty_clock().size() < full.empty_clock().size());
    VectorClock full_phase, compact_phase;
    const auto same = [&] {
        for (int issuer : {0, 5, 40}) {
            const auto a = full.check_async_read(issuer, 0, 1024), b = compact.check_async_read(issuer, 0, 1024);
            REQUIRE(a.has_value() == b.has_value());
            if (a) {
                CHECK(a->first_byte == b->first_byte);
                CHECK(a->last_byte == b->last_byte);
                CHECK(a->threads == b->threads);
                CHECK(a->ops == b->ops);
            }
        }
        for (int t = 0; t < 64; t += 9) {
            for (int u = 0; u < 64; u += 7) CHECK(full.knows(t, u, 1) == compact.knows(t, u, 1));
            for (int b = 0; b < 3; ++b)
                for (uint32_t time : {1u, 2u, 3u})
                    CHECK(full.knows(t, full.tma_agent(b), time) == compact.knows(t, compact.tma_agent(b), time));
        }
    };
    for (ProxyTracker* p : {&full, &compact}) {
        p->generic_write(3, 0, 64, 1);
        p->generic_write(33, 128, 32, 2);
        p->fence_proxy_async(3);
    }
    same();
    for (ProxyTracker* p : {&full, &compact}) {
        std::vector<int> all;
        for (int t = 0; t < 64; ++t) all.push_back(t);
        p->cta_sync(all);
    }
    same();
    for (auto [p, phase] : {std::pair{&full, &full_phase}, std::pair{&compact, &compact_phase}}) {
        p->async_write(512, 256, 3, p->tma_agent(1));
        p->release_into(p->tma_agent(1), *phase);
        p->fence_proxy_async(33);
        p->release_into(33, *phase);
        const int waiters[] = {0, 1, 2, 40};
        p->acquire_each(waiters, 4, *phase);
        p->generic_write(40, 600, 8, 4);
    }
    same();
    // Its one cp slot never ticks: a cp.async signal there is a model bug, not a silent merge.
    CHECK(compact.cp_agent(3) == compact.cp_agent(60));
    CHECK_THROWS_AS(compact.advance(compact.cp_agent(3)), std::logic_error);
}

TEST_CASE("proxy: a sync of threads alone on a row raises it in place, and the cached acquire is not reused",
          "[model][proxy]") {
    // Threads 0 and 1 acquire one release (cached: the row they had -> the row they got);
    // threads 2 and 3 do not. A sync of 0 and 1 finds their row held only by them and the
    // cache, and raises it in place. Thread 2 then acquires the same release from the row
    // the cache started from: it must learn the release, not the sync it was not in.
    ProxyTracker p(4, 256, 1, false);
    const int agent = p.tma_agent(0);
    p.advance(agent);
    VectorClock phase = p.empty_clock();
    p.release_into(agent, phase);
    const int pair[] = {0, 1};
    p.acquire_each(pair, 2, phase);
    p.cta_sync({0, 1});
    p.cta_sync({0, 1});  // again: the row is the pair's alone now, the cache dropped
    const uint32_t synced = p.time_of(0);
    CHECK(p.knows(1, 0, synced));
    p.acquire(2, phase);
    CHECK(p.knows(2, agent, p.time_of(agent)));
    CHECK_FALSE(p.knows(2, 0, 1));
    CHECK_FALSE(p.knows(2, 1, 1));
    CHECK_FALSE(p.knows(3, agent, 1));
    // A sync of all four: each learns the others' clocks, 0 and 1 theirs from before.
    p.cta_sync({0, 1, 2, 3});
    for (int t = 0; t < 4; ++t)
        for (int u = 0; u < 4; ++u) CHECK(p.knows(t, u, p.time_of(u)));
    CHECK(p.knows(3, agent, p.time_of(agent)));
}
