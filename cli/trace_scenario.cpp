#include "cli/trace_scenario.h"
#include "cli/scenario_load.h"

#include <filesystem>

#include "scenarios/loader.h"

namespace tmasim::cli {

std::optional<TraceScenario> scenario_of_trace(const Provenance& provenance) {
    if (provenance.scenario_file.empty()) return std::nullopt;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(provenance.scenario_file, ec)) return std::nullopt;
    try {
        TraceScenario t;
        t.scenario = load_bound_scenario(provenance.scenario_file);
        t.stale = !provenance.scenario_hash.empty() && t.scenario.content_hash != provenance.scenario_hash;
        return t;
    } catch (const std::exception&) {
        // A file that no longer loads only costs the extras; the trace itself is whole.
        return std::nullopt;
    }
}

}  // namespace tmasim::cli
