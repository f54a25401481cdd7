// AsyncWriteRegistry keeps a TMA load's chunk writes as one run and prunes the prefix every
// thread knows; these check that it answers as one entry per chunk would: which chunks go,
// which race comes first, and landings out of chunk order.
#include <catch2/catch.hpp>

#include <utility>
#include <vector>

#include "model/state/async_write_registry.h"

using tmasim::model::AsyncWrite;
using tmasim::model::AsyncWriteRegistry;
using tmasim::model::BarrierObservations;
using tmasim::model::ProxyTracker;
using tmasim::model::VectorClock;

namespace {
constexpr int64_t kChunk = 16;

BarrierObservations no_waits() {
    BarrierObservations obs;
    obs.observed = [](int, int) { return int64_t{-1}; };
    obs.phase_bytes = [](int, int64_t) { return int64_t{0}; };
    return obs;
}

// `count` chunk writes of op `op` at chunk `from` on, signed by barrier 0's TMA agent.
int add_chunks(AsyncWriteRegistry& reg, const ProxyTracker& tracker, int op, int64_t from, int count) {
    int first_id = -1;
    for (int i = 0; i < count; ++i) {
        AsyncWrite w;
        w.kind = AsyncWrite::Kind::tma;
        w.first = (from + i) * kChunk;
        w.last = w.first + kChunk - 1;
        w.agent = tracker.tma_agent(0);
        w.op = op;
        w.barrier = 0;
        const int id = reg.add(w);
        if (i == 0) first_id = id;
    }
    return first_id;
}

void land(AsyncWriteRegistry& reg, ProxyTracker& tracker, int id, int64_t chunk) {
    reg.landed(id, tracker.async_write(chunk * kChunk, kChunk, 1, tracker.tma_agent(0)));
}

// Both threads learn what barrier 0's TMA agent has done so far.
void publish(ProxyTracker& tracker) {
    VectorClock phase = tracker.empty_clock();
    tracker.release_into(tracker.tma_agent(0), phase);
    tracker.acquire(0, phase);
    tracker.acquire(1, phase);
}
}  // namespace

TEST_CASE("async writes: a landing's known chunks are pruned, the first unknown races", "[model][races]") {
    ProxyTracker tracker(2, 64 * 1024, 1);
    AsyncWriteRegistry reg;
    const BarrierObservations obs = no_waits();
    const int first = add_chunks(reg, tracker, 1, 0, 128);
    for (int i = 0; i < 40; ++i) land(reg, tracker, first + i, i);
    reg.prune(tracker);  // nothing published yet
    CHECK(reg.size() == 128);
    publish(tracker);  // chunks 0-39
    for (int i = 40; i < 70; ++i) land(reg, tracker, first + i, i);
    reg.prune(tracker);
    CHECK(reg.size() == 88);
    const auto race = reg.check(0, 0, 128 * kChunk - 1, tracker, obs);
    REQUIRE(race);
    CHECK(race->write.first == 40 * kChunk);
    CHECK(race->write.last == 41 * kChunk - 1);
    CHECK(race->write.landed != 0);
    CHECK(race->rule == "race.read_before_complete");
    CHECK_FALSE(reg.check(1, 0, 40 * kChunk - 1, tracker, obs));  // pruned, and known anyway
    // A removed chunk landing again changes nothing; the next one unlanded still races.
    land(reg, tracker, first + 3, 3);
    CHECK(reg.size() == 88);
    const auto unlanded = reg.check(1, 70 * kChunk, 70 * kChunk, tracker, obs);
    REQUIRE(unlanded);
    CHECK(unlanded->write.landed == 0);
}

TEST_CASE("async writes: chunks landing out of order are pruned one by one", "[model][races]") {
    ProxyTracker tracker(2, 64 * 1024, 1);
    AsyncWriteRegistry reg;
    const BarrierObservations obs = no_waits();
    const int a = add_chunks(reg, tracker, 1, 0, 40);
    const int b = add_chunks(reg, tracker, 2, 40, 40);  // another op: its own run, after a's
    // b lands back to front, then a's even chunks: only those are published.
    for (int i = 39; i >= 0; --i) land(reg, tracker, b + i, 40 + i);
    for (int i = 0; i < 40; i += 2) land(reg, tracker, a + i, i);
    publish(tracker);
    for (int i = 1; i < 40; i += 2) land(reg, tracker, a + i, i);
    reg.prune(tracker);
    CHECK(reg.size() == 20);  // a's odd chunks
    const auto race = reg.check(0, 0, 80 * kChunk - 1, tracker, obs);
    REQUIRE(race);
    CHECK(race->write.first == 1 * kChunk);
    CHECK(race->write.op == 1);
    CHECK_FALSE(reg.check(0, 40 * kChunk, 80 * kChunk - 1, tracker, obs));
    publish(tracker);
    // Under 64 writes left: prune waits for more, then drops everything known.
    reg.prune(tracker);
    CHECK(reg.size() == 20);
    const int c = add_chunks(reg, tracker, 3, 80, 44);
    reg.prune(tracker);
    CHECK(reg.size() == 44);
    CHECK(reg.check(0, 0, 128 * kChunk - 1, tracker, obs)->write.first == 80 * kChunk);
    land(reg, tracker, c, 80);
    CHECK(reg.check(0, 80 * kChunk, 80 * kChunk, tracker, obs));  // landed, not published
}

TEST_CASE("async writes: chunks that break the equal-step pattern keep their own bounds", "[model][races]") {
    ProxyTracker tracker(2, 64 * 1024, 1);
    const BarrierObservations obs = no_waits();
    // One run (same op, agent, phase) whose bytes go: two whole steps, a short chunk, then a
    // chunk after a gap, then one overlapping it. Each race must name the chunk's own bytes.
    const std::vector<std::pair<int64_t, int64_t>> bounds = {
        {0, 15}, {16, 31}, {32, 39}, {64, 79}, {72, 95}};
    for (const bool regular_tail : {false, true}) {
        AsyncWriteRegistry reg;
        std::vector<std::pair<int64_t, int64_t>> used = bounds;
        if (regular_tail) used = {{0, 15}, {16, 31}, {32, 40}};  // regular: the last chunk is longer
        for (const auto& [first, last] : used) {
            AsyncWrite w;
            w.kind = AsyncWrite::Kind::tma;
            w.first = first;
            w.last = last;
            w.agent = tracker.tma_agent(0);
            w.op = 1;
            w.barrier = 0;
            reg.add(w);
        }
        CHECK(reg.size() == used.size());
        for (const auto& [first, last] : used) {
            const auto race = reg.check(0, last, last, tracker, obs);
            REQUIRE(race);
            // The first chunk (in id order) holding byte `last`.
            for (const auto& [f, l] : used)
                if (f <= last && last <= l) {
                    CHECK(race->write.first == f);
                    CHECK(race->write.last == l);
                    break;
                }
        }
        CHECK_FALSE(reg.check(0, 200, 300, tracker, obs));
        if (!regular_tail) CHECK_FALSE(reg.check(0, 40, 63, tracker, obs));  // the gap
    }
}
