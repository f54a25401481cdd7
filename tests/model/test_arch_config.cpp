#include <catch2/catch.hpp>

#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>

#include "model/core/arch_config.h"
#include "model/run/run_model.h"
#include "scenarios/values.h"

using tmasim::model::ArchConfig;
namespace fs = std::filesystem;

// Its own namespace: the unity build compiles this file beside others whose helpers have the
// same names.
namespace test_arch_config {

namespace {
std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// A copy of h100-sxm.yaml in a temp dir, with `edit` applied to its text.
std::string edited_copy(const std::string& name, const std::function<std::string(std::string)>& edit) {
    const fs::path dir = fs::temp_directory_path() / "tmasim_test_arch";
    fs::create_directories(dir);
    const fs::path file = dir / (name + ".yaml");
    std::ofstream(file) << edit(read(std::string(TMASIM_ARCH_DIR) + "/h100-sxm.yaml"));
    return file.string();
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
    auto pos = s.find(from);
    REQUIRE(pos != std::string::npos);
    return s.replace(pos, from.size(), to);
}
}  // namespace

TEST_CASE("arch: both shipped configs load, with a source for every number", "[model][arch]") {
    for (const std::string name : {"h100-sxm", "h200"}) {
        const ArchConfig c = ArchConfig::load_named(name, TMASIM_ARCH_DIR);
        CHECK(c.name() == name);
        CHECK(c.timing().sm_clock_mhz == 1980);
        CHECK(c.timing().tma_bytes_per_cycle == 110);  // measured on the H200, same TMA unit
        // The release of a __syncwarp-held bar.sync, and what a traced kernel's timed sync adds
        // (traces/analysis/sync_holds.py on each GPU's fitting traces).
        CHECK(c.timing().sync_cycles == (name == "h200" ? 24 : 23.5));
        CHECK(c.timing().trace_sync_hold_cycles == (name == "h200" ? 47 : 47.5));  // store-held 71 less sync_cycles
        // The register tracer's per-op cost, fitted per GPU (traces/analysis/fit_probe_cycles.py):
        // the same on both since every warp pays it and the pass cost is measured apart.
        CHECK(c.timing().trace_probe_cycles == 25);
        // A read inside a one-thread run's branch (fitted), and the prologue per further warp
        // on a scheduler (traces/analysis/prologue_warps.py on each GPU's fitting traces).
        CHECK(c.timing().trace_in_branch_probe_cycles == 5);
        CHECK(c.timing().trace_prologue_warp_cycles == (name == "h200" ? 77 : 86));
        CHECK(c.timing().hbm_bytes_per_cycle > 1000);   // the chip's HBM, ~14x one SM's TMA port
        CHECK(c.timing().predicate_select_cycles == 26);  // calibrate/warps_shared_access on each GPU
        // calibrate/mbarrier_blocked_wake and shared_v4_conflict_warps: identical on both GPUs.
        CHECK(c.timing().mbarrier_wait_resume_cycles == 96);
        CHECK(c.timing().mbarrier_lane_wait_resume_cycles == 332);  // and calibrate/lane_wait_arrival_delay
        CHECK(c.timing().mbarrier_lane_wait_min_cycles == 712);
        CHECK(c.timing().predicate_division_cycles == 45);
        // The global loads of calibrate/global_load_latency, measured per GPU: an L2 hit the
        // same on both, a CTA's first load dearer on the H200, a first read of a line on the H100.
        CHECK(c.timing().global_load_l2_cycles == (name == "h200" ? 298 : 299));
        CHECK(c.timing().global_load_first_access_cycles == (name == "h200" ? 496 : 320));
        CHECK(c.timing().global_load_first_line_cycles == (name == "h200" ? 323 : 531));
        CHECK(c.timing().branched_global_load_cycles == (name == "h200" ? 62 : 78));
        // A traced kernel's warp passing a predicated op (traces/analysis/skipped_ops.py).
        CHECK(c.timing().trace_predicate_skip_cycles == (name == "h200" ? 77 : 78));  // the gap less the probe
        CHECK(c.timing().bar_arrive_cycles == (name == "h200" ? 32 : 31));  // calibrate/named_barrier_arrive
        // The fragment stores' queue (fitted to the four acc_store widths the traces have), and the
        // commit that closes a store, re-measured on the one-warm-launch recordings (store_commit.py).
        CHECK(c.timing().wgmma_store_queue_wavefronts == 96);
        CHECK(c.timing().bulk_commit_cycles == (name == "h200" ? 33 : 35.5));
        // A warp passing the elected lane's guarded tma.load (traces/analysis/elected_passes.py).
        CHECK(c.timing().elected_tma_load_pass_cycles == (name == "h200" ? 58.5 : 59));
        CHECK(c.timing().elected_tma_map_first_pass_cycles == (name == "h200" ? 38.5 : 42));
        CHECK(c.sources().size() == 87);  // 35 + sm_count + elected_tma_load_pass, elected_tma_map_first_pass, wgmma_store_queue_wavefronts, trace_in_branch_probe, trace_prologue_warp, bar_arrive, mbarrier_lane_wait_min, trace_global_words_prologue, trace_predicate_skip, branched_global_load, global_load_first_line, global_load_first_access, trace_sync_hold, predicate_select, predicate_division, mbarrier_lane_wait_resume, global_store, tma_store_read, tma_store_bytes_per_cycle + tma_store_latency + mbarrier_wait_ready + snapshot_vector + the six cluster numbers + the seven wgmma ones + five tensormap ones + cp_async_arrive, bulk/tensor_reduce_issue, dsmem_load_wavefront, hbm_bytes_per_cycle, l2_sectors_per_cycle, l2_request_overhead_sectors, hbm_sm_bytes_per_cycle, hbm_sm_burst_bytes, hbm_sm_load_slowdown, l2_bytes
        // Each number says where it comes from: a device measurement, a fit to measurements,
        // a hopper-figures.md row, a derivation from one, or an explicit estimate.
        for (const auto& [key, source] : c.sources()) {
            INFO(name << "." << key << ": " << source);
            const bool cited = source.rfind("measured", 0) == 0 || source.rfind("fitted: ", 0) == 0 ||
                               source.rfind("estimate", 0) == 0 ||
                               source.rfind("d: ", 0) == 0 || source.rfind("hopper-figures.md", 0) == 0;
            CHECK(cited);
        }
        const std::string text = read(c.path());
        CHECK(c.hash() == tmasim::fnv1a64_hex(text.data(), text.size()));
    }
    CHECK(ArchConfig::load_named("h200", TMASIM_ARCH_DIR).timing().tma_latency_hbm_cycles == 474);  // round trip 570 less the measured wait resume (96)
    CHECK(ArchConfig::load_named("h100-sxm", TMASIM_ARCH_DIR).timing().tma_latency_hbm_cycles == 453);  // fitted on the H100's recordings
}

TEST_CASE("arch: unknown arch names list the known ones", "[model][arch]") {
    const std::string e = error_of([] { ArchConfig::load_named("b300", TMASIM_ARCH_DIR); });
    CHECK(e.find("unknown arch 'b300'") != std::string::npos);
    CHECK(e.find("h100-sxm, h200") != std::string::npos);
    CHECK_THROWS_AS(ArchConfig::load_named("../arch/h200", TMASIM_ARCH_DIR), std::runtime_error);
}

TEST_CASE("arch: configs fail closed", "[model][arch]") {
    auto unknown = edited_copy("unknown_key", [](std::string s) {
        return replace(s, "  sync_cycles:", "  warp_speed:\n    value: 9\n    source: \"x\"\n  sync_cycles:");
    });
    CHECK(error_of([&] { ArchConfig::load_file(unknown); }).find("warp_speed: unknown parameter") != std::string::npos);

    auto no_source = edited_copy("no_source", [](std::string s) {
        return replace(s, "    source: \"measured: traces/recorded/NVIDIA-H100-80GB-HBM3/, the fitting folders of "
                          "traces/recorded/SPLIT.yaml (recorded at 949d4ea): the last warp",
                       "    sauce: \"");
    });
    CHECK(error_of([&] { ArchConfig::load_file(no_source); }).find("sync_cycles.sauce") != std::string::npos);

    auto missing = edited_copy("missing", [](std::string s) {
        const auto from = s.find("  sync_cycles:"), to = s.find("  fence_proxy_async_cycles:");
        REQUIRE(from < to);
        return s.erase(from, to - from);
    });
    CHECK(error_of([&] { ArchConfig::load_file(missing); }).find("sync_cycles: missing parameter") != std::string::npos);

    auto top = edited_copy("top_key", [](std::string s) { return s + "extra: 1\n"; });
    CHECK(error_of([&] { ArchConfig::load_file(top); }).find("extra: unknown key") != std::string::npos);
}

}  // namespace test_arch_config
