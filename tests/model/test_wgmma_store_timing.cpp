// wgmma.acc_store's time: one posted st.shared per register, until the warpgroup's
// bank-conflict wavefronts back up behind the SM's shared-memory pipe.
#include <catch2/catch.hpp>

#include <string>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/loader.h"

namespace {

using namespace tmasim;

// A warpgroup fills an [64, N] f32 accumulator and stores it to d (f32 [64, N]).
Scenario acc_store_program(int n) {
    const std::string cols = std::to_string(n);
    return load_scenario_text(R"(
scenario: wgmma_store_timing
summary: acc_store of one accumulator
source: tests/model
arch: sm_90
launch: {grid: [1], block: 128}
shared:
  d: {type: f32, shape: [64, )" + cols + R"(]}
accumulators:
  acc: {n: )" + cols + R"(}
program:
  - {op: wgmma.acc_fill, acc: acc, value: 1}
  - {op: wgmma.acc_store, acc: acc, buffer: d}
expect:
  outcome: ok
)",
                              "wgmma_store_timing.yaml");
}

// acc_store's issue to complete on warp 0, in cycles, as the traced kernel's prediction.
int64_t store_cycles(int n) {
    ModelOptions options;
    options.arch = "h200";
    options.trace = TraceLevel::all;
    const RunResult r = run_model(acc_store_program(n), options);
    REQUIRE(r.outcome == Outcome::ok);
    int64_t issue = -1, complete = -1;
    for (const TraceEvent& e : r.events) {
        if (e.op != 1 || e.warp != 0 || e.model_only) continue;
        if (e.kind == EventKind::issue) issue = e.t;
        if (e.kind == EventKind::complete) complete = e.t;
    }
    REQUIRE(issue >= 0);
    REQUIRE(complete >= issue);
    return complete - issue;
}

}  // namespace

TEST_CASE("wgmma timing: acc_store is held back by the warpgroup's bank-conflict wavefronts", "[model][wgmma]") {
    const model::ArchConfig cfg = model::ArchConfig::load_named("h200", ModelOptions{}.arch_dir);
    const model::TimingParams& tp = cfg.timing();
    const double probe = tp.trace_probe_cycles;
    const double wavefront = 128.0 / tp.smem_port_bytes_per_cycle;
    auto line = [&](int registers) { return tp.wgmma_store_base_cycles + registers * tp.wgmma_store_register_cycles; };

    // N = 16: the fragment's eight rows are 64 bytes apart, two rows to a bank: 4 wavefronts a
    // register, 4 x 8 x 4 = 128 for the warpgroup, within what the queues hold (96 on the
    // H200 leaves 32 = the issue line's 8 registers x 4 cycles): the per-register line.
    CHECK(store_cycles(16) == static_cast<int64_t>(line(8) + probe));

    // N = 64: rows 256 bytes apart land in one bank: 8 wavefronts a register, 32 registers,
    // four warps: 1024 wavefronts, the pipe drains them once the queues are full.
    const double drained = tp.wgmma_store_base_cycles + (4.0 * 32 * 8 - tp.wgmma_store_queue_wavefronts) * wavefront;
    REQUIRE(drained > 4 * line(32));  // the conflicts, not the issue, decide it
    CHECK(store_cycles(64) == static_cast<int64_t>(drained + probe));
}
