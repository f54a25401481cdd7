// SharedAccessHistory (semantics.md C22) on its own, with the proxy tracker's clocks: the
// three hazard classes between warps, the orderings that remove them (a CTA barrier, an
// mbarrier-style release/acquire by one lane of each warp), and no report inside one warp.
#include <catch2/catch.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/state/proxy_tracker.h"
#include "model/state/shared_access_history.h"

using namespace tmasim::model;

namespace {

struct Cta {
    ProxyTracker clocks{64, 256};
    SharedAccessHistory history{256};

    std::optional<SharedRace> read(int thread, int64_t offset, int64_t bytes, int op) {
        return history.access(SharedAccessHistory::view(clocks, thread / 32), thread, offset, bytes, false, op);
    }
    std::optional<SharedRace> write(int thread, int64_t offset, int64_t bytes, int op) {
        auto r = history.access(SharedAccessHistory::view(clocks, thread / 32), thread, offset, bytes, true, op);
        clocks.generic_write(thread, offset, bytes, op);
        return r;
    }
    void sync_all() {
        std::vector<int> all;
        for (int t = 0; t < 64; ++t) all.push_back(t);
        clocks.cta_sync(all);
    }
};

}  // namespace

TEST_CASE("shared history: a read of another warp's unordered write is RAW, naming both", "[model][race]") {
    Cta c;
    REQUIRE_FALSE(c.write(0, 8, 4, 7));
    const auto r = c.read(33, 6, 8, 9);  // bytes 6..13 overlap the write on 8..11
    REQUIRE(r);
    CHECK(r->hazard == SharedHazard::raw);
    CHECK(r->thread == 0);
    CHECK(r->op == 7);
    CHECK(r->first == 8);
    CHECK(r->last == 11);
    CHECK(std::string(SharedAccessHistory::rule_of(r->hazard)) == "race.shared_raw");
}

TEST_CASE("shared history: WAR and WAW between warps, none after a CTA barrier", "[model][race]") {
    Cta c;
    REQUIRE_FALSE(c.read(40, 0, 4, 1));
    const auto war = c.write(3, 0, 4, 2);
    REQUIRE(war);
    CHECK(war->hazard == SharedHazard::war);
    CHECK(war->thread == 40);
    const auto waw = c.write(63, 2, 1, 3);
    REQUIRE(waw);
    CHECK(waw->hazard == SharedHazard::waw);
    CHECK(waw->first == 2);
    CHECK(waw->last == 2);
    c.sync_all();
    CHECK_FALSE(c.write(5, 0, 4, 4));
    CHECK_FALSE(c.read(7, 0, 4, 5));  // the same warp
    c.sync_all();
    CHECK_FALSE(c.read(50, 0, 4, 6));
}

TEST_CASE("shared history: lanes of one warp are not compared", "[model][race]") {
    Cta c;
    REQUIRE_FALSE(c.write(1, 16, 4, 1));
    CHECK_FALSE(c.read(30, 16, 4, 2));
    CHECK_FALSE(c.write(31, 16, 4, 3));
}

TEST_CASE("shared history: a kernel's lanes of one warp race unless bar.warp.sync orders them", "[model][race][kernel]") {
    Cta c;
    c.history.lanes_apart(true);
    REQUIRE_FALSE(c.write(0, 16, 4, 1));  // lane 0 writes (tensormap.replace of a staged map, say)
    CHECK_FALSE(c.read(0, 16, 4, 2));     // its own later read: program order
    const auto r = c.read(1, 16, 4, 3);   // lane 1 reads, nothing between
    REQUIRE(r);
    CHECK(r->hazard == SharedHazard::raw);
    CHECK(r->thread == 0);
    CHECK(r->op == 1);
    const auto w = c.write(2, 16, 4, 4);  // lane 2 writes over lane 0's unordered write
    REQUIRE(w);
    CHECK(w->hazard == SharedHazard::waw);
    // bar.warp.sync of the warp's lanes (KernelWarp::warp_sync) orders them all.
    std::vector<int> warp0;
    for (int t = 0; t < 32; ++t) warp0.push_back(t);
    c.clocks.cta_sync(warp0);
    CHECK_FALSE(c.read(7, 16, 4, 5));
    // Lane 9's write after lane 7's read, nothing between them: write after read.
    const auto war = c.write(9, 16, 4, 6);
    REQUIRE(war);
    CHECK(war->hazard == SharedHazard::war);
    CHECK(war->thread == 7);
    // A sync of other lanes only does not order lane 9's write for lane 20.
    c.clocks.cta_sync({3, 4});
    const auto later = c.read(20, 16, 4, 7);
    REQUIRE(later);
    CHECK(later->thread == 9);
    // Without lanes_apart (an op scenario) none of this is compared.
    Cta ops;
    REQUIRE_FALSE(ops.write(0, 16, 4, 1));
    CHECK_FALSE(ops.read(1, 16, 4, 2));
}

