// BulkStoreRegistry's in-flight async-proxy reads without SystemC: a wgmma's operand
// bytes stay protected until a wait_group of its warpgroup retires it (C17), and the
// coverage reaches other threads (and a cluster's peers) only through synchronisation.
#include <catch2/catch.hpp>

#include <memory>

#include "model/state/bulk_store_registry.h"
#include "model/state/cluster_clock.h"
#include "model/state/proxy_tracker.h"

using namespace tmasim::model;

namespace {
// Warpgroup 0 (threads 0-127) issues its mma #0 (op 9) reading bytes 1024..1055 and
// 2048..2063; thread 200 belongs to another warpgroup.
BulkStoreRegistry one_mma() {
    BulkStoreRegistry r;
    for (int w = 0; w < 4; ++w) r.wgmma_issue(0, 0, w, 9, 32 * w, {{2048, 2063}, {1024, 1055}});
    return r;
}
}  // namespace

TEST_CASE("pending reads: a wgmma's operand bytes until its warp's wait retires it", "[model][wgmma][race]") {
    ProxyTracker t(256, 4096);
    BulkStoreRegistry r = one_mma();
    CHECK(r.size() == 1);  // the four warps share one instance
    // A write overlapping the second range: the hit is clipped to the operand's bytes.
    PendingReadHit h = r.write_race(5, 2060, 2100, t);
    REQUIRE(h.read);
    CHECK(h.read->op == 9);
    CHECK(h.read->group == 0);
    CHECK(h.first == 2060);
    CHECK(h.last == 2063);
    // Bytes between the two ranges are not read.
    CHECK_FALSE(r.write_race(5, 1056, 2047, t).read);
    // Warp 0's wait (its lanes' ticks) retires it: lane 5 may write, thread 200 may not yet.
    std::vector<std::pair<int, uint32_t>> waits;
    for (int l = 0; l < 32; ++l) waits.push_back({l, t.advance(l)});
    r.wgmma_retired(0, 1, 0, waits, {});
    CHECK_FALSE(r.write_race(5, 1024, 1024, t).read);
    CHECK(r.write_race(200, 1024, 1024, t).read);
    // After a bar.sync with lane 5, thread 200 knows the wait.
    t.cta_sync({5, 200});
    CHECK_FALSE(r.write_race(200, 1030, 1040, t).read);
}

TEST_CASE("pending reads: a wait that retires only older mmas does not cover a newer one", "[model][wgmma][race]") {
    ProxyTracker t(128, 4096);
    BulkStoreRegistry r = one_mma();
    r.wgmma_issue(0, 1, 0, 10, 0, {{3072, 3087}});
    r.wgmma_retired(0, 1, 0, {{0, t.advance(0)}}, {});  // wait_group 1: mma #0 only
    CHECK_FALSE(r.write_race(0, 1024, 1027, t).read);
    const PendingReadHit h = r.write_race(0, 3072, 3075, t);
    REQUIRE(h.read);
    CHECK(h.read->op == 10);
    // Store sources are not wgmma operands: a store's entry keeps its own rule.
    BulkStore s;
    s.smem_first = 0;
    s.smem_last = 127;
    s.issuer = 3;
    s.token = 4;
    s.op = 11;
    r.add(s);
    const PendingReadHit st = r.write_race(0, 64, 64, t);
    REQUIRE(st.read);
    CHECK(st.read->reader == BulkStore::Reader::store);
    CHECK(r.source_race(0, 64, 64, t) == st.read);
}

TEST_CASE("pending reads: a peer learns a wgmma's retirement through the cluster clock", "[model][wgmma][cluster]") {
    // Two CTAs of 128 threads; the mma is rank 1's (its lane 0 is agent 128).
    const ClusterAgents agents{2, 128, 1};
    ClusterClock clock(agents.total());
    BulkStoreRegistry r = one_mma();
    CHECK(r.peer_write_race(3, 1024, 1027, clock).read);
    r.wgmma_retired(0, 1, 0, {}, {{128, clock.tick(128)}});
    CHECK(r.peer_write_race(3, 1024, 1027, clock).read);  // no edge to the waiting lane yet
    clock.acquire(3, clock.snapshot(128));                 // the cluster barrier
    CHECK_FALSE(r.peer_write_race(3, 1024, 1027, clock).read);
}
