#pragma once
// The scenario a trace came from, found through the trace's provenance (scenario_file,
// relative to the working directory as `tmasim run` wrote it), for what a trace does not
// carry: element types, source lines, the summary. Traces are self-contained, so a missing
// or unloadable file is no error: the caller shows less.
#include <optional>
#include <string>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"
#include "traces/trace_reader.h"

namespace tmasim::cli {

struct TraceScenario {
    Scenario scenario;
    bool stale = false;  // the file's hash is not the trace's scenario_hash: edited since
};

std::optional<TraceScenario> scenario_of_trace(const Provenance& provenance);

// A trace as diff, export and report read it, with the scenario it names where that loads.
struct TraceAndScenario {
    TraceFile trace;
    std::optional<TraceScenario> scenario;
};

// Reads `path` keeping `detail` of its events. The scenario its header names, where it loads
// and is not stale, bounds the trace's CTA and op ids (TraceIdBounds): an id beyond them is
// a TraceError at its line. `known`, where given and the same file, is used, not loaded again.
TraceAndScenario read_trace_and_scenario(const std::string& path, TraceReadOptions::EventDetail detail,
                                         const TraceAndScenario* known = nullptr);

}  // namespace tmasim::cli
