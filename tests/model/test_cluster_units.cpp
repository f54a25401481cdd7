// The cluster model's plain classes, without SystemC: the cluster barrier's phases, the
// cluster-wide happens-before, ctaMask decoding, st.async tx accounting, DSMEM races and
// the proxy rule for bytes a peer wrote.
#include <catch2/catch.hpp>

#include <optional>

#include "model/state/cluster_barrier.h"
#include "model/state/cluster_clock.h"
#include "model/state/cluster_mask.h"
#include "model/state/dsmem_races.h"
#include "model/state/st_async_batch.h"

using namespace tmasim::model;

TEST_CASE("cluster barrier: a phase completes when every live agent arrived", "[model][cluster]") {
    ClusterBarrier b(3);
    auto a0 = b.arrive(0);
    CHECK(a0.counted);
    CHECK_FALSE(a0.completed);
    CHECK(a0.phase == 0);
    CHECK(b.arrive(1).counted);
    CHECK(b.missing() == std::vector<int>{2});
    CHECK_FALSE(b.passed(0));
    auto a2 = b.arrive(2);
    CHECK(a2.completed);
    CHECK(b.phase() == 1);
    CHECK(b.passed(0));
    CHECK_FALSE(b.passed(1));
    // Each waits for the phase of its own arrival, then arrives again in phase 1.
    CHECK(b.wait_target(1) == 0);
    b.waited(1);
    auto again = b.arrive(1);
    CHECK(again.phase == 1);
    CHECK_FALSE(again.repeated);
    CHECK(b.missing() == std::vector<int>{0, 2});
}

TEST_CASE("cluster barrier: a second arrive before the wait is flagged, and dropped within a phase", "[model][cluster]") {
    ClusterBarrier b(2);
    b.arrive(0);
    auto twice = b.arrive(0);
    CHECK(twice.repeated);
    CHECK_FALSE(twice.counted);  // the phase still waits for agent 1
    CHECK(b.missing() == std::vector<int>{1});
    CHECK(b.arrive(1).completed);
    // Agent 0 never waited: arriving now is flagged, but counts in phase 1.
    auto late = b.arrive(0);
    CHECK(late.repeated);
    CHECK(late.counted);
    CHECK(late.phase == 1);
    CHECK(b.wait_target(0) == 1);
}

TEST_CASE("cluster barrier: exited threads are not waited for, a wait without an arrive never passes", "[model][cluster]") {
    ClusterBarrier b(3);
    // Agent 2 waits without arriving: it waits for phase 0, which needs its own arrival.
    CHECK(b.wait_target(2) == 0);
    b.arrive(0);
    CHECK_FALSE(b.exit(1));
    CHECK_FALSE(b.passed(0));
    CHECK(b.missing() == std::vector<int>{2});
    // Its exit completes the phase the others arrived in.
    CHECK(b.exit(2));
    CHECK(b.passed(0));
    // Later phases need agent 0 only.
    b.waited(0);
    CHECK(b.arrive(0).completed);
    CHECK(b.phase() == 2);
    // Threads that all exit complete no phase that nobody arrived in.
    ClusterBarrier c(2);
    CHECK_FALSE(c.exit(0));
    CHECK_FALSE(c.exit(1));
    CHECK(c.phase() == 0);
}

TEST_CASE("cluster clock: release/acquire and barrier edges, copy on write", "[model][cluster]") {
    ClusterClock c(4);
    const uint32_t w = c.tick(0);  // agent 0 writes
    CHECK(w == 1);
    CHECK(c.knows(0, 0, w));
    CHECK_FALSE(c.knows(1, 0, w));
    // A release by 0 acquired by 1.
    const auto rel = c.snapshot(0);
    c.acquire(1, rel);
    CHECK(c.knows(1, 0, w));
    CHECK_FALSE(c.knows(2, 0, w));
    // What 0 does after the release is not known.
    const uint32_t w2 = c.tick(0);
    CHECK_FALSE(c.knows(1, 0, w2));
    // A barrier among 1, 2, 3 passes on what 1 knew; agent 0 is not part of it.
    const uint32_t w3 = c.tick(3);
    c.sync({1, 2, 3});
    CHECK(c.knows(2, 0, w));
    CHECK(c.knows(1, 3, w3));
    CHECK_FALSE(c.knows(0, 3, w3));
    // 2 learns something alone: 1 and 3 shared its vector and must not learn it too.
    c.acquire(2, c.snapshot(0));
    CHECK(c.knows(2, 0, w2));
    CHECK_FALSE(c.knows(1, 0, w2));
    CHECK_FALSE(c.knows(3, 0, w2));
}

