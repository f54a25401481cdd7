// Regresses the model against traces recorded on real GPUs (traces/recorded/<gpu>/*.jsonl):
// for each one the model must reach the same outcome and the same final memory bytes.
// Timing is printed by `tmasim diff`, not asserted: the model is calibrated, not cycle-exact.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <map>
#include <tuple>
#include <filesystem>
#include <sstream>

#include "model/run/run_model.h"
#include "ptx/kernel_binding.h"
#include "scenarios/loader.h"
#include "traces/trace_diff.h"
#include "traces/trace_reader.h"

namespace fs = std::filesystem;
using namespace tmasim;

namespace {

std::vector<fs::path> recorded_traces() {
    std::vector<fs::path> out;
    fs::path root = fs::path(TMASIM_SOURCE_DIR) / "traces" / "recorded";
    if (!fs::exists(root)) return out;
    for (const auto& e : fs::recursive_directory_iterator(root))
        if (e.is_regular_file() && e.path().extension() == ".jsonl") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

// The arch config whose numbers describe the GPU the trace came from.
std::string arch_for(const std::string& gpu) { return gpu.find("H200") != std::string::npos ? "h200" : "h100-sxm"; }

}  // namespace

TEST_CASE("the model agrees with every recorded hardware trace on outcome and bytes", "[regress]") {
    auto traces = recorded_traces();
    REQUIRE(traces.size() >= 2);  // at least the two guide scenarios were recorded
    int compared = 0, races = 0;
    // One loop, no sections: Catch re-enters a test case per section, which would reset the
    // counts printed at the end.
    for (const fs::path& path : traces) {
        {
            TraceFile device = read_trace_file(path.string());
            const Provenance& prov = device.result.provenance;
            INFO("trace " << path.string() << " recorded on " << prov.gpu);
            REQUIRE(prov.backend == "device");
            fs::path scenario_path = fs::path(TMASIM_SOURCE_DIR) / prov.scenario_file;
            REQUIRE(fs::exists(scenario_path));
            Scenario sc = load_scenario_file(scenario_path.string());
            // A scenario edited after recording makes its trace stale: record it again.
            REQUIRE(sc.content_hash == prov.scenario_hash);
            if (sc.is_kernel()) ptx::bind_kernel(sc);  // its PTX: read, or compiled by NVRTC

            ModelOptions options;
            options.arch = arch_for(prov.gpu);
            // The kernel the recording timed: traced op by op unless its header says otherwise
            // (a race-dependent outcome can differ between the traced and the untraced kernel).
            const auto level = prov.extra.find("trace_level");
            options.trace = level == prov.extra.end() ? TraceLevel::all : *parse_trace_level(level->second);
            RunResult model = run_model(sc, options);
            if (model.outcome == Outcome::hazard) {
                // A race or undefined behaviour: what the hardware shows depends on timing
                // (stale bytes or not, a pass or a hang), so there is nothing to agree on.
                // The model's report itself is checked by the catalog tests.
                ++races;
                continue;
            }
            INFO("model outcome " << to_string(model.outcome) << ", device outcome "
                                  << to_string(device.result.outcome));
            ++compared;
            DiffOptions diff_options;  // the scenario's compare: keys (ulp bounds, opaque tensor maps)
            diff_options.element_types = element_types_of(sc);
            diff_options.compares = image_compares_of(sc);
            DiffReport report = diff_traces(model, device.result, diff_options);
            std::ostringstream text;
            print_diff(report, text);
            INFO(text.str());
            CHECK(to_string(model.outcome) == to_string(device.result.outcome));
            CHECK(report.memory_match());
            // Every global tensor must have been compared, not skipped (after a fault, or a
            // hang killed at the wall-clock limit, the device read nothing back).
            if (!could_not_read_back(model) && !could_not_read_back(device.result)) {
                size_t globals = std::count_if(report.memory.begin(), report.memory.end(),
                                               [](const MemoryDiff& m) {
                                                   // equal, or different as the scenario's compare: allows
                                                   const bool allowed = m.opaque || m.within_ulps;
                                                   return m.space == "global" && !m.is_mismatch &&
                                                          (m.status == MemoryDiff::Status::equal || allowed);
                                               });
                CHECK(globals == sc.globals.size());
            }
        }
    }
    WARN(compared << " recorded traces compared with the model on outcome and bytes; " << races
                  << " race scenarios not compared (timing-dependent on hardware)");
}

// A CTA barrier releases nobody before its last warp arrives, and a trace must show that.
// The device executor's timestamps once broke it: after bar.sync (SASS
// BAR.SYNC.DEFER_BLOCKING) the closing %clock64 read issued before the barrier resolved,
// so warps seemed to leave before the last one arrived.
TEST_CASE("in every recorded trace, no warp leaves a sync before the last warp reaches it", "[regress]") {
    auto traces = recorded_traces();
    REQUIRE_FALSE(traces.empty());
    for (const fs::path& path : traces) {
        DYNAMIC_SECTION(path.filename().string()) {
            TraceFile device = read_trace_file(path.string());
            const Scenario sc = load_scenario_file((fs::path(TMASIM_SOURCE_DIR) / device.result.provenance.scenario_file).string());
            // (op, iters, cta) -> last arrival and first release over the warps
            std::map<std::tuple<int, std::vector<int64_t>, int>, std::pair<int64_t, int64_t>> syncs;
            for (const TraceEvent& e : device.result.events) {
                const Op* op = sc.find_op(e.op);
                if (!op || op->kind != OpKind::sync) continue;
                auto& [last_arrival, first_release] =
                    syncs.try_emplace({e.op, e.iters, e.cta}, INT64_MIN, INT64_MAX).first->second;
                if (e.kind == EventKind::wait_begin) last_arrival = std::max(last_arrival, e.t);
                if (e.kind == EventKind::wait_end) first_release = std::min(first_release, e.t);
            }
            for (const auto& [key, times] : syncs) {
                INFO("sync op #" << std::get<0>(key) << " in CTA " << std::get<2>(key) << ": last warp arrives at "
                                 << times.first << ", first warp leaves at " << times.second);
                CHECK(times.first <= times.second);
            }
        }
    }
}
