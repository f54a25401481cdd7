#include "cli/trace_scenario.h"
#include "cli/scenario_load.h"

#include <algorithm>
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

TraceAndScenario read_trace_and_scenario(const std::string& path, TraceReadOptions::EventDetail detail,
                                         const TraceAndScenario* known) {
    TraceAndScenario out;
    TraceReadOptions options;
    options.event_detail = detail;
    options.id_bounds = [&](const Provenance& p) -> std::optional<TraceIdBounds> {
        if (known && known->scenario && p.scenario_file == known->trace.result.provenance.scenario_file) {
            out.scenario = known->scenario;
            out.scenario->stale = !p.scenario_hash.empty() && out.scenario->scenario.content_hash != p.scenario_hash;
        } else {
            out.scenario = scenario_of_trace(p);
        }
        // An edited scenario may have other ops or another grid than the run had.
        if (!out.scenario || out.scenario->stale) return std::nullopt;
        TraceIdBounds b;
        b.ctas = out.scenario->scenario.launch.num_ctas();
        for (const Op* op : out.scenario->scenario.all_ops()) b.ops = std::max(b.ops, op->id + 1);
        b.scenario_file = p.scenario_file;
        return b;
    };
    out.trace = read_trace_file(path, options);
    return out;
}

}  // namespace tmasim::cli
