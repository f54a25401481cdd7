// The chip's shared HBM channel: first come first served at the configured rate, and a full
// chip of streaming CTAs limited by it where one CTA is not.
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

double per_cta_bytes_per_cycle(int ctas, int tiles) {
    ModelOptions o;
    o.arch = "h200";
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
    // One CTA: its own TMA port and the pipeline's round trips set the rate, far below HBM's.
    CHECK(one <= tp.tma_bytes_per_cycle);
    CHECK(one > 0.5 * tp.tma_bytes_per_cycle);
    // 132 CTAs: each gets about its share of the channel (the fill and drain take a little more).
    CHECK(full <= tp.hbm_bytes_per_cycle / 132 * 1.001);
    CHECK(full > 0.8 * tp.hbm_bytes_per_cycle / 132);
}
