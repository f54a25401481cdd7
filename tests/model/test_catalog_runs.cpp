// End to end: the catalog scenarios run on the model and give the outcome, the report
// and the final memory their YAML promises.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include <algorithm>
#include <tuple>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"
#include "scenarios/values.h"

using namespace tmasim;
using test::catalog;
using test::op_id;

namespace {
const MemoryImage& memory(const RunResult& r, const std::string& name, const std::string& space) {
    for (const auto& m : r.memory)
        if (m.name == name && m.space == space) return m;
    FAIL("no " << space << " memory " << name);
    return r.memory.front();
}

int64_t i32_at(const MemoryImage& m, int64_t e) { return load_element_int(m.bytes.data(), DType::i32, e); }

std::vector<TraceEvent> events_of(const RunResult& r, int op, EventKind kind, const std::string& what = "") {
    std::vector<TraceEvent> out;
    for (const auto& e : r.events)
        if (e.op == op && e.kind == kind && e.what == what) out.push_back(e);
    return out;
}

// Everything but pointers: the fields a trace file holds.
void require_identical(const RunResult& a, const RunResult& b) {
    REQUIRE(a.outcome == b.outcome);
    REQUIRE(a.events.size() == b.events.size());
    for (size_t i = 0; i < a.events.size(); ++i) {
        const auto &x = a.events[i], &y = b.events[i];
        INFO("event " << i << " " << x.key());
        REQUIRE(std::tie(x.op, x.iters, x.cta, x.warp, x.lane, x.kind, x.t, x.model_only, x.what, x.detail) ==
                std::tie(y.op, y.iters, y.cta, y.warp, y.lane, y.kind, y.t, y.model_only, y.what, y.detail));
    }
    REQUIRE(a.diagnostics.size() == b.diagnostics.size());
    for (size_t i = 0; i < a.diagnostics.size(); ++i) {
        REQUIRE(a.diagnostics[i].message == b.diagnostics[i].message);
        REQUIRE(a.diagnostics[i].detail == b.diagnostics[i].detail);
    }
    REQUIRE(a.memory.size() == b.memory.size());
    for (size_t i = 0; i < a.memory.size(); ++i) REQUIRE(a.memory[i].bytes == b.memory[i].bytes);
    REQUIRE(a.provenance.model_config_hash == b.provenance.model_config_hash);
}
}  // namespace

TEST_CASE("catalog: bulk_add_one_1d adds one to the upper half", "[model][catalog]") {
    const Scenario s = catalog("guide/bulk_add_one_1d.yaml");
    const RunResult r = run_model(s);
    INFO((r.diagnostics.empty() ? "" : r.diagnostics.front().message));
    REQUIRE(r.outcome == Outcome::ok);
    REQUIRE(r.diagnostics.empty());
    const MemoryImage& data = memory(r, "data", "global");
    REQUIRE(data.bytes.size() == 2048 * 4);
    for (int64_t i = 0; i < 1024; ++i) {
        INFO("i = " << i);
        REQUIRE(i32_at(data, i) == i);                // iota, untouched
        REQUIRE(i32_at(data, 1024 + i) == 1025 + i);  // iota + 1
    }
    const MemoryImage& smem = memory(r, "smem_data", "shared");
    CHECK(smem.cta == 0);
    CHECK(i32_at(smem, 0) == 1025);
    CHECK(i32_at(smem, 1023) == 2048);
    // 256 threads share 1024 elements: every warp stores, and so does wait_group_read.
    CHECK(events_of(r, op_id(s, "store"), EventKind::issue).size() == 1);
    CHECK(events_of(r, op_id(s, "store"), EventKind::state, "bulk_read_done").size() == 1);
    CHECK(events_of(r, op_id(s, "wait"), EventKind::wait_end).size() == 8);
}

TEST_CASE("catalog: tma_2d_load_modify_store changes row 16, columns 64-127 only", "[model][catalog]") {
    const Scenario s = catalog("guide/tma_2d_load_modify_store.yaml");
    const RunResult r = run_model(s);
    INFO((r.diagnostics.empty() ? "" : r.diagnostics.front().message));
    REQUIRE(r.outcome == Outcome::ok);
    const MemoryImage& a = memory(r, "A", "global");
    REQUIRE(a.bytes.size() == 64 * 128 * 4);
    for (int64_t row = 0; row < 64; ++row)
        for (int64_t col = 0; col < 128; ++col) {
            const int64_t iota = row * 128 + col;
            const int64_t want = (row == 16 && col >= 64) ? iota + (col - 64) : iota;
            INFO("row " << row << " col " << col);
            REQUIRE(i32_at(a, iota) == want);
        }
    // The tile in shared memory: row 0 modified, row 1 as loaded (A[17][64..]).
    const MemoryImage& tile = memory(r, "smem_buffer", "shared");
    CHECK(i32_at(tile, 5) == 16 * 128 + 64 + 5 + 5);
    CHECK(i32_at(tile, 64 + 3) == 17 * 128 + 64 + 3);
}

