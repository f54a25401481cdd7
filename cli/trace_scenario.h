#pragma once
// The scenario a trace came from, found through the trace's provenance (scenario_file,
// relative to the working directory as `tmasim run` wrote it), for what a trace does not
// carry: element types, source lines, the summary. Traces are self-contained, so a missing
// or unloadable file is no error: the caller shows less.
#include <optional>
#include <string>

#include "scenarios/ir.h"
#include "scenarios/run_result.h"

namespace tmasim::cli {

struct TraceScenario {
    Scenario scenario;
    bool stale = false;  // the file's hash is not the trace's scenario_hash: edited since
};

std::optional<TraceScenario> scenario_of_trace(const Provenance& provenance);

}  // namespace tmasim::cli
