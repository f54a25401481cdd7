// The chip's L2 request path (model/state/l2_request_path.h): one request per 128-byte line
// a warp instruction touches, each taking a slot per sector it moves plus a fixed overhead,
// served first come first served; and at full chip, the layout ops bound by it when each
// instruction uses little of each line.
#include <catch2/catch.hpp>

#include "catalog_support.h"

#include <algorithm>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "model/state/l2_request_path.h"
#include "scenarios/layout_access.h"

using namespace tmasim;
using model::L2RequestPath;

namespace {

// Lane t's byte address for instruction k when each thread holds `run` contiguous bytes and
// moves them `width` at a time (a 1-D blocked layout of f32, R = run / 4).
std::vector<int64_t> blocked(int64_t run, int64_t width, int64_t k) {
    std::vector<int64_t> a;
    for (int64_t t = 0; t < 32; ++t) a.push_back(t * run + k * width);
    return a;
}

}  // namespace

TEST_CASE("l2 requests: an instruction sends one request per line, with the sectors it touches", "[model][l2]") {
    // The layouts tutorial's R sweep: R = 1 and 4 whole lines, R = 16 half of two sectors of
    // each of 16 lines (lanes 2j and 2j+1 share a line, 16 B each, 64 B apart).
    CHECK(count_sectors(blocked(4, 4, 0), 4).lines == 1);
    CHECK(count_sectors(blocked(16, 16, 0), 16).lines == 4);
    CHECK(count_sectors(blocked(64, 16, 1), 16).lines == 16);
    CHECK(count_sectors(blocked(64, 16, 1), 16).sectors == 32);
}

TEST_CASE("l2 requests: the path serves slots in arrival order, a sector each plus the overhead", "[model][l2]") {
    L2RequestPath path(10.0, 4.0);       // 10 slots per cycle; 4 slots per request besides its sectors
    CHECK(path.pass(0, 5, 20) == 4);     // idle: 5 full-line requests, (5 x 4 + 20) / 10
    CHECK(path.pass(2, 5, 5) == 7);      // queued behind them: (20 + 5) / 10 more, rounded up
    CHECK(path.pass(100, 1, 1) == 101);  // idle again: half a cycle, rounded up
    CHECK(path.pass(100, 1, 1) == 101);  // the two halves share that cycle
    CHECK(path.pass(200, 0, 0) == 200);  // nothing to send
    CHECK(path.requests() == 12);
    // The same 128 bytes as 32 B of four lines cost (4 + 1) x 4 slots against 4 + 4 for one line.
    L2RequestPath spread(1.0, 4.0), whole(1.0, 4.0);
    CHECK(spread.pass(0, 4, 4) == 20);
    CHECK(whole.pass(0, 1, 4) == 8);
    L2RequestPath unlimited(0, 4);
    CHECK(unlimited.pass(7, 1 << 20, 1 << 22) == 7);  // no rate in the config: no limit
}

namespace {

struct FullChip {
    int64_t span = 0, lines = 0, sectors = 0, dram_bytes = 0;
};

FullChip run_full_chip(const std::string& rel, const std::string& arch) {
    ModelOptions o;
    o.arch = arch;
    const RunResult r = run_model(test::catalog(rel), o);
    REQUIRE(r.outcome == Outcome::ok);
    FullChip f;
    f.span = std::stoll(r.provenance.extra.at("kernel_span_cycles"));
    auto sum = [](const TraceEvent& e, const char* key) { return e.detail.count(key) ? std::stoll(e.detail.at(key)) : 0; };
    for (const TraceEvent& e : r.events)
        if (e.kind == EventKind::complete && e.detail.count("dram_bytes")) {
            f.lines += sum(e, "gld_lines") + sum(e, "gst_lines");
            f.sectors += sum(e, "gld_sectors") + sum(e, "gst_sectors");
            f.dram_bytes += sum(e, "dram_bytes");
        }
    return f;
}

}  // namespace

TEST_CASE("l2 requests: at full chip 32 bytes per line is bound by requests, whole lines by HBM", "[model][l2][full_chip]") {
    for (const std::string arch : {"h100-sxm", "h200"}) {
        INFO(arch);
        const model::ArchConfig config = model::ArchConfig::load_named(arch, ModelOptions().arch_dir);
        const model::TimingParams& tp = config.timing();
        const FullChip quarter = run_full_chip("calibrate/full_chip/copy_v4_32b_lines.yaml", arch);
        const FullChip half = run_full_chip("calibrate/full_chip/copy_v2_64b_lines.yaml", arch);
        const FullChip r4 = run_full_chip("layouts/full_chip/memcpy_1d_r4.yaml", arch);
        // The same bytes through HBM (16.5 MiB each way), 4x and 2x the line requests of
        // whole lines, with the same sectors.
        CHECK(quarter.dram_bytes == r4.dram_bytes);
        CHECK(half.dram_bytes == r4.dram_bytes);
        CHECK(quarter.lines == 4 * r4.lines);
        CHECK(half.lines == 2 * r4.lines);
        CHECK(quarter.sectors == r4.sectors);
        // The request path's slots at the configured rate and the bytes through HBM each bound
        // the span; the larger one sets it. The kernel ends when its warps do, before its last
        // posted stores pass (at most the last of 4 iterations' stores: 1/8 of the traffic).
        const double slots = double(quarter.lines) * tp.l2_request_overhead_sectors + double(quarter.sectors);
        const double request_cycles = slots / tp.l2_sectors_per_cycle;
        const double hbm_cycles = double(quarter.dram_bytes) / tp.hbm_bytes_per_cycle;
        const double bound = std::max(request_cycles, hbm_cycles);
        INFO("request path " << request_cycles << " cycles, HBM " << hbm_cycles << ", span " << quarter.span);
        CHECK(double(quarter.span) >= 7.0 / 8 * bound);
        CHECK(double(quarter.span) < 1.25 * bound);
        // Whole lines: a quarter of the requests, so HBM binds.
        const double r4_slots = double(r4.lines) * tp.l2_request_overhead_sectors + double(r4.sectors);
        CHECK(r4_slots / tp.l2_sectors_per_cycle < hbm_cycles);
        CHECK(double(r4.span) >= 7.0 / 8 * hbm_cycles);
        CHECK(double(r4.span) < 1.25 * hbm_cycles);
        CHECK(double(quarter.span) / double(r4.span) == Approx(bound / hbm_cycles).epsilon(0.05));
    }
}
