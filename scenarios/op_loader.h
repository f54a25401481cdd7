#pragma once
#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "scenarios/ir.h"

namespace tmasim {

// Ops written in one program after YAML aliases are expanded, and loops inside loops.
constexpr int kMaxProgramOps = 10000;
constexpr int kMaxLoopDepth = 16;

// Reads a list of ops (the program or a loop body), numbering them in pre-order from
// `next_id`. Checks each op's keys; names and ranges are checked by validate_scenario.
std::vector<Op> read_ops(const YAML::Node& list, const std::string& file, const std::string& path,
                         int& next_id);

}  // namespace tmasim
