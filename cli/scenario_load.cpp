#include "cli/scenario_load.h"

#include "ptx/kernel_binding.h"
#include "scenarios/loader.h"

namespace tmasim::cli {

Scenario load_bound_scenario(const std::string& path) {
    Scenario s = load_scenario_file(path);
    ptx::bind_kernel(s);
    return s;
}

}  // namespace tmasim::cli
