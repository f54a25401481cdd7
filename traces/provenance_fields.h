#pragma once
// The provenance's fields as JSON, in one place for the trace header (trace_writer.cpp) and
// the --json documents (json_output.cpp), which use nlohmann's ordered and sorted objects.
#include "scenarios/run_result.h"

namespace tmasim {

template <typename JsonObject>
void put_provenance_fields(JsonObject& j, const Provenance& p) {
    j["backend"] = p.backend;
    j["tool_version"] = p.tool_version;
    j["scenario"] = p.scenario;
    j["scenario_file"] = p.scenario_file;
    j["scenario_hash"] = p.scenario_hash;
    j["gpu"] = p.gpu;
    j["sm_clock_mhz"] = p.sm_clock_mhz;
    j["driver"] = p.driver;
    j["cuda"] = p.cuda;
    j["model_config"] = p.model_config;
    j["model_config_hash"] = p.model_config_hash;
    j["seed"] = p.seed;
    JsonObject extra = JsonObject::object();
    for (const auto& [key, value] : p.extra) extra[key] = value;
    j["extra"] = extra;
}

}  // namespace tmasim