TEST_CASE("shared history: one lane's release and another warp's lane's acquire order the warps", "[model][race]") {
    Cta c;
    REQUIRE_FALSE(c.write(5, 0, 4, 1));  // lane 5 of warp 0 writes
    VectorClock phase;
    c.clocks.release_into(0, phase);      // lane 0 of warp 0 arrives afterwards
    const auto before = c.read(40, 0, 4, 2);
    CHECK(before);                        // warp 1 has not acquired yet
    c.clocks.acquire(32, phase);          // lane 0 of warp 1 waits
    CHECK_FALSE(c.read(45, 0, 4, 3));     // another lane of warp 1 reads: ordered
    // A release before the write orders nothing.
    Cta d;
    VectorClock early;
    d.clocks.release_into(0, early);
    REQUIRE_FALSE(d.write(0, 0, 4, 1));
    d.clocks.acquire(32, early);
    const auto r = d.read(32, 0, 4, 2);
    REQUIRE(r);
    CHECK(r->hazard == SharedHazard::raw);
}

TEST_CASE("shared history: an unrecorded async write is checked on reused bytes only", "[model][race]") {
    Cta c;
    // Bytes nothing wrote yet: a read ahead of the copy that fills them is C17's report.
    REQUIRE_FALSE(c.read(40, 64, 16, 1));
    CHECK_FALSE(c.history.access(SharedAccessHistory::view(c.clocks, 0), 0, 64, 16, true, 2, false));
    // Reused bytes: warp 1 wrote them, a barrier, warp 1 reads them again; warp 0's copy
    // issued without an ordering after that read is write after read.
    REQUIRE_FALSE(c.write(40, 0, 16, 3));
    c.sync_all();
    REQUIRE_FALSE(c.read(41, 0, 16, 4));
    const auto r = c.history.access(SharedAccessHistory::view(c.clocks, 0), 0, 0, 16, true, 5, false);
    REQUIRE(r);
    CHECK(r->hazard == SharedHazard::war);
    CHECK(r->op == 4);
    CHECK(r->first == 0);
    CHECK(r->last == 15);
    // Unrecorded: warp 1 writing again finds its own write last, not warp 0's copy.
    CHECK_FALSE(c.write(42, 0, 16, 6));
}

TEST_CASE("shared history: a copy's bytes count as filled exactly where copies were issued", "[model][race]") {
    // The filled marks are bits, 64 to a word: ranges that start, end and straddle words.
    Cta c;
    REQUIRE_FALSE(c.read(40, 60, 12, 1));  // bytes 60-71, over the word boundary at 64
    auto copy = [&](int64_t offset, int64_t bytes, int op) {
        return c.history.access(SharedAccessHistory::view(c.clocks, 0), 0, offset, bytes, true, op, false);
    };
    CHECK_FALSE(copy(62, 8, 2));  // the first copy into bytes read early: C17's report, not a race
    auto r = copy(56, 20, 3);     // 62-69 were filled: now they race with warp 1's read
    REQUIRE(r);
    CHECK(r->hazard == SharedHazard::war);
    CHECK(r->first == 62);
    CHECK(r->last == 69);
    r = copy(56, 20, 4);  // every byte filled now
    REQUIRE(r);
    CHECK(r->first == 60);
    CHECK(r->last == 71);
    CHECK_FALSE(copy(128, 128, 5));  // bytes without a history in their block
}

TEST_CASE("shared history: large copies filled again and in part keep exact filled marks", "[model][race]") {
    // fill_untouched marks whole 64-bit words through a summary of full words, 64 words
    // (4 KB) to a summary word: ranges that start and end inside summary words, cover them,
    // are filled twice, and bytes outside every range stay unfilled.
    constexpr int64_t kBytes = 65536;
    ProxyTracker clocks{64, kBytes};
    SharedAccessHistory history{kBytes};
    const std::vector<std::pair<int64_t, int64_t>> fills = {
        {0, 16384}, {0, 16384}, {20000, 9000}, {24576, 4096}, {40960 + 100, 2}, {50000, 13000}, {49152, 4096}};
    std::vector<bool> expected(kBytes, false);
    for (auto [offset, bytes] : fills) {
        CHECK(history.fill_untouched(offset, bytes));
        for (int64_t b = offset; b < offset + bytes; ++b) expected[static_cast<size_t>(b)] = true;
    }
    // A filled byte read by warp 1 and then overwritten by warp 0's copy is a WAR race; a
    // byte no copy filled is C17's business (no race).
    std::vector<int64_t> probes = {0, 63, 64, 4095, 4096, 16383, 16384, 19999, 20000, 24575, 24576, 28999,
                                   29000, 29001, 40959, 41060, 41061, 41062, 49151, 49152, 49300, 49999, 53247, 53248,
                                   62999, 63000, 65535};
    int op = 10;
    for (int64_t b : probes) {
        INFO("byte " << b);
        REQUIRE_FALSE(history.access(SharedAccessHistory::view(clocks, 1), 40, b, 1, false, op++));
        const auto r = history.access(SharedAccessHistory::view(clocks, 0), 0, b, 1, true, op++, false);
        CHECK(r.has_value() == expected[static_cast<size_t>(b)]);
    }
}

