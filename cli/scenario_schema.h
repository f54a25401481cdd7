#pragma once
// The JSON Schema of the scenario YAML, derived from the op table (scenarios/op_table.h),
// the enumerations' string tables and the rule table, so editors (yaml-language-server and
// the like) complete op names, keys and enum values, and flag unknown keys as tmasim does.
// `tmasim schema` prints it; scenarios/scenario.schema.json is its committed copy.
#include <nlohmann/json.hpp>

namespace tmasim::cli {

nlohmann::json scenario_schema();

}  // namespace tmasim::cli
