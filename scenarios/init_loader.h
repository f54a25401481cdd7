#pragma once
// A global tensor's `init` (iota, {fill: v}, {random: {seed, min, max}}, {file: PATH}), read and checked
// against the tensor's element type: a value that does not fit the type would be stored
// changed (i32 fill 1.5 as 1, 2^31 as -2^31, u8 300 as 44 and -1 as 255, f16 70000 as inf),
// so it is refused at its key with the type's range.
#include <string>

#include "scenarios/ir.h"
#include "scenarios/yaml_access.h"

namespace tmasim {

InitSpec read_init(const YAML::Node& n, DType type, const std::string& file, const std::string& path);
// `init: {file: PATH}`: reads PATH (relative to the scenario `scenario_file`) into t.init.file_bytes;
// its size must be the tensor's, byte for byte (a file of other length is refused, never cut or
// padded). Call once the tensor's shape is known and checked.
void read_init_file(GlobalTensor& t, const std::string& scenario_file, const std::string& path);

}  // namespace tmasim
