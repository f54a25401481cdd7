// Which kernel the model predicts: by default the one that runs untraced; with a trace level,
// the one the device executor times at that level, each timed op paying the arch config's
// measured probe cost. The header says which, and carries the predicted kernel span.
#include <catch2/catch.hpp>

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

RunResult run_at(const Scenario& s, TraceLevel level) {
    ModelOptions o;
    o.arch = "h200";
    o.trace = level;
    return run_model(s, o);
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