TEST_CASE("ctaMask: bit i is rank i, bits at or above the cluster size name no CTA", "[model][cluster][multicast]") {
    auto both = decode_cta_mask(0b11, 2);
    CHECK(both.ranks == std::vector<int>{0, 1});
    CHECK(both.outside.empty());
    auto outside = decode_cta_mask(0b100, 2);
    CHECK(outside.ranks.empty());
    CHECK(outside.outside == std::vector<int>{2});
    auto odd = decode_cta_mask(0b1010, 4);
    CHECK(odd.ranks == std::vector<int>{1, 3});
    auto all = decode_cta_mask(0xFFFF, 8);
    CHECK(all.ranks == std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7});
    CHECK(all.outside == std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15});
    CHECK(decode_cta_mask(0, 8).ranks.empty());
}

TEST_CASE("st.async: each store credits its own CTA's barrier, a barrier elsewhere is undefined", "[model][cluster][st_async]") {
    StAsyncBatch b;
    CHECK(b.add({0, 1, 1, 0, 4}));
    CHECK(b.add({1, 1, 1, 4, 4}));
    CHECK(b.add({2, 2, 2, 16, 16}));   // a .v4.b32 into rank 2
    CHECK_FALSE(b.add({3, 1, 0, 12, 8}));  // data in rank 1, barrier in rank 0
    CHECK(b.deliveries().size() == 3);
    REQUIRE(b.undefined().size() == 1);
    CHECK(b.undefined()[0].thread == 3);
    const auto credits = b.credits();
    CHECK(credits.size() == 2);
    CHECK(credits.at(1) == 8);
    CHECK(credits.at(2) == 16);
    CHECK(credits.count(0) == 0);  // the undefined store's tx goes nowhere
}

namespace {
// Two CTAs (ranks 0 and 1) of 4 threads and one barrier: agents 0-3 are rank 0's threads,
// 4-7 rank 1's, 8 and 9 their barriers' TMA completions, 10-17 their cp.async units.
struct TwoCtas {
    ClusterAgents agents{2, 4, 1};
    ClusterClock clock{agents.total()};
    DsmemRaces races{agents, 64};
    std::optional<DsmemRace> access(int owner, int agent, int op, int64_t offset, int64_t bytes, bool write,
                                    bool async = false) {
        return races.access(clock, owner, DsmemAccess{agent, clock.tick(agent), op, write, async}, offset, bytes);
    }
};
}  // namespace

TEST_CASE("DSMEM races: a peer's store and the owner's read need a cluster-wide edge", "[model][cluster][dsmem]") {
    TwoCtas t;
    // Agent 0 (rank 0) stores bytes 8..15 of rank 1; agent 5 (rank 1) reads 12..19.
    CHECK_FALSE(t.access(1, 0, 10, 8, 8, true));
    auto race = t.access(1, 5, 11, 12, 8, false);
    REQUIRE(race);
    CHECK(race->earlier.agent == 0);
    CHECK(race->earlier.op == 10);
    CHECK(race->earlier.write);
    CHECK(race->first_byte == 12);
    CHECK(race->last_byte == 15);  // bytes 16..19 were never written
    // After a barrier between them (the cluster barrier's release/acquire), no race.
    TwoCtas s;
    CHECK_FALSE(s.access(1, 0, 10, 8, 8, true));
    s.clock.acquire(5, s.clock.snapshot(0));
    CHECK_FALSE(s.access(1, 5, 11, 12, 8, false));
}

