// The cluster scenarios of the catalog (teach/17*, teach/22*, guide/st_async_ring,
// cluster/*) on the model: outcome, rule, the op and CTA each report names, and the exact
// bytes of the runs that are ok.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include <algorithm>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;
using test::catalog;
using test::op_id;

namespace {
const MemoryImage& shared_of(const RunResult& r, const std::string& name, int cta) {
    for (const auto& m : r.memory)
        if (m.name == name && m.space == "shared" && m.cta == cta) return m;
    FAIL("no shared " << name << " of CTA " << cta);
    return r.memory.front();
}

int64_t i32(const MemoryImage& m, int64_t e) { return load_element_int(m.bytes.data(), DType::i32, e); }

std::string all_messages(const RunResult& r) {
    std::string s;
    for (const auto& d : r.diagnostics) s += "\n  [" + d.rule + "] " + d.message;
    return s;
}

// The run's only diagnostic: its rule, op and CTA.
const Diagnostic& only_report(const RunResult& r, Outcome outcome) {
    INFO(all_messages(r));
    REQUIRE(r.outcome == outcome);
    REQUIRE(r.diagnostics.size() == 1);
    return r.diagnostics.front();
}

int count_model_events(const RunResult& r, int op, int cta, const std::string& what) {
    return static_cast<int>(std::count_if(r.events.begin(), r.events.end(), [&](const TraceEvent& e) {
        return e.op == op && e.cta == cta && e.model_only && e.what == what;
    }));
}
}  // namespace

TEST_CASE("teach 17a: a multicast destination without its expect_tx hangs at its own wait", "[model][cluster][teach]") {
    const Scenario s = catalog("teach/17a_multicast_missing_expect.yaml");
    const RunResult r = run_model(s);
    const Diagnostic& d = only_report(r, Outcome::hang);
    CHECK(d.rule == "mbarrier.tx_mismatch");
    CHECK(d.op == op_id(s, "wait"));
    CHECK(d.cta == 1);  // rank 1; rank 0 expected its bytes and finished
    CHECK(d.detail.at("rank") == "1");
    CHECK(d.detail.at("barrier") == "full");
    CHECK(d.detail.at("expected_bytes") == "0");
    CHECK(d.detail.at("delivered_bytes") == "4096");
    CHECK(d.detail.at("pending_arrivals") == "1");
    CHECK(d.message.find("rank 1 of cluster 0") != std::string::npos);
    // The box still landed in both CTAs: row 16 + r, column 64 + c of the iota tensor A.
    for (int cta : {0, 1}) CHECK(i32(shared_of(r, "tile", cta), 5 * 64 + 7) == (16 + 5) * 128 + 64 + 7);
}

TEST_CASE("teach 17b: a ctaMask bit past the cluster is reported and dropped", "[model][cluster][teach]") {
    const Scenario s = catalog("teach/17b_multicast_mask_outside.yaml");
    const RunResult r = run_model(s);
    const Diagnostic& d = only_report(r, Outcome::hazard);
    CHECK(d.rule == "multicast.mask_outside_cluster");
    CHECK(d.op == op_id(s, "load"));
    CHECK(d.cta == 0);
    CHECK(d.detail.at("outside_bits") == "2");
    CHECK(d.detail.at("mask") == "4");
    // No rank was in the mask: nothing landed anywhere.
    for (int cta : {0, 1}) {
        const auto& tile = shared_of(r, "tile", cta).bytes;
        CHECK(std::all_of(tile.begin(), tile.end(), [](uint8_t b) { return b == 0; }));
    }
}