TEST_CASE("catalog: events follow the trace format's per-selector rules and timing", "[model][catalog]") {
    const Scenario s = catalog("guide/tma_2d_load_modify_store.yaml");
    const RunResult r = run_model(s);
    const int load = op_id(s, "load"), wait = op_id(s, "wait");
    // elected: one event, warp 0 lane 0. not_elected / all: one per warp, lane 0.
    const auto load_issue = events_of(r, load, EventKind::issue);
    REQUIRE(load_issue.size() == 1);
    CHECK(load_issue[0].warp == 0);
    CHECK(load_issue[0].lane == 0);
    const auto arrive_issue = events_of(r, load + 2, EventKind::issue);  // mbarrier.arrive by not_elected
    REQUIRE(arrive_issue.size() == 2);
    // Warp 1 arrives first: warp 0 spent time issuing the load and arrive_expect_tx.
    CHECK(arrive_issue[0].warp == 1);
    CHECK(arrive_issue[1].warp == 0);
    CHECK(arrive_issue[0].t < arrive_issue[1].t);
    CHECK(arrive_issue[0].lane == 0);
    CHECK(arrive_issue[1].lane == 0);
    REQUIRE(events_of(r, wait, EventKind::wait_begin).size() == 2);

    // The copy: HBM latency (cold lines, tma_latency_hbm_cycles of h100-sxm, the default arch)
    // + 4096 B at 110 B/clk (38 cycles) after the engine starts it.
    const auto start = events_of(r, load, EventKind::state, "tma_start");
    const auto landed = events_of(r, load, EventKind::state, "bytes_landed");
    const auto flip = events_of(r, load, EventKind::state, "phase_flip");
    REQUIRE(start.size() == 1);
    REQUIRE(landed.size() == 1);
    REQUIRE(flip.size() == 1);  // the bytes are the last thing the phase waits for
    CHECK(start[0].t == load_issue[0].t);
    const model::TimingParams tp = model::ArchConfig::load_named("h100-sxm", TMASIM_ARCH_DIR).timing();
    CHECK(landed[0].t - start[0].t == static_cast<int64_t>(tp.tma_latency_hbm_cycles) + 38);
    CHECK(flip[0].t == landed[0].t);
    // A warp already waiting resumes mbarrier_wait_resume_cycles after the flip; one that
    // arrives later finds the phase complete and pays mbarrier_wait_ready_cycles.
    const int64_t resume = static_cast<int64_t>(tp.mbarrier_wait_resume_cycles);
    const int64_t ready = static_cast<int64_t>(tp.mbarrier_wait_ready_cycles);
    const auto begins = events_of(r, wait, EventKind::wait_begin);
    const auto ends = events_of(r, wait, EventKind::wait_end);
    REQUIRE(ends.size() == begins.size());
    for (const auto& e : ends) {
        const auto b = std::find_if(begins.begin(), begins.end(), [&](const TraceEvent& x) { return x.warp == e.warp; });
        REQUIRE(b != begins.end());
        CHECK(e.t == (b->t < flip[0].t ? flip[0].t + resume : b->t + ready));
    }

    // Sorted by (cta, t, op, warp, lane, kind).
    CHECK(std::is_sorted(r.events.begin(), r.events.end(), [](const TraceEvent& x, const TraceEvent& y) {
        return std::tie(x.cta, x.t, x.op, x.warp, x.lane, x.kind) < std::tie(y.cta, y.t, y.op, y.warp, y.lane, y.kind);
    }));
    CHECK(r.provenance.backend == "model");
    CHECK(r.provenance.gpu == "h100-sxm");
    CHECK(r.provenance.sm_clock_mhz == 1980);
    CHECK(r.provenance.scenario == "tma_2d_load_modify_store");
    CHECK(r.provenance.scenario_hash == s.content_hash);
    CHECK(r.provenance.model_config_hash.size() == 16);
}

