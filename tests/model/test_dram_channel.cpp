// The chip's shared HBM channel: first come first served at the configured rate, and a full
// chip of streaming CTAs limited by it where one CTA is not; each SM's own share of it, with a
// burst, that shrinks as the chip gets busy; and a warm launch that reads from L2.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>
#include <string>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "model/state/dram_channel.h"
#include "scenarios/loader.h"

using namespace tmasim;
using tmasim::model::DramChannel;

TEST_CASE("the HBM channel serves transfers in arrival order at its rate", "[model][dram]") {
    DramChannel ch(100.0);  // bytes per cycle
    CHECK(ch.pass(0, 1000) == 10);      // idle: bytes / rate
    CHECK(ch.pass(5, 1000) == 20);      // queued behind the first
    CHECK(ch.pass(100, 50) == 101);     // idle again by cycle 100: half a cycle, rounded up
    CHECK(ch.pass(100, 50) == 101);     // the two halves share one cycle
    CHECK(ch.bytes_moved() == 2100);
    DramChannel unlimited(0);
    CHECK(unlimited.pass(7, 1 << 20) == 7);  // no channel in the config: no shared limit
}

TEST_CASE("a channel with a burst runs ahead of its rate after an idle spell, then holds to it", "[model][dram]") {
    DramChannel ch(10.0, 1000.0);  // 10 bytes per cycle, 1000 bytes banked when idle
    CHECK(ch.pass(1000, 1000) == 1000);       // the whole burst passes at once
    CHECK(ch.pass(1000, 1000) == 1100);       // nothing banked now: at the rate
    CHECK(ch.pass(1100, 500, 0.5) == 1200);   // at half the rate
    CHECK(ch.pass(5000, 400) == 5000);        // banked again after the idle spell
}

TEST_CASE("a channel's utilization is its recent bytes per cycle over its rate", "[model][dram]") {
    DramChannel ch(100.0);
    CHECK(ch.utilization(0) == 0);
    for (int64_t t = 0; t < 20000; t += 10) ch.pass(t, 500);  // 50 bytes per cycle offered
    CHECK(ch.utilization(20000) == Approx(0.5).margin(0.03));
    CHECK(ch.utilization(60000) < 0.01);  // long idle: forgotten
    DramChannel none(0);
    none.pass(0, 1 << 20);
    CHECK(none.utilization(0) == 0);
}

namespace {

// The benchmark's TMA stream with `ctas` CTAs of `tiles` tiles each.
Scenario stream(int ctas, int tiles) {
    std::ifstream in(std::string(TMASIM_SOURCE_DIR) + "/scenarios/catalog/bench/tma_stream.yaml");
    std::stringstream ss;
    ss << in.rdbuf();
    std::string t = ss.str();
    auto replace = [&](const std::string& from, const std::string& to) {
        const auto at = t.find(from);
        REQUIRE(at != std::string::npos);
        t.replace(at, from.size(), to);
    };
    replace("grid: [1]", "grid: [" + std::to_string(ctas) + "]");
    replace("shape: [512, 64]", "shape: [" + std::to_string(ctas * tiles * 64) + ", 64]");
    // Each CTA's region (the summary names it too, so every occurrence).
    for (auto at = t.find("cta*32768"); at != std::string::npos; at = t.find("cta*32768"))
        t.replace(at, 9, "cta*" + std::to_string(tiles * 64));
    replace("var: t\n    count: 4", "var: t\n    count: " + std::to_string(tiles - 4));
    return load_scenario_text(t, "stream.yaml");
}

// The stream's tensors are small; cold (not the default) stands for the streams larger than
// L2 that these tests are about.
double per_cta_bytes_per_cycle(int ctas, int tiles, model::L2AtLaunch l2 = model::L2AtLaunch::cold) {
    ModelOptions o;
    o.arch = "h200";
    o.l2 = l2;
    const RunResult r = run_model(stream(ctas, tiles), o);
    REQUIRE(r.outcome == Outcome::ok);
    return 16384.0 * tiles / std::stod(r.provenance.extra.at("kernel_span_cycles"));
}

}  // namespace

TEST_CASE("a full chip of streaming CTAs shares HBM, one CTA does not feel it", "[model][dram]") {
    // The config outlives `tp`: timing() refers into it (ASan caught a temporary here).
    const model::ArchConfig arch = model::ArchConfig::load_named("h200", ModelOptions().arch_dir);
    const auto& tp = arch.timing();
    const double one = per_cta_bytes_per_cycle(1, 32);
    const double full = per_cta_bytes_per_cycle(132, 32);
    // One CTA from HBM: its SM's share of HBM sets the rate, far below the chip's (the burst
    // lets the first four tiles through faster).
    CHECK(one <= tp.hbm_sm_bytes_per_cycle * 1.05);
    CHECK(one > 0.85 * tp.hbm_sm_bytes_per_cycle);
    // 132 CTAs: each gets about its share of the channel (the fill and drain take a little more).
    CHECK(full <= tp.hbm_bytes_per_cycle / 132 * 1.001);
    CHECK(full > 0.8 * tp.hbm_bytes_per_cycle / 132);
}

TEST_CASE("a warm launch streams from L2, and an SM's HBM share shrinks as more SMs stream",
          "[model][dram]") {
    const model::ArchConfig arch = model::ArchConfig::load_named("h200", ModelOptions().arch_dir);
    const auto& tp = arch.timing();
    const double cold = per_cta_bytes_per_cycle(1, 32);
    // 32 tiles of 16 KiB fit in L2: the launch after an identical one reads them from there,
    // beyond the SM's HBM share (sm_placement_probe.cu: 187 against 100 GB/s on an H200).
    const double warm = per_cta_bytes_per_cycle(1, 32, model::L2AtLaunch::warm);
    CHECK(warm > 1.2 * cold);
    CHECK(warm <= tp.tma_bytes_per_cycle);
    // The executor's launch (the default): the host copy left them in L2, so they stream from
    // there too, a little slower than warm (each line's first touch pays the cold latency).
    const double inputs = per_cta_bytes_per_cycle(1, 32, model::L2AtLaunch::inputs);
    CHECK(inputs > 1.2 * cold);
    CHECK(inputs <= warm);
    // 33 CTAs use about half the chip's HBM: each SM gets less than one alone, more than its
    // share at a saturated chip.
    const double many = per_cta_bytes_per_cycle(33, 32);
    CHECK(many < 0.9 * cold);
    CHECK(many > (1.0 - tp.hbm_sm_load_slowdown) * 0.9 * tp.hbm_sm_bytes_per_cycle);
    // A grid too large for L2 is not warmed: 132 CTAs x 32 tiles are 69 MB, over the 60 MB.
    CHECK(per_cta_bytes_per_cycle(132, 32, model::L2AtLaunch::warm) == Approx(per_cta_bytes_per_cycle(132, 32)));
    CHECK(per_cta_bytes_per_cycle(132, 32, model::L2AtLaunch::inputs) == Approx(per_cta_bytes_per_cycle(132, 32)));
}