TEST_CASE("teach 17c: one multicast load fills both CTAs, each barrier on its own bytes", "[model][cluster][teach]") {
    const Scenario s = catalog("teach/17c_multicast_ok.yaml");
    const RunResult r = run_model(s);
    INFO(all_messages(r));
    REQUIRE(r.outcome == Outcome::ok);
    REQUIRE(r.diagnostics.empty());
    for (int cta : {0, 1}) {
        const MemoryImage& tile = shared_of(r, "tile", cta);
        for (int64_t row = 0; row < 16; ++row)
            for (int64_t col = 0; col < 64; col += 9) CHECK(i32(tile, row * 64 + col) == (16 + row) * 128 + 64 + col);
        // Both barriers were credited: 4096 bytes in 256-byte chunks (tma_complete_tx_chunk_bytes),
        // logged as one complete_tx per landing (traces/FORMAT.md, version 3).
        REQUIRE(count_model_events(r, op_id(s, "load"), cta, "complete_tx") == 1);
        const auto credit = std::find_if(r.events.begin(), r.events.end(), [&](const TraceEvent& e) {
            return e.op == op_id(s, "load") && e.cta == cta && e.what == "complete_tx";
        });
        CHECK(credit->detail.at("bytes") == "4096");
        CHECK(credit->detail.at("chunks") == "16");
        CHECK(credit->detail.at("tx_count") == "0");
    }
}

TEST_CASE("teach 22a: st.async into the peer, completing on the peer's barrier", "[model][cluster][teach][st_async]") {
    const Scenario s = catalog("teach/22a_st_async_ok.yaml");
    const RunResult r = run_model(s);
    INFO(all_messages(r));
    REQUIRE(r.outcome == Outcome::ok);
    const MemoryImage& dst = shared_of(r, "buf", 1);
    for (int64_t t = 0; t < 64; ++t) CHECK(i32(dst, t) == t + 100);
    const MemoryImage& src = shared_of(r, "buf", 0);
    CHECK(std::all_of(src.bytes.begin(), src.bytes.end(), [](uint8_t b) { return b == 0; }));
    // One 4-byte complete_tx per storing thread, on rank 1's barrier.
    CHECK(count_model_events(r, op_id(s, "send"), 1, "complete_tx") == 64);
    CHECK(count_model_events(r, op_id(s, "send"), 0, "complete_tx") == 0);
}

TEST_CASE("teach 22b: st.async with its barrier in another CTA is reported, nothing delivered", "[model][cluster][teach][st_async]") {
    const Scenario s = catalog("teach/22b_st_async_barrier_other_cta.yaml");
    const RunResult r = run_model(s);
    const Diagnostic& d = only_report(r, Outcome::hazard);
    CHECK(d.rule == "st_async.barrier_other_cta");
    CHECK(d.op == op_id(s, "send"));
    CHECK(d.cta == 0);
    CHECK(d.detail.at("data_rank") == "1");
    CHECK(d.detail.at("barrier_rank") == "0");
    const auto& dst = shared_of(r, "buf", 1).bytes;
    CHECK(std::all_of(dst.begin(), dst.end(), [](uint8_t b) { return b == 0; }));
    CHECK(count_model_events(r, op_id(s, "send"), 0, "complete_tx") == 0);
}

TEST_CASE("guide STAS ring: every buffer ends with its previous neighbour's rank", "[model][cluster][guide][st_async]") {
    const Scenario s = catalog("guide/st_async_ring.yaml");
    const RunResult r = run_model(s);
    INFO(all_messages(r));
    REQUIRE(r.outcome == Outcome::ok);
    REQUIRE(r.diagnostics.empty());
    for (int cta = 0; cta < 8; ++cta) {
        const MemoryImage& b = shared_of(r, "buffer", cta);
        for (int64_t t = 0; t < 64; ++t) CHECK(i32(b, t) == (cta + 7) % 8);
        // 32 iterations of 64 four-byte stores into this CTA, and each phase of `filled`
        // and `ready` completed once per iteration.
        CHECK(count_model_events(r, op_id(s, "produce"), cta, "complete_tx") == 32 * 64);
    }
    int flips_ready = 0;
    for (const auto& e : r.events)
        if (e.what == "phase_flip" && e.detail.count("barrier") && e.detail.at("barrier") == "ready") ++flips_ready;
    CHECK(flips_ready == 8 * 32);
}

TEST_CASE("cluster dsmem_exchange: each CTA finds its peer's values in its inbox", "[model][cluster][dsmem]") {
    const RunResult r = run_model(catalog("cluster/dsmem_exchange.yaml"));
    INFO(all_messages(r));
    REQUIRE(r.outcome == Outcome::ok);
    // CTA c wrote c * 1000 + tid into rank (rank + 1) % 2 of its own cluster.
    const int peer[4] = {1, 0, 3, 2};
    for (int cta = 0; cta < 4; ++cta)
        for (int64_t t = 0; t < 64; ++t) CHECK(i32(shared_of(r, "inbox", cta), t) == peer[cta] * 1000 + t);
}

