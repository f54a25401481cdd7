// Which kernel the model predicts: by default the one that runs untraced; with a trace level,
// the one the device executor times at that level, each timed op paying the arch config's
// measured probe cost. The header says which, and carries the predicted kernel span.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"

using namespace tmasim;

namespace {

// One warp, five ops in a row on its critical path, two of them waits.
const char* kSerial = R"(
scenario: serial_ops
summary: five ops one after the other on one warp
source: tests/model
arch: sm_90
launch: {grid: [1], block: 32}
shared:
  s: {type: i32, shape: [32]}
barriers:
  b: {}
program:
  - {op: mbarrier.init, barrier: b, count: 1, by: thread0}
  - {op: sync}
  - {op: shared.store, buffer: s, index: "tid", value: "tid"}
  - {op: mbarrier.arrive, barrier: b, by: thread0}
  - {op: mbarrier.wait, barrier: b, parity: 0}
expect:
  outcome: ok
)";

int64_t span_cycles(const RunResult& r) { return std::stoll(r.provenance.extra.at("kernel_span_cycles")); }

RunResult run_at(const Scenario& s, TraceLevel level, model::TraceWordsAt words = model::TraceWordsAt::automatic) {
    ModelOptions o;
    o.arch = "h200";
    o.trace = level;
    o.trace_words = words;
    return run_model(s, o);
}

// Two warps; warp 1 loads shared memory four times before the sync, so warp 0 arrives first
// and the release follows warp 1's arrival. `trace_key` is "" or the sync's `, trace: ...`.
Scenario late_warp_sync(const std::string& trace_key) {
    return load_scenario_text(R"(
scenario: late_warp_sync
summary: Warp 1 reaches the sync after four shared loads.
source: tests/model
arch: sm_90
launch: {grid: [1], block: 64}
shared:
  words: {type: i32, shape: [64]}
program:
  - {op: loop, var: r, count: 4, body: [{op: shared.load, buffer: words, index: "tid", by: "warp == 1"}]}
  - {op: sync, label: meet)" + trace_key + R"(}
expect:
  outcome: ok
)",
                              "late_warp_sync.yaml");
}

// The sync's release after its last arrival: the first wait_end less the last wait_begin.
// (In a traced kernel warp 0, passing the four loads it is not picked for, may be the later.)
int64_t release_after_last_arrival(const Scenario& s, TraceLevel level,
                                   model::TraceWordsAt words = model::TraceWordsAt::automatic) {
    const RunResult r = run_at(s, level, words);
    REQUIRE(r.outcome == Outcome::ok);
    int64_t last_arrival = -1, release = -1;
    for (const TraceEvent& e : r.events) {
        if (e.op != 2) continue;
        if (e.kind == EventKind::wait_begin) last_arrival = std::max(last_arrival, e.t);
        if (e.kind == EventKind::wait_end && (release < 0 || e.t < release)) release = e.t;
    }
    REQUIRE(last_arrival >= 0);
    REQUIRE(release >= 0);
    return release - last_arrival;
}

// When warp w begins the sync (op 2) of late_warp_sync.
int64_t sync_begin_of_warp(const RunResult& r, int warp) {
    for (const TraceEvent& e : r.events)
        if (e.op == 2 && e.kind == EventKind::wait_begin && e.warp == warp) return e.t;
    FAIL("no wait_begin of the sync by warp " << warp);
    return -1;
}

}  // namespace

TEST_CASE("the model predicts the untraced kernel unless told the trace level", "[model][trace_level]") {
    const Scenario s = load_scenario_text(kSerial, "serial.yaml");
    const RunResult none = run_model(s, [] {
        ModelOptions o;
        o.arch = "h200";
        return o;
    }());
    REQUIRE(none.outcome == Outcome::ok);
    CHECK(none.provenance.extra.at("trace_level") == "none");

    const RunResult all = run_at(s, TraceLevel::all);
    const RunResult waits = run_at(s, TraceLevel::waits);
    CHECK(all.provenance.extra.at("trace_level") == "all");
    const double probe = model::ArchConfig::load_named("h200", ModelOptions().arch_dir).timing().trace_probe_cycles;
    REQUIRE(probe > 0);
    // Every op lies on the one warp's path: all pays five probes, waits two (sync and
    // mbarrier.wait), and both the hold of the timed sync's end clock (trace_sync_hold_cycles).
    const double hold = model::ArchConfig::load_named("h200", ModelOptions().arch_dir).timing().trace_sync_hold_cycles;
    REQUIRE(hold > 0);
    CHECK(std::abs(span_cycles(all) - span_cycles(none) - (5 * probe + hold)) <= 0.5);
    CHECK(std::abs(span_cycles(waits) - span_cycles(none) - (2 * probe + hold)) <= 0.5);
    // ns at the config's clock (1980 MHz).
    const int64_t ns = std::stoll(none.provenance.extra.at("kernel_span_ns"));
    CHECK(ns == static_cast<int64_t>(std::llround(span_cycles(none) * 1000.0 / 1980.0)));
}

TEST_CASE("a hung run has no predicted kernel span", "[model][trace_level]") {
    std::string text = kSerial;
    const std::string arrive = "  - {op: mbarrier.arrive, barrier: b, by: thread0}\n";
    text.erase(text.find(arrive), arrive.size());  // no arrival: phase 0 never completes
    text.replace(text.find("outcome: ok"), 11, "outcome: hang");
    const RunResult r = run_model(load_scenario_text(text, "hang.yaml"));
    REQUIRE(r.outcome == Outcome::hang);
    CHECK(r.provenance.extra.count("kernel_span_ns") == 0);
}