TEST_CASE("catalog: tma_2d_missing_proxy_fence reports the unfenced TMA store", "[model][catalog]") {
    const Scenario s = catalog("hazards/tma_2d_missing_proxy_fence.yaml");
    const RunResult r = run_model(s);
    REQUIRE(r.outcome == Outcome::hazard);
    REQUIRE(r.diagnostics.size() == 1);
    const Diagnostic& d = r.diagnostics.front();
    INFO(d.message);
    CHECK(d.rule == "proxy.generic_to_async");
    CHECK(d.op == op_id(s, "store"));
    CHECK(d.message.find("(store)") != std::string::npos);
    // Byte offsets, with the i32 elements they cover, so the range is not read as indices.
    CHECK(d.message.find("smem_buffer bytes 0..255 (elements 0..63)") != std::string::npos);
    CHECK(d.detail.at("writer_ops") == "6");  // the compute op, the only generic writer
    CHECK(d.message.find("threads 0-63") != std::string::npos);
    CHECK(d.detail.at("buffer") == "smem_buffer");
    // A hazard does not stop the run: the store still happened.
    CHECK(i32_at(memory(r, "A", "global"), 16 * 128 + 64 + 10) == 16 * 128 + 64 + 10 + 10);
}

TEST_CASE("catalog: the fence in the guide's kernel is what makes it safe", "[model][catalog]") {
    // Same kernel with the fence: no report (the proxy rule is not a blanket warning).
    const RunResult ok = run_model(catalog("guide/tma_2d_load_modify_store.yaml"));
    CHECK(ok.diagnostics.empty());
}

TEST_CASE("catalog: tma_2d_expect_tx_mismatch hangs at the wait with the byte counts", "[model][catalog]") {
    const Scenario s = catalog("hazards/tma_2d_expect_tx_mismatch.yaml");
    const RunResult r = run_model(s);
    REQUIRE(r.outcome == Outcome::hang);
    REQUIRE(r.diagnostics.size() == 1);
    const Diagnostic& d = r.diagnostics.front();
    INFO(d.message);
    CHECK(d.outcome == Outcome::hang);
    CHECK(d.rule == "mbarrier.tx_mismatch");
    CHECK(d.op == op_id(s, "wait"));
    CHECK(d.detail.at("expected_bytes") == "8192");
    CHECK(d.detail.at("delivered_bytes") == "4096");
    CHECK(d.detail.at("tx_count") == "4096");
    CHECK(d.detail.at("pending_arrivals") == "0");
    CHECK(d.detail.at("phase") == "0");
    CHECK(d.message.find("(wait)") != std::string::npos);
    // Memory is still produced: the tile landed, A is unchanged.
    CHECK(i32_at(memory(r, "smem_buffer", "shared"), 0) == 16 * 128 + 64);
    CHECK(i32_at(memory(r, "A", "global"), 16 * 128 + 70) == 16 * 128 + 70);
    // No warp got past the wait.
    CHECK(events_of(r, op_id(s, "wait"), EventKind::wait_end).empty());
}

TEST_CASE("model: runs back to back in one process are identical", "[model][determinism]") {
    const Scenario bulk = catalog("guide/bulk_add_one_1d.yaml");
    const Scenario hang = catalog("hazards/tma_2d_expect_tx_mismatch.yaml");
    const RunResult first = run_model(bulk);
    const RunResult hung = run_model(hang);  // leaves blocked threads behind, torn down
    const RunResult second = run_model(bulk);
    const RunResult hung2 = run_model(hang);
    REQUIRE(first.outcome == Outcome::ok);
    REQUIRE(hung.outcome == Outcome::hang);
    require_identical(first, second);
    require_identical(hung, hung2);
}

TEST_CASE("model: the arch option picks the config, unknown ones throw", "[model][arch]") {
    const Scenario s = catalog("guide/tma_2d_load_modify_store.yaml");
    ModelOptions o;
    o.arch = "h200";
    o.seed = 7;
    const RunResult r = run_model(s, o);
    CHECK(r.provenance.gpu == "h200");
    CHECK(r.provenance.seed == 7);
    const int load = op_id(s, "load");
    const auto start = events_of(r, load, EventKind::state, "tma_start");
    const auto landed = events_of(r, load, EventKind::state, "bytes_landed");
    REQUIRE(start.size() == 1);
    REQUIRE(landed.size() == 1);
    CHECK(landed[0].t - start[0].t == 474 + 38);
    o.arch = "nope";
    CHECK_THROWS_AS(run_model(s, o), std::runtime_error);
}
