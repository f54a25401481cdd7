#pragma once
// Reads a kernel scenario's `kernel:` mapping (scenarios/FORMAT.md "Kernel scenarios").
#include "scenarios/ir.h"
#include "scenarios/yaml_access.h"

namespace tmasim {

// `m` is the `kernel` mapping. Names of globals and tensor maps are checked against `sc`,
// whose declarations are read first.
KernelSpec read_kernel_spec(MapReader& m, const Scenario& sc);

}  // namespace tmasim