TEST_CASE("shared history: an async write over generic reads needs a fence on the path (B12)", "[model][race][proxy]") {
    // Warp 1 reads bytes 0..15 that warp 0 wrote; a barrier; thread 0 issues a TMA load there.
    auto run = [](bool readers_fence, bool issuer_fence) {
        Cta c;
        REQUIRE_FALSE(c.write(0, 0, 16, 1));
        c.sync_all();
        REQUIRE_FALSE(c.read(40, 0, 16, 2));
        if (readers_fence)
            for (int t = 32; t < 64; ++t) c.clocks.fence_proxy_async(t);
        c.sync_all();
        if (issuer_fence) c.clocks.fence_proxy_async(0);
        return c.history.unfenced_before_async_write(c.clocks, SharedAccessHistory::view(c.clocks, 0), 0, 0, 16);
    };
    const auto u = run(false, false);
    REQUIRE(u);
    // The write of thread 0 is its own and fenced by nothing either: the first byte's first
    // unfenced access is reported, the write.
    CHECK(u->write);
    CHECK(u->thread == 0);
    CHECK(u->first == 0);
    CHECK(u->last == 15);
    CHECK_FALSE(run(false, true));   // the issuer fenced after the barrier: (b) for both
    // The readers' fence covers their reads, not thread 0's own write before the barrier.
    const auto own = run(true, false);
    REQUIRE(own);
    CHECK(own->write);
    CHECK(own->op == 1);
}

TEST_CASE("shared history: reads only, fence before the barrier, unordered reads, unwritten bytes", "[model][race][proxy]") {
    Cta c;
    // Bytes a copy filled (marked at its issue) and warp 1 then read.
    c.history.mark_filled(64, 16);
    REQUIRE_FALSE(c.read(33, 64, 16, 3));
    c.clocks.fence_proxy_async(0);  // the issuer's fence before the barrier covers nothing
    c.sync_all();
    auto u = c.history.unfenced_before_async_write(c.clocks, SharedAccessHistory::view(c.clocks, 0), 0, 64, 16);
    REQUIRE(u);
    CHECK_FALSE(u->write);
    CHECK(u->thread == 33);
    CHECK(u->op == 3);
    c.clocks.fence_proxy_async(0);  // after it: covered
    CHECK_FALSE(c.history.unfenced_before_async_write(c.clocks, SharedAccessHistory::view(c.clocks, 0), 0, 64, 16));
    // A read not ordered before the issue is the race access() reports, not this rule's.
    REQUIRE_FALSE(c.read(34, 64, 16, 4));
    CHECK_FALSE(c.history.unfenced_before_async_write(c.clocks, SharedAccessHistory::view(c.clocks, 0), 0, 64, 16));
    // Bytes nothing wrote or filled: a read of garbage, then the copy, is no hazard.
    REQUIRE_FALSE(c.read(35, 128, 16, 5));
    c.sync_all();
    CHECK_FALSE(c.history.unfenced_before_async_write(c.clocks, SharedAccessHistory::view(c.clocks, 0), 0, 128, 16));
    // The issuing warp's own read: program order, but still a fence after it is needed.
    c.history.mark_filled(192, 16);
    REQUIRE_FALSE(c.read(3, 192, 16, 6));
    u = c.history.unfenced_before_async_write(c.clocks, SharedAccessHistory::view(c.clocks, 0), 0, 192, 16);
    REQUIRE(u);
    CHECK(u->thread == 3);
    c.clocks.fence_proxy_async(3);  // lane 3 itself fences: (a) within the warp
    CHECK_FALSE(c.history.unfenced_before_async_write(c.clocks, SharedAccessHistory::view(c.clocks, 0), 0, 192, 16));
}