TEST_CASE("cluster dsmem_no_sync: bar.sync does not order a peer's DSMEM store", "[model][cluster][dsmem]") {
    const Scenario s = catalog("cluster/dsmem_no_sync.yaml");
    const RunResult r = run_model(s);
    INFO(all_messages(r));
    REQUIRE(r.outcome == Outcome::hazard);
    REQUIRE(r.diagnostics.size() == 4);  // one per CTA's read op
    for (const auto& d : r.diagnostics) {
        CHECK(d.rule == "race.dsmem_unsynced");
        CHECK(d.op == op_id(s, "get"));
        CHECK(d.detail.at("other_op") == std::to_string(op_id(s, "put")));
        // The writer is the reader's peer in the same cluster.
        CHECK(std::stoi(d.detail.at("other_cta")) == (d.cta ^ 1));
        CHECK(d.detail.at("buffer") == "inbox");
    }
}

TEST_CASE("cluster remote_arrive_before_init: the init is not published to the peer", "[model][cluster][mbarrier]") {
    const Scenario s = catalog("cluster/remote_arrive_before_init.yaml");
    const RunResult r = run_model(s);
    const Diagnostic& d = only_report(r, Outcome::hazard);
    CHECK(d.rule == "mbarrier.remote_before_init_published");
    CHECK(d.op == op_id(s, "early_arrive"));
    CHECK(d.cta == 1);
    CHECK(d.detail.at("rank") == "0");  // the barrier's CTA
    CHECK(d.detail.at("barrier") == "bar");
}

TEST_CASE("cluster barrier_relaxed: a relaxed arrive publishes nothing", "[model][cluster]") {
    const Scenario s = catalog("cluster/cluster_barrier_relaxed.yaml");
    const RunResult r = run_model(s);
    INFO(all_messages(r));
    REQUIRE(r.outcome == Outcome::hazard);
    REQUIRE(r.diagnostics.size() == 2);
    for (const auto& d : r.diagnostics) {
        CHECK(d.rule == "race.dsmem_unsynced");
        CHECK(d.op == op_id(s, "read_peer"));
        CHECK(d.detail.at("other_op") == std::to_string(op_id(s, "fill")));
        CHECK(d.detail.at("rank") == std::to_string(1 - d.cta));
    }
    // The DSMEM load costs the remote round trip (dsmem_load_cycles of h100-sxm, the default arch).
    const int64_t dsmem_load =
        static_cast<int64_t>(model::ArchConfig::load_named("h100-sxm", TMASIM_ARCH_DIR).timing().dsmem_load_cycles);
    int64_t issue = -1, done = -1;
    for (const auto& e : r.events)
        if (e.op == op_id(s, "read_peer") && e.cta == 0 && e.warp == 0) {
            if (e.kind == EventKind::issue) issue = e.t;
            if (e.kind == EventKind::complete) done = e.t;
        }
    CHECK(done - issue == dsmem_load);
}

TEST_CASE("cluster multicast_bulk: one bulk load per cluster lands in its four CTAs", "[model][cluster][multicast]") {
    const Scenario s = catalog("cluster/multicast_bulk.yaml");
    const RunResult r = run_model(s);
    INFO(all_messages(r));
    REQUIRE(r.outcome == Outcome::ok);
    for (int cta = 0; cta < 8; ++cta)
        for (int64_t e = 0; e < 256; ++e) CHECK(i32(shared_of(r, "box", cta), e) == (cta / 4) * 256 + e);
    // The fetch is shared: each destination's copy starts on its own engine at the same time.
    std::vector<int64_t> starts;
    for (const auto& e : r.events)
        if (e.op == op_id(s, "load") && e.what == "tma_start") starts.push_back(e.t);
    REQUIRE(starts.size() == 8);
    CHECK(std::count(starts.begin(), starts.end(), starts.front()) == 8);
}