TEST_CASE("DSMEM races: write after a peer's read, same-CTA pairs, st.async bytes", "[model][cluster][dsmem]") {
    TwoCtas t;
    // The owner (agent 4, rank 1) reads; a peer (agent 1) then overwrites unsynchronised.
    CHECK_FALSE(t.access(1, 4, 20, 0, 4, false));
    auto war = t.access(1, 1, 21, 0, 4, true);
    REQUIRE(war);
    CHECK(war->earlier.agent == 4);
    CHECK_FALSE(war->earlier.write);
    // Two threads of one CTA are not this checker's business.
    CHECK_FALSE(t.access(0, 2, 22, 32, 4, true));
    CHECK_FALSE(t.access(0, 3, 23, 32, 4, false));
    // st.async bytes: the owner's own reads are left to its AsyncWriteRegistry, another
    // CTA's reads are checked here.
    CHECK_FALSE(t.access(1, 0, 24, 40, 4, true, true));
    CHECK_FALSE(t.access(1, 6, 25, 40, 4, false));
    TwoCtas u;
    CHECK_FALSE(u.access(0, 4, 24, 40, 4, true, true));  // rank 1 st.async's into rank 0
    CHECK_FALSE(u.access(0, 1, 25, 40, 4, false));  // rank 0 reads its own: the registry's
    // A TMA landing overwrote the bytes: the peer's store is gone, the owner's own read is
    // its registry's.
    TwoCtas v;
    CHECK_FALSE(v.access(1, 0, 10, 0, 4, true));
    v.races.async_write(1, DsmemAccess{v.agents.tma(1, 0), v.clock.tick(v.agents.tma(1, 0)), 12, true}, 0, 4);
    CHECK_FALSE(v.access(1, 5, 11, 0, 4, false));
}

TEST_CASE("Cluster agents: threads, then each CTA's barriers' TMA agents, then its cp.async units",
          "[model][cluster][dsmem]") {
    const ClusterAgents a{2, 4, 3};
    CHECK(a.total() == 22);
    CHECK(a.tma(1, 2) == 13);
    CHECK(a.kind(13) == ClusterAgents::Kind::tma);
    CHECK(a.rank_of(13) == 1);
    CHECK(a.index_of(13) == 2);
    CHECK(a.cp_async(1, 3) == 21);
    CHECK(a.kind(21) == ClusterAgents::Kind::cp_async);
    CHECK(a.rank_of(21) == 1);
    CHECK(a.index_of(21) == 3);
    CHECK(a.rank_of(a.cp_async(0, 3)) == 0);
    CHECK(a.kind(7) == ClusterAgents::Kind::thread);
    CHECK(a.rank_of(7) == 1);
}

TEST_CASE("DSMEM races: a peer reading bytes an async copy writes into the owner", "[model][cluster][dsmem]") {
    TwoCtas t;
    const int tma = t.agents.tma(1, 0);
    // A (multicast) load into rank 1's bytes 16..47, issued at the TMA agent's time 1.
    const uint32_t issued = t.clock.tick(tma);
    t.races.async_write(1, DsmemAccess{tma, issued, 30, true}, 16, 32);
    // Rank 0's agent 2 reads 40..55 before anything published the landing: the race names
    // the copy and the overlapping bytes only.
    auto race = t.access(1, 2, 31, 40, 16, false);
    REQUIRE(race);
    CHECK(race->earlier.agent == tma);
    CHECK(race->earlier.op == 30);
    CHECK(race->first_byte == 40);
    CHECK(race->last_byte == 47);
    // Rank 1's own read is its AsyncWriteRegistry's business.
    CHECK_FALSE(t.access(1, 6, 32, 16, 4, false));
    // The phase's release carries the agent's time to a waiter (agent 4), a cluster barrier
    // to the peer (agent 3): now the peer's read is ordered after the landing.
    auto phase = std::make_shared<ClusterClock::Clock>(t.agents.total(), 0);
    (*phase)[tma] = issued;
    t.clock.acquire(4, phase);
    t.clock.acquire(3, t.clock.snapshot(4));
    CHECK_FALSE(t.access(1, 3, 33, 16, 32, false));
    // A later copy of the same agent is not covered by the earlier phase's release.
    t.races.async_write(1, DsmemAccess{tma, t.clock.tick(tma), 34, true}, 16, 4);
    CHECK(t.access(1, 3, 35, 16, 4, false));
}