// A CTA sync in the untraced kernel costs the barrier's release alone (sync_cycles); in a
// traced kernel a timed sync also pays the hold that keeps its end clock after the release
// (trace_sync_hold_cycles, traces/analysis/sync_holds.py), and an untimed one does not.
TEST_CASE("sync: the untraced barrier releases after sync_cycles, a timed one in a traced kernel after the hold too",
          "[model][sync]") {
    const model::TimingParams tp = model::ArchConfig::load_named("h200", TMASIM_ARCH_DIR).timing();
    REQUIRE(tp.trace_sync_hold_cycles > 0);
    const Scenario s = late_warp_sync("");
    const int64_t untraced = release_after_last_arrival(s, TraceLevel::none);
    const int64_t traced = release_after_last_arrival(s, TraceLevel::all);
    CHECK(untraced == static_cast<int64_t>(tp.sync_cycles + 0.5));
    // A wait_end is not stamped after the probe as a complete is (model/sm/warp_process.cpp,
    // emit): the barrier numbers were measured begin to end on the traced device.
    CHECK(traced == static_cast<int64_t>(tp.sync_cycles + tp.trace_sync_hold_cycles + 0.5));
    // The measured pair: a __syncwarp-held sync on the H200 released in 24 cycles, a store-held
    // one in 71 (traces/analysis/sync_holds.py).
    CHECK(untraced < 40);
    CHECK(traced > 60);
    // Where the traced kernel keeps its clock words decides the hold: in global memory a
    // __syncwarp holds the end clock, at no cost past the release (model/core/trace_words_at.h).
    CHECK(release_after_last_arrival(s, TraceLevel::all, model::TraceWordsAt::shared) == traced);
    CHECK(release_after_last_arrival(s, TraceLevel::all, model::TraceWordsAt::global) == untraced);
    CHECK(run_at(s, TraceLevel::all, model::TraceWordsAt::global).provenance.extra.at("trace_words_in") == "global");
    CHECK(run_at(s, TraceLevel::all).provenance.extra.at("trace_words_in") == "shared");  // auto: no cp.async
    // What the device times decides it: a sync left untimed (trace: false) has no end clock to
    // hold, and one timed at every level (trace: true) holds it in the untraced kernel too.
    CHECK(release_after_last_arrival(late_warp_sync(", trace: false"), TraceLevel::all) == untraced);
    CHECK(run_at(s, TraceLevel::none).provenance.extra.count("trace_words_in") == 0);
    CHECK(release_after_last_arrival(late_warp_sync(", trace: true"), TraceLevel::none) == traced);
}

// A traced kernel that keeps its clock words in global memory starts its first op
// trace_global_words_prologue_cycles later (the fitting recordings' medians); the untraced
// kernel has no words and pays nothing.
TEST_CASE("a traced kernel with its clock words in global memory starts later", "[model][trace_level]") {
    const model::TimingParams tp = model::ArchConfig::load_named("h200", TMASIM_ARCH_DIR).timing();
    REQUIRE(tp.trace_global_words_prologue_cycles > 0);
    const Scenario s = late_warp_sync("");
    const auto first_event = [](const RunResult& r) {
        int64_t first = -1;
        for (const TraceEvent& e : r.events)
            if (first < 0 || e.t < first) first = e.t;
        return first;
    };
    const int64_t shared = first_event(run_at(s, TraceLevel::all, model::TraceWordsAt::shared));
    const int64_t global = first_event(run_at(s, TraceLevel::all, model::TraceWordsAt::global));
    CHECK(shared >= static_cast<int64_t>(tp.kernel_prologue_cycles));
    CHECK(global - shared == static_cast<int64_t>(tp.trace_global_words_prologue_cycles + 0.5));
    CHECK(first_event(run_at(s, TraceLevel::none, model::TraceWordsAt::global)) ==
          first_event(run_at(s, TraceLevel::none, model::TraceWordsAt::shared)));
}

// The traced kernel reads the clock that ends each timed op in every warp, and a warp that a
// predicate leaves out of an op pays its vote and the jump past the op's code: measured at
// 96.6 cycles per passed op on the H200 (traces/analysis/skipped_ops.py), far more than the
// same passing costs the untraced kernel. Warp 0 passes late_warp_sync's four loads by
// `warp == 1`: at trace level `all` (the loads timed) it pays both per load, at `waits` (only
// the sync timed) nothing.
TEST_CASE("a traced kernel's warp pays the probe and the vote for each timed op it is not picked for",
          "[model][trace_level]") {
    const model::TimingParams tp = model::ArchConfig::load_named("h200", TMASIM_ARCH_DIR).timing();
    REQUIRE(tp.trace_predicate_skip_cycles > 0);
    const Scenario s = late_warp_sync("");
    const int64_t all = sync_begin_of_warp(run_at(s, TraceLevel::all), 0);
    const int64_t waits = sync_begin_of_warp(run_at(s, TraceLevel::waits), 0);
    CHECK(all - waits == static_cast<int64_t>(4 * (tp.trace_probe_cycles + tp.trace_predicate_skip_cycles) + 0.5));
    CHECK((all - waits) / 4 > 90);  // the measured 96.6 per passed op, not one clock read
}
