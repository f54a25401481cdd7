#pragma once
// The model's run options that `tmasim run` and `tmasim sweep` both take (--l2, --trace),
// defined once: the same spelling, allowed values, default and help in both commands.
#include <string>

#include <CLI/CLI.hpp>

#include "model/run/run_model.h"

namespace tmasim::cli {

// --l2 inputs|cold|warm into `l2` (default "inputs").
CLI::Option* add_l2_option(CLI::App& sub, std::string& l2);
// --trace all|waits|none into `trace`. `with_device`: the command also runs on the device,
// whose default (all) the help then names beside the model's (none).
CLI::Option* add_trace_option(CLI::App& sub, std::string& trace, bool with_device);

// The model's options of those values, as the CLI checked them ("" trace: none).
void apply_model_run_flags(const std::string& l2, const std::string& trace, ModelOptions& model);

}  // namespace tmasim::cli