TEST_CASE("DSMEM proxy: a peer's generic write read by the async proxy needs a covering fence", "[model][cluster][dsmem][proxy]") {
    // Agent 0 (rank 0) writes bytes 0..15 of rank 1; agent 4 (rank 1) then issues a TMA store of them.
    auto run = [](bool writer_fence, bool covers_peers, bool issuer_fence_after) {
        TwoCtas t;
        t.access(1, 0, 7, 0, 16, true);
        if (writer_fence) t.races.proxy_fence(t.clock, 0, t.clock.tick(0), covers_peers, true);
        t.clock.acquire(4, t.clock.snapshot(0));  // the cluster barrier
        if (issuer_fence_after) t.races.proxy_fence(t.clock, 4, t.clock.tick(4), false, true);
        return t.races.check_async_read(t.clock, 1, 4, 0, 16);
    };
    auto none = run(false, false, false);
    REQUIRE(none);
    CHECK(none->first_byte == 0);
    CHECK(none->last_byte == 15);
    CHECK(none->writers == std::vector<int>{0});
    CHECK(none->ops == std::vector<int>{7});
    CHECK_FALSE(run(true, true, false));   // fence.proxy.async.shared::cluster by the writer
    CHECK(run(true, false, false));        // .shared::cta does not cover the peer's memory
    CHECK_FALSE(run(false, false, true));  // the issuer fences after it learned the writes
    // An issuer fence before the barrier does not count.
    TwoCtas t;
    t.access(1, 0, 7, 0, 16, true);
    t.races.proxy_fence(t.clock, 4, t.clock.tick(4), false, true);
    t.clock.acquire(4, t.clock.snapshot(0));
    CHECK(t.races.check_async_read(t.clock, 1, 4, 0, 16));
}

TEST_CASE("DSMEM proxy: a multicast over bytes a peer read needs the order and a covering fence", "[model][cluster][dsmem][proxy]") {
    // Agent 5 (rank 1) reads its own bytes 0..15; agent 0 (rank 0) then multicasts into them.
    // `sync`: the cluster barrier from the reader to the issuer; `reader_fence` before it (any
    // form but .global covers the reader's own CTA); `issuer_fence`: after it, .shared::cluster
    // (covers_peers) or .shared::cta only.
    auto run = [](bool sync, bool reader_fence, bool issuer_fence, bool issuer_covers_peers) {
        TwoCtas t;
        t.access(1, 5, 3, 0, 16, false);
        if (reader_fence) t.races.proxy_fence(t.clock, 5, t.clock.tick(5), false, true);
        if (sync) t.clock.acquire(0, t.clock.snapshot(5));
        if (issuer_fence) t.races.proxy_fence(t.clock, 0, t.clock.tick(0), issuer_covers_peers, true);
        return t.races.check_async_write(t.clock, 1, 0, 0, 16);
    };
    const auto race = run(false, false, false, false);
    REQUIRE(race);
    CHECK_FALSE(race->ordered);  // nothing orders the read before the issue: a race
    CHECK(race->earlier.agent == 5);
    CHECK(race->earlier.op == 3);
    CHECK(race->first_byte == 0);
    CHECK(race->last_byte == 15);
    const auto unfenced = run(true, false, false, false);
    REQUIRE(unfenced);
    CHECK(unfenced->ordered);  // ordered, but no proxy fence on the path (B12)
    CHECK_FALSE(run(true, true, false, false));  // the reader fenced before the barrier
    CHECK_FALSE(run(true, false, true, true));   // the issuer fenced .shared::cluster after it
    CHECK(run(true, false, true, false));        // .shared::cta does not cover the peer's bytes
    CHECK(run(false, true, false, false));       // a fence without the barrier orders nothing
    // The owner's own copy over its own threads' reads is its CTA's check, not the cluster's;
    // a peer's DSMEM read of those bytes is the cluster's.
    TwoCtas own;
    own.access(1, 6, 4, 0, 16, false);
    CHECK_FALSE(own.races.check_async_write(own.clock, 1, 4, 0, 16));
    own.access(1, 2, 5, 0, 16, false);
    const auto peer = own.races.check_async_write(own.clock, 1, 4, 0, 16);
    REQUIRE(peer);
    CHECK(peer->earlier.agent == 2);
    // An async copy's bytes are not a generic access.
    TwoCtas copied;
    copied.races.async_write(1, DsmemAccess{8, copied.clock.tick(8), 9, true, false}, 0, 16);
    CHECK_FALSE(copied.races.check_async_write(copied.clock, 1, 0, 0, 16));
}
