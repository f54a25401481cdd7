// Regresses the model against traces recorded on real GPUs (traces/recorded/<gpu>/*.jsonl):
// for each one the model must reach the same outcome and the same final memory bytes.
// Timing is printed by `tmasim diff`, not asserted: the model is calibrated, not cycle-exact.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "model/run_model.h"
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
    for (const fs::path& path : traces) {
        DYNAMIC_SECTION(path.filename().string()) {
            TraceFile device = read_trace_file(path.string());
            const Provenance& prov = device.result.provenance;
            INFO("trace " << path.string() << " recorded on " << prov.gpu);
            REQUIRE(prov.backend == "device");
            fs::path scenario_path = fs::path(TMASIM_SOURCE_DIR) / prov.scenario_file;
            REQUIRE(fs::exists(scenario_path));
            Scenario sc = load_scenario_file(scenario_path.string());
            // A scenario edited after recording makes its trace stale: record it again.
            REQUIRE(sc.content_hash == prov.scenario_hash);

            ModelOptions options;
            options.arch = arch_for(prov.gpu);
            RunResult model = run_model(sc, options);
            DiffReport report = diff_traces(model, device.result);
            std::ostringstream text;
            print_diff(report, text);
            INFO(text.str());
            CHECK(to_string(model.outcome) == to_string(device.result.outcome));
            CHECK(report.memory_match());
            // Every global tensor must have been compared, not skipped.
            size_t globals = std::count_if(report.memory.begin(), report.memory.end(),
                                           [](const MemoryDiff& m) { return m.space == "global"; });
            CHECK(globals == sc.globals.size());
        }
    }
}
